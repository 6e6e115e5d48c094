package disclosure

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store/record"
)

// MemoryLineTokens caps one memory in injected context; the rest is one
// `vibe memory show ID` away, and the [M-id] says which.
const MemoryLineTokens = 80

// PromptMemories is how many memories UserPromptSubmit injects.
const PromptMemories = 3

// SessionMemories is how many memories SessionStart offers to layer 2
// (the budget usually admits four to six).
const SessionMemories = 6

// summaryTokens caps the last session's one-line summary in layer 1.
const summaryTokens = 70

// salientPool is how many recent memories SessionStart ranks by salience:
// the newest that are neither forgotten nor narratives (narratives are
// never shown there, so they do not take places in the pool).
const salientPool = 200

// MemoryID is the stable id a memory is cited by in context and accepted by
// `vibe memory show`.
func MemoryID(id int64) string { return fmt.Sprintf("M-%d", id) }

// disputeTokens caps the text of the memory that disputes one, in that
// memory's line.
const disputeTokens = 16

// MemoryLine formats one memory for injected context: id, kind, date, text
// (shortened to MemoryLineTokens) and where it stands: the memory that
// supersedes it; the better-sourced one it disputes (so it is never read
// as current); the newest less trusted memory that disputes it, with its
// source, date and text (h.Dispute); or else the memories it contradicts
// (two at most).
func MemoryLine(h recall.Hit) string {
	head := fmt.Sprintf("- [%s] %s %s: ", MemoryID(h.ID), h.Kind, h.CreatedAt.UTC().Format("2006-01-02"))
	tail := ""
	switch {
	case h.SupersededBy != nil:
		tail = fmt.Sprintf(" (superseded by [%s])", MemoryID(*h.SupersededBy))
	case h.Disputes != nil:
		tail = fmt.Sprintf(" (disputes the better-sourced [%s])", MemoryID(*h.Disputes))
	case len(h.DisputedBy) > 0:
		more := ""
		if len(h.DisputedBy) > 1 {
			more = fmt.Sprintf(" and %d more", len(h.DisputedBy)-1)
		}
		if d := h.Dispute; d != nil && d.ID == h.DisputedBy[0] {
			tail = fmt.Sprintf(" (disputed by [%s], a %s memory of %s: %s%s)", MemoryID(d.ID), record.TrustLabel(d.Trust),
				d.CreatedAt.UTC().Format("2006-01-02"), Shorten(strings.Join(strings.Fields(d.Text), " "), disputeTokens), more)
		} else {
			tail = fmt.Sprintf(" (disputed by [%s]%s)", MemoryID(h.DisputedBy[0]), more)
		}
	case len(h.Conflicts) > 0:
		ids := make([]string, 0, 2)
		for _, c := range h.Conflicts[:min(2, len(h.Conflicts))] {
			ids = append(ids, "["+MemoryID(c)+"]")
		}
		more := ""
		if len(h.Conflicts) > 2 {
			more = fmt.Sprintf(" and %d more", len(h.Conflicts)-2)
		}
		tail = " (contradicts " + strings.Join(ids, ", ") + more + ")"
	}
	text := strings.Join(strings.Fields(h.Text), " ")
	room := MemoryLineTokens - Tokens(head) - Tokens(tail)
	return head + Shorten(text, max(room, minShortened)) + tail
}

// Alert is an unresolved observer alert as the SessionStart context shows
// it.
type Alert struct {
	Level   string // HALT, WARN or INFO
	Message string
}

// AlertsPart is the layer 2 part of unresolved alerts, most severe first
// (HALT, WARN, INFO, then anything else), ties in the order given.
func AlertsPart(alerts []Alert) Part {
	sorted := append([]Alert(nil), alerts...)
	sort.SliceStable(sorted, func(i, j int) bool { return severity(sorted[i].Level) < severity(sorted[j].Level) })
	lines := make([]string, len(sorted))
	for i, a := range sorted {
		lines[i] = fmt.Sprintf("- %s %s", a.Level, strings.Join(strings.Fields(a.Message), " "))
	}
	return Part{Layer: LayerRecall, Priority: PriorityAlerts, Title: "ALERTS", Lines: lines, More: "vibe alerts"}
}

