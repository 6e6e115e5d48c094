package literature

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/markdown"
	"github.com/vibe-science/vibe/internal/verdict"
)

// The checks this package's verdicts carry.
const (
	// CheckDirection is gate L-1: no research direction before a literature
	// search in the session.
	CheckDirection = "L-1"
	// CheckDrought is L-1's observer side: no search for several cycles.
	CheckDrought = "L-1-drought"
)

// CycleActions is how many tool actions count as one OTAE cycle for the
// drought warning. The hooks cannot see cycle boundaries (they live in the
// agent's reasoning), so a cycle is measured in recorded actions; 10 is the
// observer's period, so the warning can fire at most once per observer run.
const CycleActions = 10

// DroughtCycles is how many cycles without a literature search give a WARN
// (the blueprint's L-1+ observer rule).
const DroughtCycles = 3

// directionExts are the document types a direction is written in; a code
// file that happens to be called direction.py sets no research direction.
var directionExts = map[string]bool{".md": true, ".markdown": true, ".json": true, ".yaml": true, ".yml": true,
	".txt": true, "": true}

// namedDirection reports whether relPath is a direction document by name.
func namedDirection(relPath string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(relPath, "\\", "/")))
	return strings.Contains(base, "direction") && directionExts[path.Ext(base)]
}

// IsDirectionFile reports whether relPath is a direction document by its
// name alone (direction.md, 00-brainstorm/direction.json): any change to it
// sets a direction, whatever the text.
func IsDirectionFile(relPath string) bool { return namedDirection(relPath) }

// IsDirection reports whether writing content to relPath sets a research
// direction (skill/vibe/protocols/literature-precheck.md): a document whose
// file name contains "direction" (direction.md, 00-brainstorm/direction.json),
// a level-2 heading that starts with "Research direction" outside fenced
// code and HTML comments, or a tree node whose node_type is "direction"
// (JSON "node_type": "direction", or the YAML line node_type: direction).
func IsDirection(relPath string, content []byte) bool {
	if namedDirection(relPath) {
		return true
	}
	if len(directionSections(content)) > 0 {
		return true
	}
	return hasDirectionNode(content)
}

// IsDirectionChange is IsDirection for an edit whose old content is known:
// a direction document whose content changed, or new or changed
// "Research direction" sections or direction nodes. Rewriting a tree file
// that holds an old direction node, without touching that node, is not a
// direction change, so a new session may keep updating its tree before its
// first search.
func IsDirectionChange(relPath string, old, new []byte) bool {
	if namedDirection(relPath) {
		return !bytes.Equal(old, new)
	}
	if ns := directionSections(new); len(ns) > 0 && !sameStrings(ns, directionSections(old)) {
		return true
	}
	if !hasDirectionNode(new) {
		return false
	}
	nn, okNew := directionNodes(new)
	no, okOld := directionNodes(old)
	if !okNew || !okOld {
		// Not JSON (YAML, JSONL): fall back to "the marker is new or the
		// file changed".
		return !bytes.Equal(old, new)
	}
	return len(nn) > 0 && !sameStrings(nn, no)
}

// directionSections returns the text of each "## Research direction"
// section (heading to the next level-1 or level-2 heading), outside fenced
// code and HTML comments.
func directionSections(content []byte) []string {
	var out []string
	var cur *strings.Builder
	var fences markdown.Fences
	comment := false
	for _, line := range strings.Split(string(content), "\n") {
		t := strings.TrimSpace(line)
		if comment {
			if strings.Contains(t, "-->") {
				comment = false
			}
			continue
		}
		if fences.Step(line) {
			if cur != nil {
				cur.WriteString(line + "\n")
			}
			continue
		}
		if strings.HasPrefix(t, "<!--") && !strings.Contains(t, "-->") {
			comment = true
			continue
		}
		if lvl := headingLevel(line); lvl == 1 || lvl == 2 {
			if cur != nil {
				out = append(out, cur.String())
				cur = nil
			}
			if lvl == 2 && strings.HasPrefix(strings.ToLower(strings.TrimSpace(t[2:])), "research direction") {
				cur = &strings.Builder{}
			}
		}
		if cur != nil {
			cur.WriteString(strings.TrimRight(line, " \t\r") + "\n")
		}
	}
	if cur != nil {
		out = append(out, cur.String())
	}
	return out
}

