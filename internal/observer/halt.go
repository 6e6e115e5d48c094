package observer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// CheckHalt is the verdict check name of HaltVerdict.
const CheckHalt = "observer-halt"

// fixPaths are the project-relative files whose writing fixes a HALT of a
// check: they stay writable while that HALT is open, or it could never be
// fixed.
var fixPaths = map[string][]string{
	CheckState: {".vibe-science/STATE.md"},
	CheckSeeds: {".vibe-science/SERENDIPITY.md"},
}

// OpenHalts returns the project's open HALT alerts for PreToolUse. When a
// HALT whose cause can be re-judged cheaply is open, it is re-judged first
// and resolved when its condition has cleared: the researcher's part of
// STATE.md changed (a stat, and a read only when the file changed), or the
// seed is no longer waiting for triage with Default's HALT count. So a
// HALT stops denying writes on the very next tool call after its fix, not
// ten calls later. With no HALT open this is one indexed query.
func OpenHalts[W Writes](ctx context.Context, st Store[W], proj project.Project, now time.Time) ([]Alert, error) {
	halts, err := st.OpenHalts(ctx, proj.Root)
	if err != nil || len(halts) == 0 {
		return halts, err
	}
	var clear []Alert
	var cache fileCache
	var cacheLoaded, cacheDirty bool
	var seeds map[string]int
	for _, a := range halts {
		switch a.Check {
		case CheckState:
			if !cacheLoaded {
				if cache, err = loadCache(ctx, st, proj); err != nil {
					return nil, err
				}
				cacheLoaded = true
			}
			before := cache.State.Hash
			exists, changed, err := readState(proj.Path(resume.StateFile), &cache.State)
			if err != nil {
				continue // the HALT stands; Run will report the read error
			}
			cacheDirty = cacheDirty || changed
			if exists && before != "" && cache.State.Hash != before {
				clear = append(clear, a)
			}
		case CheckSeeds:
			if seeds == nil {
				ps, err := st.PendingSeeds(ctx, proj.Root, 100)
				if err != nil {
					return nil, err
				}
				seeds = map[string]int{}
				for _, s := range ps {
					if s.Status == "PENDING_TRIAGE" {
						seeds[s.SeedID] = s.SessionsPending
					}
				}
			}
			id, _, _ := strings.Cut(strings.TrimPrefix(a.Fingerprint, CheckSeeds+":"), ":")
			if seeds[id] < Default.SeedHaltSessions {
				clear = append(clear, a)
			}
		}
	}
	if len(clear) == 0 && !cacheDirty {
		return halts, nil
	}
	err = st.Tx(ctx, func(tx W) error {
		for _, a := range clear {
			if _, err := tx.ResolveAlert(ctx, a.ID, record.ResolvedByObserver, cleared[a.Check], now); err != nil && !alreadyResolved(err) {
				return err
			}
		}
		if cacheDirty {
			raw, err := json.Marshal(cache)
			if err != nil {
				return err
			}
			return tx.SetObserverCache(ctx, cacheKey(proj), string(raw))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("resolve cleared HALT alerts: %w", err)
	}
	gone := map[int64]bool{}
	for _, a := range clear {
		gone[a.ID] = true
	}
	var out []Alert
	for _, a := range halts {
		if !gone[a.ID] {
			out = append(out, a)
		}
	}
	return out, nil
}

// Blocking returns the HALT alerts that deny a write to rel (a
// project-relative path with forward slashes, "" for a write whose target
// is unknown): every HALT except those whose fix is writing rel, so that
// STATE.md stays writable under a STATE.md HALT.
func Blocking(alerts []Alert, rel string) []Alert {
	var out []Alert
	for _, a := range alerts {
		if a.Level != Halt || a.Resolved {
			continue
		}
		exempt := false
		for _, p := range fixPaths[a.Check] {
			if rel != "" && strings.EqualFold(rel, p) {
				exempt = true
			}
		}
		if !exempt {
			out = append(out, a)
		}
	}
	return out
}

type haltInput struct {
	ID          int64  `json:"id"`
	Check       string `json:"check"`
	Fingerprint string `json:"fingerprint"`
}

// HaltVerdict builds PreToolUse's verdict from the open HALT alerts: PASS
// when there are none, otherwise HARD_BLOCK with a reason that lists each
// HALT and the command that resolves it.
func HaltVerdict(alerts []Alert) verdict.Verdict {
	var halts []Alert
	for _, a := range alerts {
		if a.Level == Halt && !a.Resolved {
			halts = append(halts, a)
		}
	}
	if len(halts) == 0 {
		return verdict.New(CheckHalt, verdict.Pass, verdict.Low, "no observer HALT alert is open", nil)
	}
	Sort(halts)
	in := make([]haltInput, len(halts))
	var b strings.Builder
	if len(halts) == 1 {
		b.WriteString("Writes are denied while an observer HALT alert is open: ")
	} else {
		fmt.Fprintf(&b, "Writes are denied while %d observer HALT alerts are open: ", len(halts))
	}
	notes := make([]string, len(halts))
	for i, a := range halts {
		in[i] = haltInput{ID: a.ID, Check: a.Check, Fingerprint: a.Fingerprint}
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "[#%d %s] %s Once fixed: `vibe alerts resolve %d`.", a.ID, a.Check, a.Message, a.ID)
		notes[i] = fmt.Sprintf("#%d %s: %s", a.ID, a.Check, a.Message)
	}
	v := verdict.New(CheckHalt, verdict.HardBlock, verdict.High, b.String(), in)
	v.Evidence.Notes = notes
	v.Recommendation = "Fix the cause each HALT names, then run `vibe alerts resolve ID` (`vibe alerts list` shows them)."
	return v
}

// Verdicts turns the alerts a Run raised into PostToolUse verdicts: a HALT
// is a BLOCK (the next writes will be denied until it is resolved), a WARN a
// WARN, an INFO a low-severity WARN, so each reaches Claude as context.
func Verdicts(raised []Alert) []verdict.Verdict {
	out := make([]verdict.Verdict, 0, len(raised))
	for _, a := range raised {
		in := haltInput{ID: a.ID, Check: a.Check, Fingerprint: a.Fingerprint}
		var v verdict.Verdict
		switch a.Level {
		case Halt:
			v = verdict.New("observer-"+a.Check, verdict.Block, verdict.High,
				fmt.Sprintf("Observer HALT #%d: %s", a.ID, a.Message), in)
			v.Recommendation = fmt.Sprintf("Fix it, then `vibe alerts resolve %d`.", a.ID)
		case Warn:
			v = verdict.New("observer-"+a.Check, verdict.Warn, verdict.Med, fmt.Sprintf("Observer WARN #%d: %s", a.ID, a.Message), in)
		default:
			v = verdict.New("observer-"+a.Check, verdict.Warn, verdict.Low, fmt.Sprintf("Observer INFO #%d: %s", a.ID, a.Message), in)
		}
		out = append(out, v)
	}
	return out
}

// Lines renders alerts for a context block, most severe first, at most max
// of them (<= 0: all), with a last line counting the rest.
func Lines(alerts []Alert, max int) []string {
	as := append([]Alert(nil), alerts...)
	Sort(as)
	n := len(as)
	if max > 0 && n > max {
		n = max
	}
	out := make([]string, 0, n+1)
	for _, a := range as[:n] {
		line := fmt.Sprintf("%s #%d %s: %s", a.Level, a.ID, a.Check, a.Message)
		if a.Level == Halt {
			line += fmt.Sprintf(" (once fixed: `vibe alerts resolve %d`)", a.ID)
		}
		out = append(out, line)
	}
	if n < len(as) {
		out = append(out, fmt.Sprintf("… %d more: `vibe alerts list`", len(as)-n))
	}
	return out
}
