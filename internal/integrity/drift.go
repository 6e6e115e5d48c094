package integrity

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/verdict"
)

// CheckDrift is the check name of threshold-drift verdicts.
const CheckDrift = "D3-threshold-drift"

// The drift limits, in basis points summed over the window.
const (
	DriftWarnBps  = 800
	DriftBlockBps = 1000
)

// DefaultDriftWindow is the window Drift uses when given none: 180 days.
const DefaultDriftWindow = 180 * 24 * time.Hour

// DriftReport is one domain's threshold changes inside a window ending now,
// oldest first, with their summed basis points.
type DriftReport struct {
	Domain               string            `json:"domain"`
	WindowDays           int               `json:"window_days"`
	TotalBps             int               `json:"total_bps"`
	Changes              []ThresholdChange `json:"changes"`
	LoosenedAfterFailure []ThresholdChange `json:"loosened_after_failure"`
}

// Drift collects domain's changes from history that fall inside
// (now-window, now] and sums their basis points. window <= 0 means
// DefaultDriftWindow. Each change's Bps is recomputed, so a stored history
// cannot carry a stale size.
func Drift(domain string, history []ThresholdChange, now time.Time, window time.Duration) DriftReport {
	if window <= 0 {
		window = DefaultDriftWindow
	}
	start := now.Add(-window)
	r := DriftReport{
		Domain:               domain,
		WindowDays:           int(window / (24 * time.Hour)),
		Changes:              []ThresholdChange{},
		LoosenedAfterFailure: []ThresholdChange{},
	}
	for _, c := range history {
		if c.Domain != domain || !c.At.After(start) || c.At.After(now) {
			continue
		}
		c.Bps = BasisPoints(c)
		r.Changes = append(r.Changes, c)
	}
	sortChanges(r.Changes)
	for _, c := range r.Changes {
		r.TotalBps = addBps(r.TotalBps, c.Bps)
		if c.AfterFailure && c.MayLoosen() {
			r.LoosenedAfterFailure = append(r.LoosenedAfterFailure, c)
		}
	}
	return r
}

func sortChanges(cs []ThresholdChange) {
	sort.SliceStable(cs, func(i, j int) bool {
		if !cs[i].At.Equal(cs[j].At) {
			return cs[i].At.Before(cs[j].At)
		}
		return cs[i].Key < cs[j].Key
	})
}

// addBps adds without overflowing, saturating at MaxBps so a sum of capped
// changes stays comparable with the limits.
func addBps(a, b int) int {
	if a > MaxBps-b {
		return MaxBps
	}
	return a + b
}

// driftInput is what a drift decision depends on; it feeds the decision hash.
type driftInput struct {
	Domain     string          `json:"domain"`
	WindowDays int             `json:"window_days"`
	HistoryBps int             `json:"history_bps"`
	Proposed   []proposedInput `json:"proposed"`
	// LoosenedAfterFailure names the window's keys loosened right after a
	// gate failed on them, which the state check reports.
	LoosenedAfterFailure []string `json:"loosened_after_failure"`
}

type proposedInput struct {
	Key          string    `json:"key"`
	Old          string    `json:"old"`
	New          string    `json:"new"`
	At           time.Time `json:"at"`
	Direction    Direction `json:"direction"`
	AfterFailure bool      `json:"after_failure"`
}

