package disclosure

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// heavy is a project with far more to say than the budget allows: 3,000
// memories, a 6,000-character narrative, 40 alerts, a long brief and long
// extra layer 1 lines.
func heavy(t *testing.T) (*store.Store, []Part) {
	t.Helper()
	st := openStore(t)
	research(t, st, strings.Repeat("Session summary: re-ran the whole pipeline on GRCh38 and checked every gate again. ", 75))
	must(t, recall.Fill(context.Background(), st, project, 3000, now))
	var alerts []Alert
	for i := 0; i < 40; i++ {
		level := []string{"INFO", "WARN", "HALT"}[i%3]
		alerts = append(alerts, Alert{Level: level, Message: fmt.Sprintf("alert %d: %s", i, strings.Repeat("the ledger and the findings disagree ", 3))})
	}
	var brief []string
	for i := 0; i < 20; i++ {
		brief = append(brief, fmt.Sprintf("- constraint %d: never report raw counts; every claim needs a falsification attempt first", i))
	}
	extra := append(extras(),
		AlertsPart(alerts),
		Part{Layer: LayerRecall, Priority: PriorityBrief, Title: "BRIEF", Lines: brief, More: "vibe brief show"},
		Part{Layer: LayerState, Priority: PriorityStage, Title: "STAGE", Lines: []string{strings.Repeat("stage 3 of 5: validation in cells; ", 20)}},
	)
	return st, extra
}

func layers(t *testing.T, st *store.Store, extra []Part, total int) (full, l1, l2 string) {
	t.Helper()
	ctx := context.Background()
	full, err := SessionStartContext(ctx, st, nil, project, "", now, DefaultBudgets(total), extra)
	must(t, err)
	l1, err = SessionStartContext(ctx, st, nil, project, "", now, Budgets{Layer1: 200, Total: total}, extra)
	must(t, err)
	if !strings.HasPrefix(full, l1+"\n") {
		t.Fatalf("layer 1 is not the head of the context:\n%s\n---\n%s", l1, full)
	}
	return full, l1, strings.TrimPrefix(full, l1+"\n")
}

// TestForensicC9: the SessionStart context stays under 1,000 tokens
// (blueprint §15 C9), however much the project holds, and under a smaller
// configured cap too.
func TestForensicC9(t *testing.T) {
	st, extra := heavy(t)
	for _, total := range []int{config.Defaults.SessionStartTokens, 600, 300} {
		full, _, _ := layers(t, st, extra, total)
		if n := Tokens(full); n > total {
			t.Errorf("cap %d: SessionStart context is %d tokens", total, n)
		}
		if !strings.HasPrefix(full, "[VIBE STATE]\nproject crispr-offtarget · session 2 · 1 active claim · 1 pending gate\n") {
			t.Errorf("cap %d: state line missing:\n%s", total, full)
		}
		if !strings.Contains(full, "[… cut: ") {
			t.Errorf("cap %d: overflow not marked:\n%s", total, full)
		}
	}
}

// TestForensicE1: layer 1 (state) is at most 200 tokens.
func TestForensicE1(t *testing.T) {
	st, extra := heavy(t)
	_, l1, _ := layers(t, st, extra, 1000)
	if n := Tokens(l1); n > 200 {
		t.Errorf("layer 1 is %d tokens:\n%s", n, l1)
	}
	// The state line comes first; the long narrative is one shortened line.
	lines := strings.Split(l1, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "last session 2026-10-30: Session summary: re-ran") || !strings.HasSuffix(lines[2], "…") {
		t.Errorf("layer 1 lines: %q", lines)
	}
}

// TestForensicE2: layer 2 (memories, alerts, calibration, seeds) is at most
// 500 tokens, alerts come most severe first, and memories carry stable ids.
func TestForensicE2(t *testing.T) {
	st, extra := heavy(t)
	_, _, l2 := layers(t, st, extra, 1000)
	if n := Tokens(l2); n > 500 {
		t.Errorf("layer 2 is %d tokens:\n%s", n, l2)
	}
	i := strings.Index(l2, "[ALERTS]\n- HALT ")
	w := strings.Index(l2, "- WARN ")
	if i < 0 || w < i {
		t.Errorf("alerts not most severe first:\n%s", l2)
	}
	ids := regexp.MustCompile(`\[M-(\d+)\]`).FindAllStringSubmatch(l2, -1)
	if len(ids) == 0 {
		t.Fatalf("no memory ids in layer 2:\n%s", l2)
	}
	for _, m := range ids {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		if _, err := st.Memory(context.Background(), id); err != nil {
			t.Errorf("[M-%d] in context is not a stored memory: %v", id, err)
		}
	}
}

// TestForensicE3: layers 1 and 2 together stay under 1,000 tokens.
func TestForensicE3(t *testing.T) {
	st, extra := heavy(t)
	full, l1, l2 := layers(t, st, extra, 1000)
	if Tokens(full) > 1000 || Tokens(l1)+Tokens(l2) > 700 {
		t.Errorf("total %d tokens (layer 1 %d + layer 2 %d)", Tokens(full), Tokens(l1), Tokens(l2))
	}
}

