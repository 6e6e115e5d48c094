package handler_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/scaffold"
)

// TestPostToolUseGroupsKept: a script that reads a features table and
// writes a subsample of its guides is told, in the same turn, how many
// guides it kept of the table it read; one that keeps them all is not.
func TestPostToolUseGroupsKept(t *testing.T) {
	const rq = ".vibe-science/RQ-001"
	table := func(guides int) string {
		var b strings.Builder
		b.WriteString("sgRNA,site,gc,label\n")
		for g := 0; g < 12; g++ {
			if g >= guides {
				break
			}
			for s := 0; s < 6; s++ {
				fmt.Fprintf(&b, "VEGFA_site%d,s%d_%d,0.%d,%d\n", g, g, s, 3+s, s%2)
			}
		}
		return b.String()
	}
	script := `import pandas as pd
df = pd.read_csv("02-data/processed/features.csv")
df[df.sgRNA.isin(df.sgRNA.unique()[:4])].to_csv("02-data/processed/features_small.csv", index=False)
`
	for _, tc := range []struct {
		name   string
		guides int
		says   string // "" for no reply
	}{
		{"subsample of a third", 4, "grouped by `sgRNA`: 4 of 12 groups of features.csv kept (33.3%, below 80%)"},
		{"every guide kept", 12, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			root, _ := filepath.EvalSymlinks(t.TempDir())
			os.MkdirAll(filepath.Join(root, ".git"), 0o755)
			if _, err := scaffold.Init(project.Project{Root: root, Git: true}, scaffold.Options{RQ: "RQ-001", Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{
				rq + "/02-data/processed/features.csv": table(12),
				rq + "/03-analysis/subsample.py":       script,
				// DD0 and DC0 have their say on other tables; this test is
				// about the share of groups.
				".vibe-science/domain-config.json": `{"domain": "generic"}`,
			}
			for rel, content := range files {
				p := filepath.Join(root, rel)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(content), 0o644)
			}
			old := time.Now().Add(-time.Hour)
			filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
				os.Chtimes(p, old, old)
				return nil
			})
			env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
			run := func(event map[string]any) string {
				raw, _ := json.Marshal(event)
				var out bytes.Buffer
				e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{}, Now: time.Now,
					Getenv: func(k string) string { return env[k] }}
				hookrun.Main(handler.PostToolUse, e)
				return out.String()
			}
			event := func(id string, tool string, in map[string]any) map[string]any {
				return map[string]any{"session_id": "s-groups", "cwd": filepath.Join(root, rq), "tool_use_id": id,
					"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": in, "tool_response": map[string]any{}}
			}
			run(event("toolu_1", "Read", map[string]any{"file_path": filepath.Join(root, "README.md")}))
			os.WriteFile(filepath.Join(root, rq, "02-data/processed/features_small.csv"), []byte(table(tc.guides)), 0o644)
			reply := run(event("toolu_2", "Bash", map[string]any{"command": "python3 03-analysis/subsample.py"}))
			if tc.says == "" {
				if strings.Contains(reply, "groups of") {
					t.Fatalf("a table that keeps every guide drew: %s", reply)
				}
				return
			}
			if !strings.Contains(reply, tc.says) || !strings.Contains(reply, `"decision":"block"`) {
				t.Fatalf("want a block saying %q, got %s", tc.says, reply)
			}
		})
	}
}
