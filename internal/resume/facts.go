package resume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
)

// File names under .vibe-science/.
const (
	StateFile  = "STATE.md"
	SpineFile  = "SPINE.md"
	PickupFile = "project_pickup.md"
	LedgerFile = "CLAIM-LEDGER.md"
	// RecordFile is the research record `vibe export` writes; STATE.md
	// links it once it exists.
	RecordFile = "RECORD.md"
)

// maxFileRead bounds how much of a research file vibe reads for a summary,
// so a runaway file cannot stall SessionEnd.
const maxFileRead = 1 << 20

// Facts are what vibe's STATE.md section and the pickup note say.
type Facts struct {
	Now     time.Time
	Project project.Project
	// Session is the session being summarised (its narrative may be empty).
	Session *record.Session
	// Claims are the ledger's claims that are not KILLED, in ledger order.
	Claims       []claim.Claim
	LedgerErrors int
	// MissingGates maps a PROVISIONAL claim to the promotion gates with no
	// PASS recorded for it (the rule the promotion check applies).
	MissingGates map[string][]string
	Failing      []record.GateState
	Alerts       []record.Alert
	AlertCounts  record.AlertCounts
	Seeds        []record.PendingSeed
	// Phase, Next: read from the researcher's part of STATE.md.
	Phase string
	Next  []string
	// Record says RecordFile exists, so vibe's section links it.
	Record bool
}

// readCapped reads at most maxFileRead bytes of a file; a missing file is
// (nil, nil).
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileRead))
}

// Gather reads the facts from the database and the project's files.
func Gather(ctx context.Context, st Reads, proj project.Project, sessionID string, now time.Time) (Facts, error) {
	f := Facts{Now: now, Project: proj, MissingGates: map[string][]string{}}
	if _, err := os.Stat(proj.Path(RecordFile)); err == nil {
		f.Record = true
	}
	var errs []error
	if sessionID != "" {
		s, err := st.Session(ctx, sessionID)
		if err != nil && fault.KindOf(err) != fault.NotFound {
			errs = append(errs, err)
		}
		if err == nil && strings.TrimSpace(s.NarrativeSummary) != "" {
			f.Session = &s
		}
	}
	if f.Session == nil {
		prev, ok, err := st.PreviousSession(ctx, proj.Root, sessionID)
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			f.Session = &prev
		}
	}

	ledger, err := readCapped(proj.Path(LedgerFile))
	if err != nil {
		errs = append(errs, fmt.Errorf("read claim ledger: %w", err))
	}
	if len(ledger) > 0 {
		l, perrs := claim.ParseLedger(ledger)
		f.LedgerErrors = len(perrs)
		for _, c := range l.Claims {
			if c.Status != claim.StatusKilled {
				f.Claims = append(f.Claims, c)
			}
		}
	}
	missing, err := missingGates(ctx, st, proj, f.Claims)
	if err != nil {
		errs = append(errs, err)
	}
	f.MissingGates = missing
	if f.Failing, err = st.FailingGates(ctx, proj.Root, 0); err != nil {
		errs = append(errs, err)
	}
	if f.Alerts, err = st.Alerts(ctx, record.AlertFilter{Project: proj.Root, Limit: 20}); err != nil {
		errs = append(errs, err)
	}
	if f.AlertCounts, err = st.OpenAlertCounts(ctx, proj.Root); err != nil {
		errs = append(errs, err)
	}
	if f.Seeds, err = st.PendingSeeds(ctx, proj.Root, 20); err != nil {
		errs = append(errs, err)
	}
	state, err := readCapped(proj.Path(StateFile))
	if err != nil {
		errs = append(errs, fmt.Errorf("read STATE.md: %w", err))
	}
	_, f.Phase, _ = Phase(state)
	f.Next = NextSteps(state, 12)
	return f, errors.Join(errs...)
}

// maxListed caps each list in vibe's STATE.md section.
const maxListed = 12

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func claimLabel(c claim.Claim) string {
	s := c.ID + " " + orDash(c.Status)
	if c.HasConfidence {
		s += fmt.Sprintf(" %.2f", c.Confidence)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "(status unreadable)"
	}
	return s
}

func capped(items []string, max int) string { return cappedSep(items, max, ", ") }

func cappedSep(items []string, max int, sep string) string {
	if len(items) > max {
		return strings.Join(items[:max], sep) + fmt.Sprintf("%s… %d more", sep, len(items)-max)
	}
	return strings.Join(items, sep)
}