// TestForensicE4: full detail is available on demand. A memory too long
// for the context is injected shortened with its id and the command that
// shows it; by that id the store returns every character, and recall
// returns the full text too.
func TestForensicE4(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	research(t, st, "short narrative")
	full := "Decision on guide-level splits: " + strings.Repeat("every guide's sites stay on one side of the split so no guide leaks; ", 40)
	ids := addMemories(t, st, record.NewMemory{Kind: record.KindDecision, Text: full, At: now.Add(-time.Hour)})
	text, err := SessionStartContext(ctx, st, nil, project, "", now, DefaultBudgets(1000), nil)
	must(t, err)
	line := fmt.Sprintf("- [M-%d] decision 2026-11-01: Decision on guide-level splits:", ids[0])
	if !strings.Contains(text, line) || !strings.Contains(text, "full text: vibe memory show ID") || strings.Contains(text, full) {
		t.Fatalf("context does not show the memory shortened with its id:\n%s", text)
	}
	m, err := st.Memory(ctx, ids[0])
	must(t, err)
	if m.Text != full {
		t.Errorf("store returned %d characters, want %d", len(m.Text), len(full))
	}
	res, err := recall.Search(ctx, st, nil, recall.Query{Project: project, Text: "guide-level split leaks", Now: now})
	must(t, err)
	if len(res.Hits) == 0 || res.Hits[0].Text != full {
		t.Errorf("recall did not return the full text: %+v", res.Hits)
	}
	// The prompt context is layer 2 only and points to the same command.
	p, _, err := PromptContext(ctx, st, nil, project, "how do we split guides", now, 500)
	must(t, err)
	if !strings.Contains(p, fmt.Sprintf("[M-%d]", ids[0])) {
		t.Errorf("prompt context:\n%s", p)
	}
}

