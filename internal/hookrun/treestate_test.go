package hookrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/schemacheck"
	"github.com/vibe-science/vibe/internal/store"
)

// TestTreeStateResumesWithoutTheDatabase is LAW 7 through the hooks: a
// turn's Stop writes .vibe-science/TREE-STATE.json from the database and
// the project's files, the file validates against the skill's schema, and
// a session that starts with the database unavailable (its path is a
// folder) resumes from it: the context names the open claim, the gate it
// still needs and the current direction.
func TestTreeStateResumesWithoutTheDatabase(t *testing.T) {
	r := newFaultRig(t)
	write := func(rel, content string) {
		p := filepath.Join(r.project, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".vibe-science/CLAIM-LEDGER.md", "# Claim ledger\n\n## C-001: Off-target rate rises with mismatch count\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.62\n")
	write(".vibe-science/RQ-001-off-target/08-tree/TREE-STATE.json",
		`{"tree_mode": "LINEAR", "current_node": "node-002", "nodes": [{"id": "node-001", "node_type": "direction", "status": "good"}, {"id": "node-002", "node_type": "draft", "parent": "node-001", "status": "running"}]}`)
	r.run("session-start", map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	r.run("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "WebSearch", "tool_use_id": "toolu_search",
		"tool_input": map[string]any{"query": "CRISPR off-target mismatch count cleavage"}, "tool_response": map[string]any{"results": []any{}}})
	direction := ".vibe-science/RQ-001-off-target/00-brainstorm/direction.md"
	content := "# Direction\n\n## Research direction\n\nModel off-target cleavage from mismatch count.\n"
	write(direction, content)
	r.run("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": "toolu_dir",
		"tool_input":    map[string]any{"file_path": filepath.Join(r.project, filepath.FromSlash(direction)), "content": content},
		"tool_response": map[string]any{"type": "create"}})
	r.run("stop", map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "prompt_id": "p-1"})

	raw, err := os.ReadFile(filepath.Join(r.project, ".vibe-science", resume.TreeStateFile))
	if err != nil {
		t.Fatalf("Stop wrote no TREE-STATE.json: %v", err)
	}
	if v, err := schemacheck.Skill(resume.TreeStateSchema, raw); err != nil || len(v) > 0 {
		t.Fatalf("TREE-STATE.json does not validate: %v %v\n%s", v, err, raw)
	}
	for _, want := range []string{`"session_id": "fault-1"`, `"id": "C-001"`, `"path": "` + direction + `"`, `"current_node": "node-002"`} {
		if !strings.Contains(string(raw), want) {
			t.Fatalf("TREE-STATE.json lacks %s:\n%s", want, raw)
		}
	}

	// The database's path becomes a folder: it cannot be opened.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(r.dbPath() + suffix)
	}
	os.MkdirAll(r.dbPath(), 0o755)
	out, _ := r.run("session-start", map[string]any{"hook_event_name": "SessionStart", "source": "startup", "session_id": "fault-2"})
	for _, want := range []string{
		"Resuming from .vibe-science/TREE-STATE.json written at 2026-11-24 09:00 UTC by session fault-1",
		"RQ-001 (.vibe-science/RQ-001-off-target): tree LINEAR, current node-002, 2 nodes (1 good, 1 running)",
		"current direction: " + direction,
		"open claims: C-001 PROVISIONAL 0.62 (needs ",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("the resume context lacks %q:\n%s", want, out)
		}
	}
}

// TestTreeStateAtSessionEnd: SessionEnd writes the file too (a session
// whose last turn's Stop did not reach the database still leaves one).
func TestTreeStateAtSessionEnd(t *testing.T) {
	r := newFaultRig(t)
	r.run("session-end", map[string]any{"hook_event_name": "SessionEnd", "reason": "exit", "session_id": "end-1"})
	raw, err := os.ReadFile(filepath.Join(r.project, ".vibe-science", resume.TreeStateFile))
	if err != nil {
		t.Fatalf("SessionEnd wrote no TREE-STATE.json: %v", err)
	}
	if v, err := schemacheck.Skill(resume.TreeStateSchema, raw); err != nil || len(v) > 0 {
		t.Fatalf("TREE-STATE.json does not validate: %v %v\n%s", v, err, raw)
	}
	if !strings.Contains(string(raw), `"session_id": "end-1"`) {
		t.Fatalf("not this session's state:\n%s", raw)
	}
	// The end of a session also takes the day's copy of the database,
	// once: a second session ending the same day adds none.
	r.run("session-end", map[string]any{"hook_event_name": "SessionEnd", "reason": "exit", "session_id": "end-2"})
	if copies, err := store.Backups(store.BackupDir(r.dbPath())); err != nil || len(copies) != 1 {
		t.Errorf("backups after two session ends: %v, %v; want one", copies, err)
	}
}

// TestGoldenTreeStatesValidate: the TREE-STATE.json files the golden
// cases start from are ones vibe could have written.
func TestGoldenTreeStatesValidate(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.in.json"))
	n := 0
	for _, in := range files {
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var c goldenCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		tree, ok := c.Files[".vibe-science/"+resume.TreeStateFile]
		if !ok {
			continue
		}
		n++
		if v, err := schemacheck.Skill(resume.TreeStateSchema, []byte(tree)); err != nil || len(v) > 0 {
			t.Errorf("%s: TREE-STATE.json does not validate: %v %v", in, v, err)
		}
	}
	if n == 0 {
		t.Fatal("no golden case starts from a TREE-STATE.json")
	}
}
