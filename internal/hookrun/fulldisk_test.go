package hookrun_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hookrun"
)

// TestFullDisk puts VIBE_HOME on a 2 MB tmpfs, fills it, and checks the
// promise of issue 3: the session goes on (exit 0, a systemMessage that says
// the disk is full), nothing partial is written, and a protected write is
// still refused. It needs root to mount; elsewhere it says so and skips.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	env := map[string]string{"VIBE_HOME": mnt, "HOME": mnt, "VIBE_WORKER": "off"}
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".vibe-science"), 0o755) // a vibe project (project.OptedIn)
	run := func(folder string, event map[string]any) (int, string) {
		raw, _ := json.Marshal(event)
		var out bytes.Buffer
		e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{},
			Now: func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }, Getenv: func(k string) string { return env[k] }}
		return hookrun.Main(specs[folder], e), out.String()
	}
	base := map[string]any{"session_id": "full-1", "cwd": project, "transcript_path": "/tmp/t"}
	with := func(kv map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range kv {
			m[k] = v
		}
		return m
	}
	if code, out := run("session-start", with(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})); code != 0 || strings.Contains(out, "systemMessage") {
		t.Fatalf("session start on an empty disk: %d %s", code, out)
	}
	// Fill the disk.
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	for {
		if _, err := filler.Write([]byte("x")); err != nil {
			break
		}
	}
	filler.Close()

	big := strings.Repeat("AUC 0.81 on held-out guides. ", 20000)
	code, out := run("post-tool-use", with(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_full",
		"tool_input": map[string]any{"command": "python train.py --note '" + big + "'"}, "tool_response": map[string]any{"stdout": big}}))
	if code != 0 || !strings.Contains(out, "systemMessage") || !strings.Contains(out, "disk is full") {
		t.Errorf("post-tool-use on a full disk: exit %d, reply %s", code, out)
	}
	start := time.Now()
	code, out = run("pre-tool-use", with(map[string]any{"hook_event_name": "PreToolUse", "agent_id": "a1", "agent_type": "vibe:reviewer2",
		"tool_name": "Write", "tool_use_id": "toolu_guarded", "tool_input": map[string]any{"file_path": filepath.Join(project, "CLAIM-LEDGER.md"), "content": "x"}}))
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || time.Since(start) > time.Second {
		t.Errorf("a protected write on a full disk was not refused in under 1 s: exit %d, reply %s, %v", code, out, time.Since(start))
	}
	// Decide first, record after: a legitimate write is allowed although
	// nothing can be recorded.
	start = time.Now()
	code, out = run("pre-tool-use", with(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_notes",
		"tool_input": map[string]any{"file_path": filepath.Join(project, "notes.txt"), "content": "x"}}))
	if code != 0 || strings.Contains(out, `"deny"`) || time.Since(start) > time.Second {
		t.Errorf("a legitimate write on a full disk was refused or slow: exit %d, reply %s, %v", code, out, time.Since(start))
	}
	// Nothing partial: the failed call left no spine row, no provenance.
	os.Remove(filepath.Join(mnt, "filler"))
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(mnt, "db", "vibe-science.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var spine, prov int
	db.QueryRow("SELECT count(*) FROM spine_entries WHERE tool_use_id = 'toolu_full'").Scan(&spine)
	db.QueryRow("SELECT count(*) FROM provenance").Scan(&prov)
	if spine != 0 || prov != 0 {
		t.Errorf("partial write: %d spine rows, %d provenance rows", spine, prov)
	}
}