// TestForensicC10: UserPromptSubmit recall works: for prompts that say
// things in other words, the memory that answers is among the three
// injected, within 500 tokens, lexical without a worker and hybrid with one.
func TestForensicC10(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	must(t, recall.Fill(ctx, st, project, 2000, now))
	ids := addMemories(t, st,
		record.NewMemory{Kind: record.KindDecision, Text: "Read counts are modelled with a negative binomial GLM instead of Poisson; dispersion was 3.8.", At: now.Add(-40 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindClaimEvent, Text: "C-011 KILLED (CONFOUNDED): the methylation signal was explained by CpG density.", At: now.Add(-90 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindNote, Text: "Our HEK293T stock passed the mycoplasma test on 2 May; earlier cell results are suspect.", At: now.Add(-150 * 24 * time.Hour)},
	)
	tests := []struct {
		prompt string
		want   int64
	}{
		{"which count distribution do we use for reads, and why not Poisson?", ids[0]},
		{"does DNA methylation explain off-target activity?", ids[1]},
		{"when was the cell stock tested for contamination by mycoplasma", ids[2]},
	}
	for _, tt := range tests {
		text, res, err := PromptContext(ctx, st, nil, project, tt.prompt, now, config.Defaults.PromptRecallTokens)
		must(t, err)
		if res.Mode != recall.ModeLexical || Tokens(text) > config.Defaults.PromptRecallTokens {
			t.Errorf("%q: mode %s, %d tokens", tt.prompt, res.Mode, Tokens(text))
		}
		if n := strings.Count(text, "\n- [M-"); n != PromptMemories || !strings.Contains(text, fmt.Sprintf("[M-%d]", tt.want)) {
			t.Errorf("%q: want M-%d among %d memories:\n%s", tt.prompt, tt.want, PromptMemories, text)
		}
	}
	// With a worker that answers, the mode is hybrid and the worker's
	// answer can carry a memory BM25 ranks low.
	vec := fixedVec{hits: []recall.VectorHit{{ID: ids[2], Distance: 0.2, Model: "mini"}}}
	text, res, err := PromptContext(ctx, st, vec, project, "contamination of the culture", now, 500)
	must(t, err)
	if res.Mode != recall.ModeHybrid || res.Embedder != "mini" || res.Fallback {
		t.Errorf("mode %s, embedder %q, fallback %v with a worker, want hybrid with mini", res.Mode, res.Embedder, res.Fallback)
	}
	// The one vector hit cannot stand out of anything: the result says the
	// lexical order was kept, the agent's context does not.
	if res.Note != "no vector hit stands out of the model's own similarities: lexical order kept" {
		t.Errorf("note %q", res.Note)
	}
	plainTitle(t, "one vector hit", text)
	// Vectors that rank as the words do, sure of the first two (far
	// nearer than the rest): hybrid, and the context says nothing of it.
	lex, err := recall.Search(ctx, st, nil, recall.Query{Project: project, Text: "contamination of the culture", Limit: 50, Now: now})
	must(t, err)
	var agree fixedVec
	for i, h := range lex.Hits {
		d := 1 + 0.002*float64(i)
		if i < 2 {
			d = 0.1 + 0.01*float64(i)
		}
		agree.hits = append(agree.hits, recall.VectorHit{ID: h.ID, Distance: d, Model: "mini"})
	}
	text, res, err = PromptContext(ctx, st, agree, project, "contamination of the culture", now, 500)
	must(t, err)
	if res.Standouts != 2 || res.Note != "" {
		t.Errorf("agreeing vectors: %d standouts, note %q", res.Standouts, res.Note)
	}
	plainTitle(t, "agreeing vector hits", text)
	// The fallback embedder's vectors: hybrid in form, labelled fallback in
	// the result, and still nothing of it in the context (every prompt
	// carried a sentence about the missing model).
	for i := range agree.hits {
		agree.hits[i].Model = embed.FallbackModel
	}
	text, res, err = PromptContext(ctx, st, agree, project, "contamination of the culture", now, 500)
	must(t, err)
	if !res.Fallback || res.Embedder != embed.FallbackModel || res.Standouts != 2 {
		t.Errorf("fallback: %+v", res)
	}
	for _, h := range res.Hits[:2] {
		if !slices.Equal(h.Sources, []string{recall.SourceFTS, recall.SourceFallback}) {
			t.Errorf("a fallback standout's sources are %v, want fts and fallback: it matched words, not meanings", h.Sources)
		}
	}
	plainTitle(t, "fallback", text)
}

// plainTitle checks that a prompt's recall block is headed by the plain
// title and names no recall diagnostic anywhere.
func plainTitle(t *testing.T, what, text string) {
	t.Helper()
	if !strings.HasPrefix(text, "["+PromptRecallTitle+"]\n") {
		t.Errorf("%s: title:\n%s", what, text)
	}
	for _, word := range []string{"lexical", "hybrid", "fallback", "hashed", "embedder", "vector", "model pull", "stands out"} {
		if strings.Contains(text, word) {
			t.Errorf("%s: the agent's context says %q:\n%s", what, word, text)
		}
	}
}

type fixedVec struct{ hits []recall.VectorHit }

func (f fixedVec) KNN(context.Context, string, string, int, []string) ([]recall.VectorHit, error) {
	return f.hits, nil
}

// TestPromptWithNoWordsInjectsOnlyStandouts: a prompt with no word to
// search ("go") has only vectors to go by. When the model cannot tell the
// memories apart (evenly spaced distances), the prompt hook injects
// nothing; when one memory stands far nearer than the rest, that one. A
// recall somebody asked for (recall.Search without StandoutsOnly, as
// `vibe recall` runs it) still lists the nearest.
func TestPromptWithNoWordsInjectsOnlyStandouts(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	must(t, recall.Fill(ctx, st, project, 60, now))
	ids := addMemories(t, st, record.NewMemory{Kind: record.KindDecision, Text: "Proceed with the guide-held-out split for every fold.", At: now.Add(-24 * time.Hour)})
	all, err := recall.Search(ctx, st, nil, recall.Query{Project: project, Text: "split", Limit: 50, Now: now, AllProjects: true})
	must(t, err)
	if len(all.Hits) == 0 {
		t.Fatal("no memories to rank")
	}
	var flat, sure fixedVec
	for i, h := range all.Hits {
		d := 1 + 0.002*float64(i)
		flat.hits = append(flat.hits, recall.VectorHit{ID: h.ID, Distance: d})
		if h.ID == ids[0] {
			d = 0.1
		}
		sure.hits = append(sure.hits, recall.VectorHit{ID: h.ID, Distance: d})
	}
	text, _, err := PromptContext(ctx, st, flat, project, "go", now, 500)
	must(t, err)
	if text != "" {
		t.Errorf("a word-less prompt with no standout injected:\n%s", text)
	}
	asked, err := recall.Search(ctx, st, flat, recall.Query{Project: project, Text: "go", Limit: 3, Now: now})
	must(t, err)
	if len(asked.Hits) != 3 || asked.Note != "the query has no searchable words: vector ranks only" {
		t.Errorf("an asked-for recall of %q: %d hits, note %q; want the 3 nearest", "go", len(asked.Hits), asked.Note)
	}
	text, res, err := PromptContext(ctx, st, sure, project, "go", now, 500)
	must(t, err)
	if strings.Count(text, "\n- [M-") != 1 || !strings.Contains(text, fmt.Sprintf("[M-%d]", ids[0])) {
		t.Errorf("want only the memory that stands out (M-%d):\n%s", ids[0], text)
	}
	if res.Note != "the query has no searchable words: vector hits that stand out only" {
		t.Errorf("the result does not say why only one: %q", res.Note)
	}
	plainTitle(t, "a word-less prompt", text)
}
