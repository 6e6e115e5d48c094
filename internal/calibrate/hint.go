package calibrate

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/store/record"
)

// HintReviews is how many of the project's latest reviews the hint reads
// (the blueprint's "last 20").
const HintReviews = 20

// minRepeats is how often a weakness, a bug fix or a gate failure must
// recur to be called a pattern: once is an event, twice is a habit.
const minRepeats = 2

// Hint is the R2 calibration line for SessionStart, from the project's last
// HintReviews reviews: the rubric dimensions R2 scored 0–1 at least twice,
// the planted-fault categories it missed most (which the orchestrator should
// plant first at the next FORCED review), and the J0 trend (newest 3 scores
// against oldest 3 once 6 exist; "early data" with 3–5). It is "" when
// there is nothing to say.
func Hint(ctx context.Context, st Reviews, project string) (string, error) {
	rs, err := st.RecentReviews(ctx, project, HintReviews)
	if err != nil {
		return "", fmt.Errorf("r2 calibration hint: %w", err)
	}
	return hintFrom(rs), nil
}

// dimensionLabels name the rubric dimensions for people.
var dimensionLabels = map[string]string{
	"specificity": "specificity", "counter_evidence_search": "counter-evidence search",
	"confounder_analysis": "confounder analysis", "falsification_demand": "falsification demands",
	"independence": "independence", "escalation": "escalation",
}

type tally struct {
	key string
	n   int
	pos int // first-seen order, for stable ties
}

func sortTallies(ts []tally) {
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].n != ts[j].n {
			return ts[i].n > ts[j].n
		}
		return ts[i].pos < ts[j].pos
	})
}

func count(ts []tally, key string, pos int) []tally {
	for i := range ts {
		if ts[i].key == key {
			ts[i].n++
			return ts
		}
	}
	return append(ts, tally{key: key, n: 1, pos: pos})
}

// MaxHintRunes bounds the R2 hint (about 60 tokens): past it the second
// missed category, then the second weakness, are left out.
const MaxHintRunes = 240

// hintFrom builds the hint from reviews, newest first.
func hintFrom(rs []record.R2Review) string {
	var weak []tally
	judged := 0
	for _, r := range rs {
		if r.J0Score == nil && r.Weaknesses == nil {
			continue
		}
		judged++
		for _, w := range r.Weaknesses {
			weak = count(weak, w, dimensionPos(w))
		}
	}
	sortTallies(weak)
	var ws []string
	for _, w := range weak {
		if w.n < minRepeats || len(ws) == 2 {
			break
		}
		label := dimensionLabels[w.key]
		if label == "" {
			label = w.key
		}
		if len(ws) == 0 {
			ws = append(ws, fmt.Sprintf("%s (%d/%d judged)", label, w.n, judged))
		} else {
			ws = append(ws, fmt.Sprintf("%s (%d)", label, w.n))
		}
	}

	var missed []tally
	injected, caught := 0, 0
	for _, r := range rs {
		if !r.SFIKnown {
			continue
		}
		injected += r.SFIInjected
		caught += r.SFICaught
		for _, id := range r.SFIMissed {
			missed = count(missed, FaultFamily(id), len(missed))
		}
	}
	sortTallies(missed)
	var ms []string
	for _, m := range missed {
		if len(ms) == 2 {
			break
		}
		ms = append(ms, fmt.Sprintf("%s %s (%d×)", FaultCategory(m.key), m.key, m.n))
	}

	var trend string
	var scores []int
	for _, r := range rs {
		if r.J0Score != nil {
			scores = append(scores, *r.J0Score)
		}
	}
	switch n := len(scores); {
	case n >= 6:
		newest, oldest := mean(scores[:3]), mean(scores[n-3:])
		word, advice := "stable", ""
		if newest > oldest {
			word = "improving"
		} else if newest < oldest {
			word, advice = "declining", ": be stricter"
		}
		trend = fmt.Sprintf("J0 %s %.1f→%.1f (%d scored)%s", word, oldest, newest, n, advice)
	case n >= 3:
		trend = fmt.Sprintf("J0: early data (%d scored)", n)
	}

	render := func(ws, ms []string) string {
		var parts []string
		if len(ws) > 0 {
			parts = append(parts, "R2 weakest on "+strings.Join(ws, ", "))
		}
		if len(ms) > 0 {
			parts = append(parts, fmt.Sprintf("Missed planted faults: %s; caught %d/%d; plant these first at FORCED reviews",
				strings.Join(ms, ", "), caught, injected))
		}
		if trend != "" {
			parts = append(parts, trend)
		}
		if len(parts) == 0 {
			return ""
		}
		return "[R2 CALIBRATION] " + strings.Join(parts, ". ") + "."
	}
	h := render(ws, ms)
	if utf8.RuneCountInString(h) > MaxHintRunes && len(ms) > 1 {
		ms = ms[:1]
		h = render(ws, ms)
	}
	if utf8.RuneCountInString(h) > MaxHintRunes && len(ws) > 1 {
		h = render(ws[:1], ms)
	}
	return h
}

func dimensionPos(d string) int {
	for i, x := range Dimensions {
		if x == d {
			return i
		}
	}
	return len(Dimensions)
}

func mean(xs []int) float64 {
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

// maxFixRunes caps a quoted bug-fix summary in the patterns line.
const maxFixRunes = 60

// Patterns is the researcher-pattern line for SessionStart (blueprint
// 6.4): the bug fixes recorded at least twice with the same summary (a
// cause not found) and the gates that failed at least twice (a step
// upstream to change). It is "" when there is no pattern.
func Patterns(ctx context.Context, st PatternCounts, project string) (string, error) {
	fixes, err := st.RepeatedFixes(ctx, project, minRepeats, 2)
	if err != nil {
		return "", fmt.Errorf("researcher patterns: %w", err)
	}
	gates, err := st.GateFailureCounts(ctx, project, minRepeats, 3)
	if err != nil {
		return "", fmt.Errorf("researcher patterns: %w", err)
	}
	return patternsFrom(fixes, gates), nil
}

func patternsFrom(fixes, gates []record.PatternCount) string {
	var parts []string
	if len(fixes) > 0 {
		var fs []string
		for _, f := range fixes {
			fs = append(fs, fmt.Sprintf("%q (%d×)", shorten(f.Key, maxFixRunes), f.Count))
		}
		parts = append(parts, "Same fix made repeatedly: "+strings.Join(fs, ", ")+"; its cause may still be there")
	}
	if len(gates) > 0 {
		var gs []string
		for _, g := range gates {
			gs = append(gs, fmt.Sprintf("%s (%d×)", g.Key, g.Count))
		}
		parts = append(parts, "Gates failing most: "+strings.Join(gs, ", ")+"; change the step upstream, not the threshold")
	}
	if len(parts) == 0 {
		return ""
	}
	return "[RESEARCHER] " + strings.Join(parts, ". ") + "."
}

// shorten cuts s to n runes, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
