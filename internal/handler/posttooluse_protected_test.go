package handler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/project"
)

// TestProtectedChangesDownload: a file the user approved downloading into
// raw data is not reported as a forbidden change; a raw file the agent
// wrote itself is.
func TestProtectedChangesDownload(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	raw := filepath.Join(root, "RQ-001", "02-data", "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want int
	}{
		{"curl -sSLo RQ-001/02-data/raw/d.csv https://example.org/d.csv", 0},
		{"echo 1,2 > RQ-001/02-data/raw/d.csv", 1},
	} {
		if err := os.WriteFile(filepath.Join(raw, "d.csv"), []byte("1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(map[string]string{"command": tc.cmd})
		ev := &hook.Event{Cwd: root, AgentType: "vibe:experimenter", ToolName: "Bash", ToolInput: in, ToolUseID: "t1"}
		ev.HookEventName = "PostToolUse"
		call := Digest(ev, project.Project{Root: root}, time.Unix(0, 0))
		if got := protectedChanges(nil, ev, call); len(got) != tc.want {
			t.Errorf("%q: %d protected-change verdicts, want %d: %+v", tc.cmd, len(got), tc.want, got)
		}
	}
}
