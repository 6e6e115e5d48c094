package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project is a research project laid out in a temp folder, with the
// symlinks an attacker would plant.
type project struct {
	root string // the project root
	out  string // a folder outside the project
}

// newProject builds the standard project. Every test that touches the file
// system uses it, so the corpora can name its files.
func newProject(t testing.TB) project {
	t.Helper()
	base := t.TempDir()
	p := project{root: filepath.Join(base, "project"), out: filepath.Join(base, "elsewhere")}
	files := []string{
		"CLAIM-LEDGER.md", "SERENDIPITY.md", "FINDINGS.md", "README.md",
		".vibe-science/STATE.md", ".vibe-science/schemas/claim-promotion.schema.json",
		".claude/settings.json",
		"RQ-001/02-data/raw/counts.csv", "RQ-001/02-data/processed/.keep",
		"RQ-001/03-analysis/analysis.py", "RQ-001/03-analysis/sub/.keep", "RQ-001/04-results/metrics.json",
		"RQ-001/05-reviewer2/R2-001.yaml", "RQ-001/05-reviewer2/judge-reports/J-001.yaml",
		"RQ-002/.keep", "data/raw/a.csv", "src/model.py",
		"../elsewhere/x.yaml", "../elsewhere/src/R2-009.yaml",
	}
	for _, f := range files {
		path := filepath.Join(p.root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"RQ-001/05-reviewer2/ledger-view.md":      "../../CLAIM-LEDGER.md",
		"RQ-001/05-reviewer2/root":                "../..",
		"RQ-001/05-reviewer2/new-ledger.md":       "../../RQ-002/CLAIM-LEDGER.md",
		"RQ-001/05-reviewer2/out":                 p.out,
		"RQ-001/05-reviewer2/judge-reports/r2":    "..",
		"RQ-001/05-reviewer2/esc":                 "../03-analysis/sub",
		"RQ-001/03-analysis/reviews":              "../05-reviewer2",
		"RQ-001/03-analysis/raw":                  "../02-data/raw",
		"notes.md":                                "CLAIM-LEDGER.md",
		"ideas/SERENDIPITY.md":                    "../CLAIM-LEDGER.md",
		"RQ-001/04-results/serendipity-escape.md": "../../SERENDIPITY.md",
	}
	for name, target := range links {
		path := filepath.Join(p.root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// expand replaces the placeholders of corpus text.
func (p project) expand(s string) string {
	return strings.NewReplacer("$ROOT", p.root, "$OUT", p.out, "$HOME", homeDir()).Replace(s)
}

// request builds a Request for a tool call in the project.
func (p project) request(agent, tool string, input any, cwd string) Request {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	dir := p.root
	if cwd != "" && cwd != "." {
		dir = filepath.Join(p.root, filepath.FromSlash(cwd))
	}
	return Request{ProjectRoot: p.root, Cwd: dir, AgentType: agent, ToolName: tool, ToolInput: json.RawMessage(p.expand(string(raw)))}
}

func write(path string) map[string]any { return map[string]any{"file_path": path, "content": "x"} }

func bash(cmd string) map[string]any { return map[string]any{"command": cmd} }

// teamPolicy is the default policy in TEAM mode.
func teamPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := Parse([]byte(`{"mode": "team"}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFixture guards the corpora against a fixture that silently lost a
// symlink: each case would then test a plain path instead.
func TestFixture(t *testing.T) {
	prj := newProject(t)
	for _, name := range []string{
		"RQ-001/05-reviewer2/ledger-view.md", "RQ-001/05-reviewer2/root", "RQ-001/05-reviewer2/new-ledger.md",
		"RQ-001/05-reviewer2/out", "RQ-001/05-reviewer2/judge-reports/r2", "RQ-001/05-reviewer2/esc",
		"RQ-001/03-analysis/reviews", "RQ-001/03-analysis/raw", "notes.md", "ideas/SERENDIPITY.md",
	} {
		fi, err := os.Lstat(filepath.Join(prj.root, filepath.FromSlash(name)))
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is not a symlink: %v", name, err)
		}
	}
}