func severity(level string) int {
	switch strings.ToUpper(level) {
	case "HALT":
		return 0
	case "WARN":
		return 1
	case "INFO":
		return 2
	}
	return 3
}

// SessionStartContext builds the SessionStart injection for a project:
// layer 1 is the state line (project, sessions, active claims, pending
// gates) and the last session in one line; layer 2 holds the memories most
// worth keeping in mind, first those that recall finds for the last
// session's narrative (hybrid when vec answers), then the most salient of
// the recent ones. extra carries the parts other packages own (alerts,
// calibration hint, seeds, stage, blueprint line, brief constraints).
// vec may be nil; session is the starting session, never shown as its own
// "last session" (SessionStart fires again on resume, clear and compact).
func SessionStartContext(ctx context.Context, st Reads, vec recall.Vectors, project, session string, now time.Time, b Budgets, extra []Part) (string, error) {
	state, prev, err := statePart(ctx, st, project, session)
	if err != nil {
		return "", err
	}
	mem, err := sessionMemories(ctx, st, vec, project, prev, now)
	if err != nil {
		return "", err
	}
	parts := append([]Part{state, mem}, extra...)
	return Build(parts, b), nil
}

func statePart(ctx context.Context, st Reads, project, session string) (Part, string, error) {
	sessions, claims, gates, err := st.SessionCounts(ctx, project, session)
	if err != nil {
		return Part{}, "", fmt.Errorf("session context: %w", err)
	}
	prev, ok, err := st.PreviousSession(ctx, project, session)
	if err != nil {
		return Part{}, "", fmt.Errorf("session context: %w", err)
	}
	lines := []string{fmt.Sprintf("project %s · session %d · %s · %s", filepath.Base(project), sessions,
		plural(claims, "active claim"), plural(gates, "pending gate"))}
	narrative := ""
	if ok {
		narrative = prev.NarrativeSummary
		when := prev.LastSeenAt
		if prev.EndedAt != nil {
			when = *prev.EndedAt
		}
		head := fmt.Sprintf("last session %s: ", when.Format("2006-01-02"))
		lines = append(lines, head+Shorten(strings.Join(strings.Fields(narrative), " "), summaryTokens-Tokens(head)))
	} else {
		lines = append(lines, "first session on this project")
	}
	return Part{Layer: LayerState, Priority: PriorityState, Title: "VIBE STATE", Lines: lines, More: "vibe sessions show ID"}, narrative, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// salience weighs a kind for SessionStart: outcomes (gate failures, claim
// events) and decisions are what a new session must not contradict, open
// threads what it should pick up;
// narratives are already summarised in layer 1 and actions rarely matter a
// session later.
func salience(kind string) float64 {
	switch kind {
	case record.KindGateFailure, record.KindClaimEvent:
		return 1
	case record.KindDecision, record.KindOpenThread:
		return 0.9
	case record.KindNote, record.KindInsight, record.KindPattern:
		return 0.8
	case record.KindSeed, record.KindHypothesis:
		return 0.7
	case record.KindFailure:
		return 0.5 // PreToolUse recalls a mistake before its target is touched again
	}
	return 0.3
}

func sessionMemories(ctx context.Context, st Reads, vec recall.Vectors, project, narrative string, now time.Time) (Part, error) {
	var picks []recall.Hit
	seen := map[int64]bool{}
	if strings.TrimSpace(narrative) != "" {
		kinds := []string{record.KindDecision, record.KindGateFailure, record.KindClaimEvent, record.KindSeed, record.KindNote,
			record.KindPattern, record.KindInsight, record.KindHypothesis, record.KindOpenThread}
		res, err := recall.Search(ctx, st, vec, recall.Query{Project: project, Text: narrative, Limit: SessionMemories / 2, Kinds: kinds, Now: now})
		if err != nil {
			return Part{}, fmt.Errorf("session context: %w", err)
		}
		for _, h := range res.Hits {
			seen[h.ID] = true
			picks = append(picks, h)
		}
	}
	salient, err := salientMemories(ctx, st, project, now, seen, SessionMemories-len(picks))
	if err != nil {
		return Part{}, fmt.Errorf("session context: %w", err)
	}
	start := len(picks)
	for _, m := range salient {
		picks = append(picks, recall.HitOf(m))
	}
	if err := recall.FillDisputes(ctx, st, picks[start:]); err != nil {
		return Part{}, fmt.Errorf("session context: %w", err)
	}
	lines := make([]string, len(picks))
	for i, p := range picks {
		lines[i] = MemoryLine(p)
	}
	return Part{Layer: LayerRecall, Priority: PriorityMemories, Title: "MEMORY (full text: vibe memory show ID)",
		Lines: lines, More: "vibe recall QUERY"}, nil
}

// salientMemories is the n most salient of the project's salientPool
// newest memories that are not narratives, leaving out those in skip:
// ranked by salience(kind) × freshness × (0.5 + 0.5 × trust), a superseded
// or disputing one weighed down by recall.SupersededWeight, ties by id
// (newer first).
// Ranking needs only the heads; the kept few are read in full.
func salientMemories(ctx context.Context, st Reads, project string, now time.Time, skip map[int64]bool, n int) ([]record.MemoryRecord, error) {
	if n <= 0 {
		return nil, nil
	}
	heads, err := st.SalientCandidates(ctx, project, salientPool)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		id    int64
		score float64
	}
	rs := make([]ranked, 0, len(heads))
	for _, h := range heads {
		if skip[h.ID] || h.Kind == record.KindNarrative {
			continue
		}
		score := salience(h.Kind) * recall.Freshness(h.Kind, h.CreatedAt, now) * (0.5 + 0.5*h.Trust)
		if h.OutrankedBy != nil {
			score *= recall.SupersededWeight
		}
		rs = append(rs, ranked{h.ID, score})
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return rs[i].score > rs[j].score
		}
		return rs[i].id > rs[j].id
	})
	ids := make([]int64, 0, n)
	for _, r := range rs[:min(n, len(rs))] {
		ids = append(ids, r.id)
	}
	return st.MemoriesByID(ctx, project, ids)
}

