package hookrun_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/privacy/shapes"
)

// TestNoSecretReachesTheDisk writes every secret shape through the real
// hook path (the handlers the worker and vibe-hook run) as a command, its
// output, a file's content, a prompt, a reviewer's refused command and a
// final message, then reads the bytes of everything under VIBE_HOME: the
// database, its WAL, the logs and the spool. No secret may be there; the
// context around each secret must be (or the test would prove nothing).
func TestNoSecretReachesTheDisk(t *testing.T) {
	r := newFaultRig(t)
	all := shapes.All()
	if len(all) < 40 {
		t.Fatalf("only %d shapes", len(all))
	}
	r.run("session-start", map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	for i, s := range all {
		mark := fmt.Sprintf("ctx%03d", i)
		cmd := "python train.py " + mark + " " + s.Text
		id := "toolu_" + mark
		r.run("pre-tool-use", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": cmd}})
		r.run("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": cmd}, "tool_response": map[string]any{"stdout": "done " + s.Text, "stderr": s.Text}})
		r.run("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": id + "w",
			"tool_input":    map[string]any{"file_path": filepath.Join(r.project, "notes", mark+".md"), "content": s.Text},
			"tool_response": map[string]any{"type": "create"}})
		r.run("prompt-submit", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "use " + s.Text})
		r.run("pre-tool-use", map[string]any{"hook_event_name": "PreToolUse", "agent_id": "a1", "agent_type": "vibe:reviewer2",
			"tool_name": "Bash", "tool_use_id": id + "r", "tool_input": map[string]any{"command": s.Text + " >> CLAIM-LEDGER.md"}})
	}
	r.run("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": all[0].Text})
	r.run("session-end", map[string]any{"hook_event_name": "SessionEnd", "reason": "other"})

	var disk bytes.Buffer
	var files []string
	filepath.Walk(r.home, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			disk.Write(b)
			files = append(files, strings.TrimPrefix(p, r.home))
		}
		return nil
	})
	if !strings.Contains(strings.Join(files, " "), "vibe-science.db-wal") {
		t.Logf("files: %v", files) // the WAL may have been checkpointed; the database holds it all then
	}
	for i, s := range all {
		if bytes.Contains(disk.Bytes(), []byte(s.Secret)) {
			t.Errorf("%s: %q is on disk under VIBE_HOME (%v)", s.Name, s.Secret, files)
		}
		mark := fmt.Sprintf("ctx%03d", i)
		if !bytes.Contains(disk.Bytes(), []byte(mark)) {
			t.Errorf("%s: the call was not recorded (no %s on disk), so this proves nothing", s.Name, mark)
		}
	}
	if n := r.count("SELECT count(*) FROM spine_entries"); n < 2*len(all) {
		t.Errorf("%d spine entries, want at least %d", n, 2*len(all))
	}
	if n := r.count("SELECT count(*) FROM advisories WHERE result = 'HARD_BLOCK'"); n < len(all) {
		t.Errorf("%d recorded denials, want %d", n, len(all))
	}
}