// pendingGateItems lists "C-001 needs DQ1, DC0" in ledger order.
func (f Facts) pendingGateItems() []string {
	var out []string
	for _, c := range f.Claims {
		if g := f.MissingGates[c.ID]; len(g) > 0 {
			out = append(out, c.ID+" needs "+strings.Join(g, ", "))
		}
	}
	return out
}

func gateLabel(g record.GateState) string {
	if g.ClaimID != "" {
		return g.GateID + " (" + g.ClaimID + ")"
	}
	return g.GateID
}

// StateSection renders vibe's section of STATE.md: a heading, the update
// time, the last session's summary line, active claims with status, pending
// gates, open alerts and pending seeds.
func StateSection(f Facts) string {
	var b strings.Builder
	b.WriteString("## Where the work stands (vibe)\n\n")
	b.WriteString("_vibe rewrites the lines between the markers at the end of each session; write your own notes outside them._\n\n")
	b.WriteString(UpdatedPrefix + stamp(f.Now) + "\n")
	if f.Session != nil {
		when := f.Session.LastSeenAt
		verb := "last seen"
		if f.Session.EndedAt != nil {
			when, verb = *f.Session.EndedAt, "ended"
		}
		line := firstLine(f.Session.NarrativeSummary)
		if line == "" {
			line = "no summary recorded"
		}
		fmt.Fprintf(&b, "- last session: %s, %s %s: %s\n", shortID(f.Session.ID), verb, stamp(when), line)
	} else {
		b.WriteString("- last session: none recorded yet\n")
	}
	if len(f.Claims) == 0 {
		b.WriteString("- active claims: none\n")
	} else {
		items := make([]string, len(f.Claims))
		for i, c := range f.Claims {
			items[i] = claimLabel(c)
		}
		fmt.Fprintf(&b, "- active claims (%d): %s\n", len(f.Claims), capped(items, maxListed))
	}
	if f.LedgerErrors > 0 {
		fmt.Fprintf(&b, "- claim ledger: %d entries do not parse; `vibe gate check` lists them\n", f.LedgerErrors)
	}
	pending := f.pendingGateItems()
	var failing []string
	for _, g := range f.Failing {
		failing = append(failing, gateLabel(g))
	}
	switch {
	case len(pending) == 0 && len(failing) == 0:
		b.WriteString("- pending gates: none\n")
	default:
		var parts []string
		if len(pending) > 0 {
			parts = append(parts, cappedSep(pending, maxListed, "; "))
		}
		if len(failing) > 0 {
			parts = append(parts, "failing: "+capped(failing, maxListed))
		}
		fmt.Fprintf(&b, "- pending gates: %s\n", strings.Join(parts, "; "))
	}
	c := f.AlertCounts
	if c.Total() == 0 {
		b.WriteString("- open alerts: none\n")
	} else {
		var parts []string
		for _, p := range []struct {
			n     int
			level string
		}{{c.Halt, "HALT"}, {c.Warn, "WARN"}, {c.Info, "INFO"}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.level))
			}
		}
		fmt.Fprintf(&b, "- open alerts: %d (%s); `vibe alerts list` shows them\n", c.Total(), strings.Join(parts, ", "))
	}
	if len(f.Seeds) == 0 {
		b.WriteString("- pending seeds: none\n")
	} else {
		items := make([]string, len(f.Seeds))
		for i, s := range f.Seeds {
			items[i] = s.SeedID
		}
		fmt.Fprintf(&b, "- pending seeds (%d): %s\n", len(f.Seeds), capped(items, maxListed))
	}
	if f.Record {
		b.WriteString("- research record: [" + RecordFile + "](" + RecordFile + "), written by `vibe export` (run it again to refresh it)\n")
	}
	return privacy.Scrub(b.String()) // what the database held before a secret rule existed
}

// claimCounts counts claims per status, in the ledger's status order.
func claimCounts(cs []claim.Claim) string {
	n := map[string]int{}
	for _, c := range cs {
		n[orDash(c.Status)]++
	}
	order := []string{claim.StatusProvisional, claim.StatusPromoted, claim.StatusVerified, claim.StatusDisputed, claim.StatusKilled}
	var parts []string
	for _, s := range order {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
			delete(n, s)
		}
	}
	rest := make([]string, 0, len(n))
	for s := range n {
		rest = append(rest, s)
	}
	sort.Strings(rest)
	for _, s := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
	}
	return strings.Join(parts, ", ")
}
