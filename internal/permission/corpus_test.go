package permission

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// corpusCase is one line of testdata/adversarial.jsonl or clean.jsonl.
type corpusCase struct {
	ID     string          `json:"id"`
	Agent  string          `json:"agent"`
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	Cwd    string          `json:"cwd"`
	Root   string          `json:"root"` // overrides the project root (Windows-style paths)
	Mode   string          `json:"mode"`
	Expect Action          `json:"expect"`
	Rule   string          `json:"rule"`
	Note   string          `json:"note"`
	// Replay (adversarial cases): Env is added to the command's
	// environment, Then is a shell command run after the call to show its
	// consequence (writing through a link the call made), NoReplay says why
	// the call cannot be replayed on a scratch copy.
	Env      map[string]string `json:"env"`
	Then     string            `json:"then"`
	NoReplay string            `json:"no_replay"`
}

func readCorpus(t *testing.T, name string) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var c corpusCase
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		if c.ID == "" || ids[c.ID] || c.Tool == "" || c.Expect == "" || c.Rule == "" {
			t.Fatalf("%s:%d: id, tool, expect and rule are required and ids unique", name, n)
		}
		ids[c.ID] = true
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func runCorpus(t *testing.T, name string, min int, want Action) {
	cases := readCorpus(t, name)
	if len(cases) < min {
		t.Fatalf("%s has %d cases, want at least %d", name, len(cases), min)
	}
	prj := newProject(t)
	solo := Default()
	team := teamPolicy(t)
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			if c.Expect != want {
				t.Fatalf("a case in %s must expect %s, got %s", name, want, c.Expect)
			}
			req := Request{
				ProjectRoot: prj.root,
				Cwd:         prj.root,
				AgentType:   c.Agent,
				ToolName:    c.Tool,
				ToolInput:   json.RawMessage(prj.expand(string(c.Input))),
			}
			if c.Root != "" {
				req.ProjectRoot, req.Cwd = prj.expand(c.Root), prj.expand(c.Root)
			}
			if c.Cwd != "" {
				req.Cwd = join(toSlash(req.Cwd), c.Cwd)
			}
			p := solo
			if c.Mode == ModeTeam {
				p = team
			}
			d := p.Check(req)
			if d.Action != c.Expect || d.Rule != c.Rule {
				t.Errorf("%s: got %s by %s, want %s by %s\nreason: %s\npaths: %v\nexplain:\n  %s",
					c.Note, d.Action, d.Rule, c.Expect, c.Rule, d.Reason, d.Paths, strings.Join(p.Explain(req), "\n  "))
			}
		})
	}
}

// TestAdversarialCorpus replays attempted protected writes; every one must
// be denied by the rule the case names.
func TestAdversarialCorpus(t *testing.T) { runCorpus(t, "adversarial.jsonl", 90, Deny) }

// TestCleanCorpus replays legitimate work; every call must be allowed.
func TestCleanCorpus(t *testing.T) { runCorpus(t, "clean.jsonl", 45, Allow) }