// PromptContext builds the UserPromptSubmit injection: the top
// PromptMemories memories recalled for the prompt, within budget tokens,
// and the search's result (its hits, mode, embedder and note, for the
// caller's log and for people). No hit gives "" (nothing is injected).
// Nobody asked for this recall, so vector hits count only when they stand
// out (recall.Query.StandoutsOnly): a prompt with no word to search ("go",
// "yes") and no memory the model singles out injects nothing. The agent
// reads only the memories: how they were found (lexical only and why, the
// fallback embedder standing in for a model) is the user's business, told
// by `vibe recall` and `vibe doctor`, and would cost every prompt tokens.
// vec may be nil.
func PromptContext(ctx context.Context, st Reads, vec recall.Vectors, project, prompt string, now time.Time, budget int) (string, recall.Result, error) {
	res, err := recall.Search(ctx, st, vec, recall.Query{Project: project, Text: prompt, Limit: PromptMemories, Now: now, StandoutsOnly: true})
	if err != nil {
		return "", recall.Result{}, fmt.Errorf("prompt context: %w", err)
	}
	if len(res.Hits) == 0 {
		return "", res, nil
	}
	lines := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		lines[i] = MemoryLine(h)
	}
	part := Part{Layer: LayerRecall, Priority: PriorityMemories, Title: PromptRecallTitle, Lines: lines, More: "vibe memory show ID"}
	return Build([]Part{part}, Budgets{Layer2: budget, Total: budget}), res, nil
}

// PromptRecallTitle heads the memories a prompt recalls.
const PromptRecallTitle = "VIBE RECALL: memories that may bear on this prompt"
