package brief

import (
	"fmt"
	"path"
	"strings"

	"github.com/vibe-science/vibe/internal/verdict"
)

// CheckConstraint is the check name of brief-constraint verdicts.
const CheckConstraint = "brief-constraint"

// AskNote marks, in Evidence.Notes, a WARN that must ask the person before
// the write goes ahead (PreToolUse permissionDecision "ask").
const AskNote = "permission: ask"

// Match is one constraint that applies to a write: Path is the written file,
// Target the applies-to entry that matched it.
type Match struct {
	Constraint Constraint `json:"constraint"`
	Path       string     `json:"path"`
	Target     string     `json:"target"`
}

// Applicable returns the constraints that apply to a write of relPath, in
// brief order, each with the first applies-to entry that matched. An anchor
// entry matches its file; when symbolsTouched is non-empty it must also name
// the anchor's symbol ("T.M" and "(*T).M" are the same method here). Globs
// and plain paths match as the package documentation describes.
func (b Brief) Applicable(relPath string, symbolsTouched []string) []Match {
	p := cleanRel(relPath)
	var out []Match
	for _, c := range b.Constraints {
		for _, t := range c.AppliesTo {
			if targetMatches(t, p, symbolsTouched) {
				out = append(out, Match{Constraint: c, Path: p, Target: t})
				break
			}
		}
	}
	return out
}

func targetMatches(target, p string, touched []string) bool {
	if strings.Contains(target, "#") {
		a, err := ParseAnchor(target)
		if err != nil || a.Path != p {
			return false
		}
		if len(touched) == 0 {
			return true
		}
		want := symbolKey(a.Symbol)
		for _, s := range touched {
			if symbolKey(s) == want {
				return true
			}
		}
		return false
	}
	t := cleanRel(target)
	if !hasMeta(t) {
		return p == t || strings.HasPrefix(p, t+"/")
	}
	return matchGlob(strings.Split(t, "/"), strings.Split(p, "/"))
}

