package permission

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// readManCorpus reads testdata/manpages.jsonl (see testdata/manpages.md).
func readManCorpus(t testing.TB) []manCommand {
	t.Helper()
	f, err := os.Open("testdata/manpages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manCommand
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c manCommand
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestManPageCorpusDecisions sends every command of the man-page corpus to
// the policy as the main thread's Bash call, from the project root and
// from a raw-data folder, in a project of the usual size and in one of
// thousands of files, with a net that restores every protected file. A
// denial must come from what the command's words name (a named path, a
// target outside the project, a forbidden operation), never from a file
// reached only through a computation: those are the net's. The real runs
// are in internal/tamper (TestManPageCorpusInAProject).
func TestManPageCorpusDecisions(t *testing.T) {
	corpus := readManCorpus(t)
	if len(corpus) < 1500 {
		t.Fatalf("the corpus has %d commands, want at least 1500", len(corpus))
	}
	small := newProject(t)
	big := newProject(t)
	grow(t, big, 5000)
	p := Default()
	for _, prj := range []project{small, big} {
		counts := map[string]int{}
		for _, c := range corpus {
			for _, cwd := range []string{"", "RQ-001/02-data/raw"} {
				req := prj.request("", "Bash", bash(c.Command), cwd)
				req.Net = restoresAll{}
				d := p.Check(req)
				counts[fmt.Sprintf("%-18s %s %s", cwd, d.Action, d.Rule)]++
				if d.Action != Deny {
					continue
				}
				if !namedDenial(p, d) {
					t.Errorf("%s (%s, cwd %q): denied by %s for a target it does not name: %s", c.ID, c.Command, cwd, d.Rule, d.Reason)
				}
				// Written for other projects, these commands name no file
				// of this one: run from its root, only what lies outside
				// it or a forbidden operation can be refused.
				if cwd == "" && !strings.HasSuffix(d.Rule, ".outside-root") && !strings.HasPrefix(d.Rule, "forbidden.") {
					t.Errorf("%s (%s): denied by %s from the project root: %s", c.ID, c.Command, d.Rule, d.Reason)
				}
			}
		}
		var lines []string
		for k, v := range counts {
			lines = append(lines, fmt.Sprintf("%5d %s", v, k))
		}
		sort.Strings(lines)
		t.Logf("%d commands:\n%s", len(corpus), strings.Join(lines, "\n"))
	}
}

// namedDenial reports whether a denial rests on what the command names: a
// rule on the role, tools or programs, a forbidden operation, a target
// outside the project, or a path rule matching a path the call names (a
// file, or a folder it writes into, such as the folder it runs in; or,
// for writes known only at run time, a protected name its text spells).
func namedDenial(p *Policy, d Decision) bool {
	switch {
	case strings.HasSuffix(d.Rule, ".outside-root"), strings.HasPrefix(d.Rule, "forbidden."),
		strings.HasSuffix(d.Rule, ".tools"), strings.Contains(d.Rule, ".bash."),
		strings.HasSuffix(d.Rule, ".unparsed"), strings.HasSuffix(d.Rule, ".write-only"):
		return true
	case strings.Contains(d.Reason, "in a command that names"):
		return true
	}
	for _, path := range d.Paths {
		if isAbs(path) || p.ProtectedFor(d.Role, path) || p.ProtectedFor(d.Role, join2(path, "x")) {
			return true
		}
	}
	return false
}