// DriftVerdictFor judges the changes of one config write together, so a
// write that moves several thresholds is measured by all of them. The total
// is the window's sum plus every proposed change of r's domain not already in
// r (changes of other domains never add up; a proposal already in r is
// judged but not counted twice). Below 800 bps PASS, 800 to 999
// WARN, 1000 or more BLOCK, when a proposed change may loosen; a write that
// only tightens passes; loosening right after a gate failed on the key is at
// least a WARN. With no proposed change of r's domain the window's own total
// is judged.
func DriftVerdictFor(r DriftReport, proposed []ThresholdChange) verdict.Verdict {
	in := driftInput{Domain: r.Domain, WindowDays: r.WindowDays, HistoryBps: r.TotalBps, Proposed: []proposedInput{}, LoosenedAfterFailure: []string{}}
	for _, c := range r.LoosenedAfterFailure {
		in.LoosenedAfterFailure = append(in.LoosenedAfterFailure, c.Key)
	}
	var props []ThresholdChange
	for _, p := range proposed {
		if p.Domain != r.Domain || p.Old == p.New {
			continue
		}
		p.Bps = BasisPoints(p)
		props = append(props, p)
	}
	sortChanges(props)
	total := r.TotalBps
	var loosening, afterFailure, unknown []ThresholdChange
	for _, p := range props {
		// A proposal the caller already put in the history is judged but not
		// counted twice.
		if !containsChange(r.Changes, p) {
			total = addBps(total, p.Bps)
		}
		in.Proposed = append(in.Proposed, proposedInput{
			Key: p.Key, Old: formatNumber(p.Old), New: formatNumber(p.New), At: p.At.UTC(),
			Direction: directionOrUnknown(p.Direction), AfterFailure: p.AfterFailure,
		})
		if !p.MayLoosen() {
			continue
		}
		loosening = append(loosening, p)
		if p.AfterFailure {
			afterFailure = append(afterFailure, p)
		}
		if !p.Loosens {
			unknown = append(unknown, p)
		}
	}

	window := strconv.Itoa(r.WindowDays) + " days"
	result, sev := verdict.Pass, verdict.Low
	var reason, rec string
	switch {
	case len(props) == 0:
		result, sev = bucket(total)
		if len(r.LoosenedAfterFailure) > 0 && result == verdict.Pass {
			result, sev = verdict.Warn, verdict.Med
		}
		reason, rec = stateMessage(r.Domain, total, window, result, r.LoosenedAfterFailure)
	case len(loosening) == 0:
		reason = fmt.Sprintf("Threshold drift in domain %s would be %d bps over %s; the proposed change only tightens (%s), which %s never blocks.",
			r.Domain, total, window, describeChanges(props), CheckDrift)
	default:
		result, sev = bucket(total)
		if len(afterFailure) > 0 && result == verdict.Pass {
			result = verdict.Warn
		}
		if len(afterFailure) > 0 && sev != verdict.High {
			sev = verdict.High
		}
		reason, rec = loosenMessage(r.Domain, total, window, result, loosening, afterFailure, unknown)
	}

	v := verdict.New(CheckDrift, result, sev, reason, in)
	v.Recommendation = rec
	v.Evidence.Numbers = []string{
		"total_bps=" + strconv.Itoa(total),
		"history_bps=" + strconv.Itoa(r.TotalBps),
		"warn_at_bps=" + strconv.Itoa(DriftWarnBps),
		"block_at_bps=" + strconv.Itoa(DriftBlockBps),
		"window_days=" + strconv.Itoa(r.WindowDays),
	}
	for _, c := range r.Changes {
		v.Evidence.Notes = append(v.Evidence.Notes, "history: "+describeChange(c))
	}
	for _, c := range r.LoosenedAfterFailure {
		v.Evidence.Notes = append(v.Evidence.Notes, "loosened after gate failure: "+describeChange(c))
	}
	for _, p := range props {
		v.Evidence.Notes = append(v.Evidence.Notes, "proposed: "+describeChange(p))
	}
	return v
}

func directionOrUnknown(d Direction) Direction {
	if d == LowerLooser || d == HigherLooser {
		return d
	}
	return Unknown
}

func containsChange(cs []ThresholdChange, p ThresholdChange) bool {
	for _, c := range cs {
		if c.Key == p.Key && c.At.Equal(p.At) && c.Old == p.Old && c.New == p.New {
			return true
		}
	}
	return false
}

func bucket(total int) (verdict.Result, verdict.Severity) {
	switch {
	case total >= DriftBlockBps:
		return verdict.Block, verdict.High
	case total >= DriftWarnBps:
		return verdict.Warn, verdict.Med
	}
	return verdict.Pass, verdict.Low
}