// symbolKey drops a Go receiver's brackets and star, so a method is named
// the same way however its receiver was written.
func symbolKey(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") {
		if i := strings.Index(s, ")."); i > 0 {
			return strings.TrimPrefix(s[1:i], "*") + "." + s[i+2:]
		}
	}
	return s
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[\\") }

// matchGlob matches path segments, "**" standing for any number of them.
// It is a dynamic programme over (pattern, name) positions, so patterns with
// many "**" cannot make it backtrack exponentially on the hook path.
func matchGlob(pat, name []string) bool {
	// ok[j] reports whether pat[i:] matches name[j:], for the current i.
	ok := make([]bool, len(name)+1)
	ok[len(name)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		if pat[i] == "**" {
			// ** matches name[j:k] for any k >= j: ok[j] = any ok[k], k >= j.
			for j := len(name) - 1; j >= 0; j-- {
				ok[j] = ok[j] || ok[j+1]
			}
			continue
		}
		for j := 0; j < len(name); j++ {
			m, err := path.Match(pat[i], name[j])
			ok[j] = err == nil && m && ok[j+1]
		}
		ok[len(name)] = false
	}
	return ok[0]
}

// matchInput is what a constraint decision depends on: the same write of the
// same file against the same constraint is the same decision.
type matchInput struct {
	Constraint string   `json:"constraint"`
	Severity   Severity `json:"severity"`
	Action     Action   `json:"action"`
	Path       string   `json:"path"`
	Target     string   `json:"target"`
}

// Verdicts turns matches into verdicts: Critical with Block is a HARD_BLOCK
// naming the constraint's id and title; Block below Critical and
// WarnAndConfirm are a WARN carrying AskNote; WarnOnly a WARN; LogOnly, or an
// action vibe does not know, a PASS that is only recorded.
func Verdicts(matches []Match) []verdict.Verdict {
	out := make([]verdict.Verdict, 0, len(matches))
	for _, m := range matches {
		c := m.Constraint
		in := matchInput{Constraint: c.ID, Severity: c.Severity, Action: c.Action, Path: m.Path, Target: m.Target}
		named := fmt.Sprintf("%s %q (%s, %s)", c.ID, c.Title, c.Severity, c.Action)
		var v verdict.Verdict
		switch {
		case c.Action == Block && c.Severity == Critical:
			v = verdict.New(CheckConstraint, verdict.HardBlock, verdict.High,
				fmt.Sprintf("Writing %s breaks research-brief constraint %s, which applies to %s; leave this file alone, or change the brief first (`vibe brief ingest FILE`) if the research has changed.", m.Path, named, m.Target), in)
			v.Recommendation = "Do not write " + m.Path + "; find a way that respects " + c.ID + ", or ask the user to revise the brief."
		case c.Action == Block || c.Action == WarnAndConfirm:
			v = verdict.New(CheckConstraint, verdict.Warn, verdict.Med,
				fmt.Sprintf("Writing %s touches research-brief constraint %s, which applies to %s; the user must confirm this write.", m.Path, named, m.Target), in)
			v.Evidence.Notes = []string{AskNote}
			v.Recommendation = "Explain to the user how this write respects " + c.ID + " before they confirm it."
		case c.Action == WarnOnly:
			v = verdict.New(CheckConstraint, verdict.Warn, verdict.Low,
				fmt.Sprintf("Writing %s touches research-brief constraint %s, which applies to %s; make sure the change respects it.", m.Path, named, m.Target), in)
			v.Recommendation = "Check the change against " + c.ID + " and say how it complies."
		default:
			v = verdict.New(CheckConstraint, verdict.Pass, verdict.Low,
				fmt.Sprintf("Writing %s touches research-brief constraint %s, which applies to %s; recorded only.", m.Path, named, m.Target), in)
		}
		v.Evidence.Paths = []string{m.Path}
		if c.Rationale != "" {
			v.Evidence.Notes = append(v.Evidence.Notes, "rationale: "+c.Rationale)
		}
		out = append(out, v)
	}
	return out
}

// NeedsConfirm reports whether v asks the person before the write goes ahead
// (a brief constraint with WarnAndConfirm, or Block below Critical).
func NeedsConfirm(v verdict.Verdict) bool {
	if v.Result != verdict.Warn {
		return false
	}
	for _, n := range v.Evidence.Notes {
		if n == AskNote {
			return true
		}
	}
	return false
}

// Binding reports the first constraint that forbids every write of
// relPath whatever it touches: Critical with Block (a "path#Symbol" entry
// binds its whole file, since a change anywhere in the file may move the
// symbol). The safety net (internal/tamper) keeps such files in its
// snapshot and restores a change made by any means.
func (b Brief) Binding(relPath string) (Constraint, bool) {
	for _, m := range b.Applicable(relPath, nil) {
		if c := m.Constraint; c.Severity == Critical && c.Action == Block {
			return c, true
		}
	}
	return Constraint{}, false
}

// BindingRoots are the project-relative files and folders under which the
// Critical Block constraints name files: an anchor's file, a plain path,
// a glob's literal folder ("." when it starts with a pattern).
func (b Brief) BindingRoots() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range b.Constraints {
		if c.Severity != Critical || c.Action != Block {
			continue
		}
		for _, t := range c.AppliesTo {
			root := t
			if i := strings.IndexByte(t, '#'); i >= 0 {
				root = t[:i]
			}
			root = cleanRel(root)
			if hasMeta(root) {
				parts := strings.Split(root, "/")
				k := 0
				for k < len(parts) && !hasMeta(parts[k]) {
					k++
				}
				root = strings.Join(parts[:k], "/")
				if root == "" {
					root = "."
				}
			}
			if !seen[root] {
				seen[root] = true
				out = append(out, root)
			}
		}
	}
	return out
}
