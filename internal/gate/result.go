package gate

import (
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// Status is a gate's outcome as recorded in gate_checks.
type Status string

// The statuses, from harmless to failing.
const (
	StatusPass Status = "PASS"
	StatusWarn Status = "WARN"
	StatusFail Status = "FAIL"
)

func (s Status) rank() int {
	switch s {
	case StatusWarn:
		return 1
	case StatusFail:
		return 2
	}
	return 0
}

// Check is one test inside a gate. Detail states the fact ("column `x` has
// zero variance (all 0.41)"); Fix, for a check that did not pass, says in one
// clause what to do about it.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Result is a gate's computed outcome: the worst of its checks, the files it
// read and, for DQ4, the reported numbers that matched nothing.
type Result struct {
	Gate    string   `json:"gate"`
	Status  Status   `json:"status"`
	Checks  []Check  `json:"checks"`
	Inputs  []string `json:"inputs,omitempty"`
	Numbers []string `json:"numbers,omitempty"`
	// Profile is DQ1's profile of the table it read, for the caller to
	// keep and pass back to DQ1Compare with the next version. The
	// verdict's input and hash leave it out: the checks already say what
	// it showed, and a profile of 50 columns would triple every recorded
	// DQ1 verdict.
	Profile *TableProfile `json:"-"`
	// Groups is the grouping column DQ1 found in the whole table and its
	// values, for GroupsKept (nil when there is none, or when only a
	// sample of the table was read). Like Profile, it stays out of the
	// verdict.
	Groups *TableGroups `json:"-"`
}

// TableGroups is a table's grouping column and the values it holds.
type TableGroups struct {
	Column string
	Values map[string]bool
}

// maxReasonItems caps how many failed checks a verdict reason spells out, so
// a findings file with hundreds of wrong numbers still gives a readable reply.
const maxReasonItems = 12

func (r *Result) add(name string, st Status, detail, fix string) {
	r.Checks = append(r.Checks, Check{Name: name, Status: st, Detail: detail, Fix: fix})
	if st.rank() > r.Status.rank() {
		r.Status = st
	}
}

func (r *Result) pass(name, detail string) { r.add(name, StatusPass, detail, "") }

func (r *Result) warn(name, detail, fix string) { r.add(name, StatusWarn, detail, fix) }

func (r *Result) fail(name, detail, fix string) { r.add(name, StatusFail, detail, fix) }

func newResult(gate string, inputs ...string) Result {
	r := Result{Gate: gate, Status: StatusPass}
	for _, in := range inputs {
		if in != "" {
			r.Inputs = append(r.Inputs, in)
		}
	}
	return r
}

// Verdict turns the result into the decision envelope: FAIL is a BLOCK of
// HIGH severity, WARN a WARN of MEDIUM severity, PASS a PASS. The reason
// names the gate and lists each failing (or, for WARN, warning) check with
// its fix; the evidence carries the input files and the offending numbers.
func (r Result) Verdict() verdict.Verdict {
	res, sev := verdict.Pass, verdict.Low
	switch r.status() {
	case StatusFail:
		res, sev = verdict.Block, verdict.High
	case StatusWarn:
		res, sev = verdict.Warn, verdict.Med
	}
	v := verdict.New(r.Gate, res, sev, r.Reason(), r)
	v.Evidence.Paths = append([]string(nil), r.Inputs...)
	v.Evidence.Numbers = append([]string(nil), r.Numbers...)
	v.Recommendation = r.recommendation()
	return v
}

// Reason is the sentence a person or Claude reads, for example
// "DQ1 FAIL: column `gc_content` has zero variance (all 0.41) — drop it or
// explain it in the data dictionary." It lists the checks of the result's
// status (the failures of a FAIL, the warnings of a WARN, what passed for
// a PASS), each with its fix.
func (r Result) Reason() string {
	st := r.status()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: ", r.Gate, st)
	var listed []Check
	n := 0
	for _, c := range r.Checks {
		if c.Status != st {
			continue
		}
		n++
		if n <= maxReasonItems {
			listed = append(listed, c)
		}
	}
	for i, c := range listed {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Detail)
		// A fix several findings share is said once, after the last of them.
		if c.Fix != "" && !fixFollows(listed[i+1:], c.Fix) {
			b.WriteString(" — ")
			b.WriteString(c.Fix)
		}
	}
	if n > maxReasonItems {
		fmt.Fprintf(&b, "; and %d more (run `vibe gate run %s` to see all)", n-maxReasonItems, r.Gate)
	}
	b.WriteString(".")
	return b.String()
}