func stateMessage(domain string, total int, window string, result verdict.Result, afterFailure []ThresholdChange) (string, string) {
	if len(afterFailure) > 0 && total < DriftWarnBps {
		return fmt.Sprintf("Within the last %s, %s of domain %s was loosened right after a gate failed on it, which moves the goalposts (%s, drift %d bps); restore the threshold, or record in the decision log why it was wrong.",
				window, keys(afterFailure), domain, CheckDrift, total),
			"Record why the threshold changed in the decision log, or restore the previous value."
	}
	reason, rec := stateBucketMessage(domain, total, window, result)
	if len(afterFailure) > 0 {
		reason += fmt.Sprintf(" %s was loosened right after a gate failed on it.", keys(afterFailure))
	}
	return reason, rec
}

func stateBucketMessage(domain string, total int, window string, result verdict.Result) (string, string) {
	switch result {
	case verdict.Block:
		return fmt.Sprintf("Thresholds of domain %s drifted %d bps over %s, at or above the %d bps cap of %s; further loosening will be denied until older changes leave the window.",
				domain, total, window, DriftBlockBps, CheckDrift),
			"Keep the current thresholds and justify the recent changes in the decision log."
	case verdict.Warn:
		return fmt.Sprintf("Thresholds of domain %s drifted %d bps over %s, past the %d bps warning of %s; loosening that reaches %d bps will be denied.",
				domain, total, window, DriftWarnBps, CheckDrift, DriftBlockBps),
			"Justify the recent threshold changes in the decision log before changing more."
	}
	return fmt.Sprintf("Thresholds of domain %s drifted %d bps over %s, under the %d bps warning of %s.",
		domain, total, window, DriftWarnBps, CheckDrift), ""
}

func loosenMessage(domain string, total int, window string, result verdict.Result, loosening, afterFailure, unknown []ThresholdChange) (string, string) {
	var b strings.Builder
	what := describeChanges(loosening)
	var rec string
	switch result {
	case verdict.Block:
		fmt.Fprintf(&b, "Loosening %s would bring threshold drift in domain %s to %d bps over %s, at or above the %d bps cap of %s; keep the current value (the budget frees as changes older than %s leave the window).",
			what, domain, total, window, DriftBlockBps, CheckDrift, window)
		rec = "Keep the current threshold value; report the result against it instead."
	case verdict.Warn:
		if total >= DriftWarnBps {
			fmt.Fprintf(&b, "Loosening %s brings threshold drift in domain %s to %d bps over %s, past the %d bps warning of %s; justify it in the decision log, because loosening that reaches %d bps will be denied.",
				what, domain, total, window, DriftWarnBps, CheckDrift, DriftBlockBps)
		} else {
			fmt.Fprintf(&b, "Loosening %s right after a gate failed on it moves the goalposts (%s, drift %d bps over %s); keep the threshold and report the failure, or record in the decision log why the threshold was wrong.",
				what, CheckDrift, total, window)
		}
		rec = "Record why the threshold changed in the decision log, or restore the previous value."
	default:
		fmt.Fprintf(&b, "Loosening %s leaves threshold drift in domain %s at %d bps over %s, under the %d bps warning of %s.",
			what, domain, total, window, DriftWarnBps, CheckDrift)
	}
	if len(afterFailure) > 0 && (result == verdict.Block || total >= DriftWarnBps) {
		fmt.Fprintf(&b, " It loosens %s right after a gate failed on it.", keys(afterFailure))
	}
	if len(unknown) > 0 {
		fmt.Fprintf(&b, " The direction of %s is unknown, so it was judged as a loosening; declare it in the direction table.", keys(unknown))
	}
	return b.String(), rec
}

func keys(cs []ThresholdChange) string {
	ks := make([]string, len(cs))
	for i, c := range cs {
		ks[i] = c.Key
	}
	return strings.Join(ks, ", ")
}

func describeChanges(cs []ThresholdChange) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%s -> %s)", c.Key, formatNumber(c.Old), formatNumber(c.New))
	}
	return strings.Join(parts, ", ")
}

func describeChange(c ThresholdChange) string {
	way := "tightens"
	switch {
	case c.Loosens:
		way = "loosens"
	case c.MayLoosen():
		way = "direction unknown"
	}
	s := fmt.Sprintf("%s %s -> %s at %s: %d bps, %s", c.Key, formatNumber(c.Old), formatNumber(c.New),
		c.At.UTC().Format(time.RFC3339), BasisPoints(c), way)
	if c.AfterFailure {
		s += ", after gate failure"
	}
	return s
}
