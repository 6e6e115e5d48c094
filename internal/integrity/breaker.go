package integrity

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/verdict"
)

// Mode is what a hook does when a dependency fails.
type Mode string

// The modes.
const (
	// ModeSkip carries on without the dependency and only records it.
	ModeSkip Mode = "skip"
	// ModeWarn carries on and tells Claude and the user what is missing.
	ModeWarn Mode = "warn"
	// ModeFail stops: the verdict is a BLOCK (a denial at PreToolUse).
	ModeFail Mode = "fail"
)

// The dependencies a hook uses.
const (
	DepDatabase = "database"
	DepWorker   = "worker"
	DepVec      = "vec"
	DepBrief    = "brief"
)

// CheckBreaker is the check name of circuit-breaker verdicts.
const CheckBreaker = "circuit-breaker"

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool { return m == ModeSkip || m == ModeWarn || m == ModeFail }

// UnmarshalJSON accepts a mode in any letter case and rejects other strings.
func (m *Mode) UnmarshalJSON(raw []byte) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("circuit-breaker mode: want a string: %w", err)
	}
	got := Mode(strings.ToLower(strings.TrimSpace(s)))
	if !got.Valid() {
		return fmt.Errorf("circuit-breaker mode %q is not one of skip, warn, fail", s)
	}
	*m = got
	return nil
}

// Breakers maps each dependency to its mode.
type Breakers map[string]Mode

// DefaultBreakers returns the modes that keep the agent's session working:
// without the database vibe warns (nothing is recorded), without the worker
// or the vec extension recall quietly falls back to full-text search, and
// without a readable brief vibe warns that its constraints went unchecked.
func DefaultBreakers() Breakers {
	return Breakers{DepDatabase: ModeWarn, DepWorker: ModeSkip, DepVec: ModeSkip, DepBrief: ModeWarn}
}

// deps is what each dependency's absence costs and how to fix it, for the
// messages.
var deps = map[string]struct{ name, loss, fix string }{
	DepDatabase: {"vibe database", "this call was not recorded and the gates that need the database did not run", "run `vibe doctor` to find why the database cannot be opened"},
	DepWorker:   {"embed worker", "recall is lexical only and new text waits in the embed queue", "run `vibe doctor` to see why the embed worker is not answering"},
	DepVec:      {"sqlite-vec extension", "recall uses full-text search only", "run `vibe doctor` to see why the sqlite-vec extension did not load"},
	DepBrief:    {"research brief", "the research brief's constraints were not checked", "run `vibe brief validate` to see what is wrong with the brief"},
}

// UnmarshalJSON reads {"database":"warn",...} over the defaults, so a config
// that names one dependency keeps the defaults of the others. An unknown
// dependency is an error, because a misspelt name would silently keep the
// default.
func (b *Breakers) UnmarshalJSON(raw []byte) error {
	var in map[string]Mode
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("circuit breakers: %w", err)
	}
	out := DefaultBreakers()
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if _, ok := deps[k]; !ok {
			return fmt.Errorf("circuit breakers: unknown dependency %q; use database, worker, vec or brief", k)
		}
		out[k] = in[k]
	}
	*b = out
	return nil
}

// Mode returns dep's configured mode, its default when unset or invalid, and
// warn for a dependency vibe does not know.
func (b Breakers) Mode(dep string) Mode {
	if m, ok := b[dep]; ok && m.Valid() {
		return m
	}
	if m, ok := DefaultBreakers()[dep]; ok {
		return m
	}
	return ModeWarn
}

// breakerInput is what a breaker decision depends on. The error text is left
// out of the hash so that one outage, retried on every tool call, stays one
// decision that Dedup shows once.
type breakerInput struct {
	Dependency string `json:"dependency"`
	Mode       Mode   `json:"mode"`
}

// On decides what to do when dep failed with err. It returns the verdict to
// record or show and whether the hook may proceed without dep: skip gives a
// PASS (recorded only) and proceeds, warn a WARN and proceeds, fail a BLOCK
// and stops. A nil err returns the zero Verdict and true: nothing happened.
func (b Breakers) On(dep string, err error) (verdict.Verdict, bool) {
	if err == nil {
		return verdict.Verdict{}, true
	}
	mode := b.Mode(dep)
	d, ok := deps[dep]
	if !ok {
		d.name = dep
		d.loss = "the features that use it did not run"
		d.fix = "run `vibe doctor` to find the cause"
	}
	in := breakerInput{Dependency: dep, Mode: mode}
	var v verdict.Verdict
	switch mode {
	case ModeSkip:
		v = verdict.New(CheckBreaker, verdict.Pass, verdict.Low,
			fmt.Sprintf("The %s is unavailable, so %s (circuit breaker %s: skip).", d.name, d.loss, dep), in)
	case ModeFail:
		v = verdict.New(CheckBreaker, verdict.Block, verdict.High,
			fmt.Sprintf("The %s is unavailable and its circuit breaker %s is set to fail, so vibe stopped this action; %s, or set the %s breaker to warn.", d.name, dep, d.fix, dep), in)
		v.Recommendation = strings.ToUpper(d.fix[:1]) + d.fix[1:] + "."
	default:
		v = verdict.New(CheckBreaker, verdict.Warn, verdict.Med,
			fmt.Sprintf("The %s is unavailable, so %s (circuit breaker %s: warn); %s.", d.name, d.loss, dep, d.fix), in)
		v.Recommendation = strings.ToUpper(d.fix[:1]) + d.fix[1:] + "."
	}
	v.Evidence.Notes = []string{dep + ": " + err.Error()}
	return v, mode != ModeFail
}