func fixFollows(rest []Check, fix string) bool {
	for _, c := range rest {
		if c.Fix == fix {
			return true
		}
	}
	return false
}

// status is the worst check status, so a Result built by hand with a stale
// Status field still reports truthfully.
func (r Result) status() Status {
	st := r.Status
	for _, c := range r.Checks {
		if c.Status.rank() > st.rank() {
			st = c.Status
		}
	}
	return st
}

// recommendation is the step after the fixes. The fixes themselves are in
// the reason, each beside its finding; the reply Claude reads is the
// reason, then "Fix:" and this, so repeating a fix here made the message
// say it twice.
func (r Result) recommendation() string {
	st := r.status()
	if st == StatusPass {
		return ""
	}
	count := 0
	for _, c := range r.Checks {
		if c.Status == st && c.Fix != "" {
			count++
		}
	}
	rerun := "re-run the gate"
	if cmd := r.Rerun(); cmd != "" {
		rerun = "re-run `" + cmd + "`"
	}
	switch count {
	case 0:
		return "Fix what the reason lists, then " + rerun + "."
	case 1:
		return "Make that change, then " + rerun + "."
	}
	return fmt.Sprintf("Fix the %d issues listed, then %s.", count, rerun)
}

// rerunFlags are the flags of each file-reading gate's command, in the
// order of its Result.Inputs (DD0 reads the dictionary, then the table; DC0
// the design, then its deviations file).
var rerunFlags = map[string][]string{
	"DQ1": {"--features"}, "DQ2": {"--metrics"}, "DQ3": {"--calibration"}, "DQ4": {"--findings"},
	"DD0": {"--dictionary", "--features"}, "DC0": {"--design", "--deviations"},
}

// Rerun is the command that runs the gate again on the files it read, for
// example "vibe gate run DQ4 --findings 04-results/FINDINGS.md" (the inputs
// as the result holds them); the registry's command when it names no file
// to fill in; "" when the files are unknown, so that no message carries a
// FILE placeholder.
func (r Result) Rerun() string {
	if flags, ok := rerunFlags[r.Gate]; ok && len(r.Inputs) > 0 {
		cmd := "vibe gate run " + r.Gate
		for i, in := range r.Inputs {
			if i < len(flags) {
				cmd += " " + flags[i] + " " + shellWord(in)
			}
		}
		return cmd
	}
	g, ok := Lookup(r.Gate)
	if !ok {
		return ""
	}
	if g.Kind == KindSchema && len(r.Inputs) > 0 {
		return "vibe gate run " + r.Gate + " --artifact " + shellWord(r.Inputs[0])
	}
	if g.Command != "" && !strings.Contains(g.Command, "FILE") && !strings.Contains(g.Command, " ID") {
		return g.Command
	}
	return ""
}

// shellWord quotes s for a shell when it holds anything but plain path
// characters.
func shellWord(s string) string {
	for _, c := range s {
		if !(c == '/' || c == '.' || c == '-' || c == '_' || c == '+' || c == ':' || c == '@' || c == ',' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// Record is the result as the store records it: the gate, its status, its
// checks and its unmatched numbers (the inputs are recorded with their
// hashes by the caller, the profile is not recorded).
func (r Result) Record() record.GateResult {
	out := record.GateResult{Gate: r.Gate, Status: record.GateStatus(r.Status), Numbers: r.Numbers}
	if r.Checks != nil {
		out.Checks = make([]record.GateItem, len(r.Checks))
		for i, c := range r.Checks {
			out.Checks[i] = record.GateItem{Name: c.Name, Status: record.GateStatus(c.Status), Detail: c.Detail, Fix: c.Fix}
		}
	}
	return out
}