// headingLevel is the ATX heading level of line (0 when it is none),
// allowing up to three spaces of indentation as markdown does.
func headingLevel(line string) int {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 || i+n >= len(line) || (line[i+n] != ' ' && line[i+n] != '\t') {
		return 0
	}
	return n
}

// hasDirectionNode finds "node_type": "direction" (any spacing) or the YAML
// line node_type: direction.
func hasDirectionNode(content []byte) bool {
	for rest := content; ; {
		i := bytes.Index(rest, []byte("node_type"))
		if i < 0 {
			return false
		}
		j := i + len("node_type")
		if j < len(rest) && rest[j] == '"' {
			j++
		}
		j = skipSpace(rest, j)
		if j < len(rest) && rest[j] == ':' {
			j = skipSpace(rest, j+1)
			v := rest[j:]
			if bytes.HasPrefix(v, []byte(`"direction"`)) || bytes.HasPrefix(v, []byte(`'direction'`)) {
				return true
			}
			if bytes.HasPrefix(v, []byte("direction")) {
				k := len("direction")
				if k == len(v) || v[k] == '\n' || v[k] == '\r' || v[k] == ' ' || v[k] == '#' {
					return true
				}
			}
		}
		rest = rest[j:]
	}
}

func skipSpace(b []byte, j int) int {
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	return j
}

// directionNodes decodes JSON content and returns every object whose
// node_type is "direction", canonically encoded and sorted; false when the
// content is not JSON.
func directionNodes(content []byte) ([]string, bool) {
	if len(bytes.TrimSpace(content)) == 0 {
		return nil, true
	}
	var v any
	if json.Unmarshal(content, &v) != nil {
		return nil, false
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if t["node_type"] == "direction" {
				raw, _ := verdict.Canonical(t)
				out = append(out, string(raw))
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out, true
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sourceList renders source ids as the registry's labels, "PubMed, bioRxiv,
// PMC", or a pointer to the full list when the domain names none.
func sourceList(primary []string) string {
	if len(primary) == 0 {
		return "the domain's sources (see `vibe literature sources`)"
	}
	return strings.Join(Labels(primary), ", ")
}

// DirectionVerdict judges a write that sets a research direction (gate
// L-1): PASS when the session already has a literature search, else BLOCK
// naming the domain's primary sources.
func DirectionVerdict(hasSearch bool, domain string, primary []string) verdict.Verdict {
	input := map[string]any{"has_search": hasSearch, "domain": domain}
	if hasSearch {
		return verdict.New(CheckDirection, verdict.Pass, verdict.Low,
			"a literature search is recorded in this session, so a research direction may be written", input)
	}
	srcs := sourceList(primary)
	v := verdict.New(CheckDirection, verdict.Block, verdict.High, fmt.Sprintf(
		"No literature search is recorded in this session, and gate L-1 requires one before a research direction is written: search %s (domain %s) for the exact method-application intersection first, then write the direction again.",
		srcs, domain), input)
	v.Recommendation = fmt.Sprintf("Search %s with WebSearch or WebFetch, a literature MCP tool, or /vibe:search, then retry this write.", srcs)
	v.Evidence.Notes = []string{"domain: " + domain}
	return v
}

// DroughtVerdict judges the time since the session's last literature search
// (L-1 during the loop): WARN once actionsSince reaches DroughtCycles cycles
// of CycleActions actions, PASS before.
func DroughtVerdict(actionsSince int, domain string, primary []string) verdict.Verdict {
	cycles := actionsSince / CycleActions
	input := map[string]any{"cycles": cycles, "domain": domain}
	if cycles < DroughtCycles {
		return verdict.New(CheckDrought, verdict.Pass, verdict.Low,
			fmt.Sprintf("%d actions since the last literature search, under %d cycles", actionsSince, DroughtCycles), input)
	}
	srcs := sourceList(primary)
	v := verdict.New(CheckDrought, verdict.Warn, verdict.Med, fmt.Sprintf(
		"No literature search for %d cycles (%d actions; a cycle is %d actions), so the work may rest on stale knowledge (L-1 in the loop): search %s before the next claim.",
		cycles, actionsSince, CycleActions, srcs), input)
	v.Recommendation = fmt.Sprintf("Search %s for the results you are building on, especially any anomaly found since.", srcs)
	v.Evidence.Numbers = []string{fmt.Sprint(actionsSince)}
	v.Evidence.Notes = []string{"domain: " + domain}
	return v
}
