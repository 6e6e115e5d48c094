package seeds

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// EscalateAfter is LAW 5 across sessions: a seed still PENDING_TRIAGE after
// more than this many sessions (counting the one it was written in) is
// escalated.
const EscalateAfter = 5

// CheckFormat is the check of the verdict FormatVerdict builds.
const CheckFormat = "serendipity-format"

// SyncResult says what a sync did.
type SyncResult struct {
	// Synced counts the valid entries written to the database, Created those
	// new to it, Removed the stored seeds no longer in the file.
	Synced, Created, Removed int
	// Errors are the file's problems; entries with one were not synced.
	Errors []error
}

// Sync mirrors SERENDIPITY.md into the database after it was written in
// session: every valid entry is upserted; seeds stored before but no longer
// in the file become REMOVED; entries with a problem are left as they were
// stored and reported in the result. content must be the whole file as it is
// now (for an Edit, read the file after the edit, not the new_string).
func Sync[W Writes](ctx context.Context, st Ledger[W], project, session string, content []byte, now time.Time) (SyncResult, error) {
	parsed, errs := Parse(content)
	res := SyncResult{Errors: errs}
	var present []string
	for _, s := range parsed {
		if validSeedID(s.ID) {
			present = append(present, s.ID)
		}
	}
	err := st.Tx(ctx, func(tx W) error {
		for _, s := range parsed {
			if !s.Valid() {
				continue
			}
			created, err := tx.UpsertSeed(ctx, seedRecord(s, project), session, now)
			if err != nil {
				return err
			}
			res.Synced++
			if created {
				res.Created++
			}
		}
		n, err := tx.MarkSeedsRemoved(ctx, project, present, session, now)
		res.Removed = n
		return err
	})
	if err != nil {
		return res, fmt.Errorf("sync seeds: %w", err)
	}
	return res, nil
}

func seedRecord(s Seed, project string) record.SeedRecord {
	r := record.SeedRecord{SeedID: s.ID, ProjectPath: project, Status: s.Status, Source: s.Source, Title: s.Title,
		CausalQuestion: s.CausalQuestion, DiscriminatingTest: s.DiscriminatingTest, FallbackTest: s.FallbackTest,
		SalvagedFrom: s.SalvagedFrom, Resolution: s.Resolution}
	if s.Score != nil {
		f := float64(*s.Score)
		r.Score = &f
	}
	return r
}

// FormatVerdict turns the problems of a synced SERENDIPITY.md into a WARN
// for the PostToolUse reply (PASS when there are none): the write already
// happened, and the seeds with problems are not carried to later sessions
// until they are fixed.
func FormatVerdict(errs []error) verdict.Verdict {
	if len(errs) == 0 {
		return verdict.New(CheckFormat, verdict.Pass, verdict.Low, "SERENDIPITY.md parsed without problems", nil)
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	shown := msgs
	if len(shown) > 5 {
		shown = shown[:5]
	}
	reason := fmt.Sprintf("%d problem(s) in SERENDIPITY.md keep those seeds out of later sessions (LAW 5 tracking): %s",
		len(msgs), strings.Join(shown, "; "))
	if len(msgs) > len(shown) {
		reason += fmt.Sprintf("; and %d more", len(msgs)-len(shown))
	}
	v := verdict.New(CheckFormat, verdict.Warn, verdict.Med, reason, map[string]any{"problems": msgs})
	v.Recommendation = "Fix each entry as skill/vibe/formats/serendipity.md shows, then save the file again."
	v.Evidence.Paths = []string{".vibe-science/SERENDIPITY.md"}
	return v
}

// Tick runs at SessionStart, after the session is recorded: it brings the
// pending-session count of the project's PENDING_TRIAGE seeds up to date
// and escalates those pending for more than EscalateAfter sessions. Running
// it again in the same session (resume, clear, compact) changes nothing. It
// returns the ids escalated by this call.
func Tick(ctx context.Context, st Ticker, project, session string) ([]string, error) {
	ids, err := st.TickSeeds(ctx, project, session, EscalateAfter)
	if err != nil {
		return nil, fmt.Errorf("tick seeds: %w", err)
	}
	return ids, nil
}

const (
	maxQuestionRunes = 120
	maxTestRunes     = 90
)

// Pending returns one line per seed waiting for triage (PENDING_TRIAGE or
// QUEUED), escalated seeds first and marked ESCALATED, then by score, at
// most limit lines (<= 0 means 5), for the SessionStart context.
func Pending(ctx context.Context, st Triage, project string, limit int) ([]string, error) {
	rs, err := st.SeedsToTriage(ctx, project, limit)
	if err != nil {
		return nil, fmt.Errorf("pending seeds: %w", err)
	}
	lines := make([]string, 0, len(rs))
	for _, r := range rs {
		lines = append(lines, pendingLine(r))
	}
	return lines, nil
}

func pendingLine(r record.SeedRecord) string {
	var b strings.Builder
	if r.Escalated && r.Status == StatusPendingTriage {
		fmt.Fprintf(&b, "ESCALATED %s (LAW 5: pending triage for %d sessions; triage it now)", r.SeedID, r.SessionsPending)
	} else if r.Status == StatusPendingTriage {
		fmt.Fprintf(&b, "%s (%s, %s)", r.SeedID, r.Status, plural(r.SessionsPending, "session"))
	} else {
		fmt.Fprintf(&b, "%s (%s)", r.SeedID, r.Status)
	}
	if r.Score != nil {
		b.WriteString(", score " + strconv.FormatFloat(*r.Score, 'f', -1, 64))
	}
	q := r.CausalQuestion
	if q == "" {
		q = r.Title
	}
	b.WriteString(": " + shorten(q, maxQuestionRunes))
	if r.DiscriminatingTest != "" {
		b.WriteString(" Test: " + shorten(r.DiscriminatingTest, maxTestRunes))
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// shorten cuts s to n runes at a word boundary where it can, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
