package hookrun_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
)

// faultRig runs hooks in-process over one VIBE_HOME and project, as the
// local handler (vibe-hook) does, with the hook path's busy timeout.
type faultRig struct {
	t       *testing.T
	home    string
	project string
	env     map[string]string
}

func newFaultRig(t *testing.T) *faultRig {
	home, proj := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".vibe-science"), 0o755) // a vibe project (project.OptedIn)
	return &faultRig{t: t, home: home, project: proj,
		env: map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}}
}

func (r *faultRig) dbPath() string { return filepath.Join(r.home, "db", "vibe-science.db") }

// run sends one event and returns the reply and how long the hook took.
func (r *faultRig) run(folder string, event map[string]any) (string, time.Duration) {
	r.t.Helper()
	event["cwd"] = r.project
	if event["session_id"] == nil {
		event["session_id"] = "fault-1"
	}
	raw, _ := json.Marshal(event)
	var out bytes.Buffer
	e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{},
		Now: func() time.Time { return time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC) }, Getenv: func(k string) string { return r.env[k] }}
	start := time.Now()
	if code := hookrun.Main(specs[folder], e); code != 0 {
		r.t.Fatalf("%s exit %d: %s", folder, code, out.String())
	}
	return out.String(), time.Since(start)
}

// lock holds the database's write lock from another connection, as a
// long CLI import or another tool would, until the returned func runs.
func (r *faultRig) lock() func() {
	r.t.Helper()
	st, err := store.Open(context.Background(), r.dbPath(), store.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite3", "file:"+r.dbPath()+"?_txlock=exclusive")
	if err != nil {
		r.t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		r.t.Fatal(err)
	}
	return func() { tx.Rollback(); db.Close() }
}

func (r *faultRig) count(query string) int {
	r.t.Helper()
	db, err := sql.Open("sqlite3", "file:"+r.dbPath()+"?mode=ro")
	if err != nil {
		r.t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

func writeEvent(r *faultRig, agent, file string) map[string]any {
	ev := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_" + agent + file,
		"tool_input": map[string]any{"file_path": filepath.Join(r.project, file), "content": "x\n"}}
	if agent != "" {
		ev["agent_id"], ev["agent_type"] = "a1", agent
	}
	return ev
}

// TestLockedDatabaseDecidesFirst: with another process holding the write
// lock, PreToolUse still allows a legitimate write and denies a protected
// one, each in under a second; what it could not record (the session, the
// denial, PostToolUse's spine entry) is spooled and lands once the lock is
// gone, at the next event.
func TestLockedDatabaseDecidesFirst(t *testing.T) {
	r := newFaultRig(t)
	unlock := r.lock()
	out, took := r.run("pre-tool-use", writeEvent(r, "", "notes.txt"))
	if strings.Contains(out, `"deny"`) || took > time.Second {
		t.Fatalf("a legitimate write under a lock: %s in %v", out, took)
	}
	t.Logf("legitimate write under a lock: allowed in %v", took)
	out, took = r.run("pre-tool-use", writeEvent(r, "vibe:reviewer2", "CLAIM-LEDGER.md"))
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "reviewer2 may not write CLAIM-LEDGER.md") || took > time.Second {
		t.Fatalf("a protected write under a lock: %s in %v", out, took)
	}
	t.Logf("protected write under a lock: denied in %v", took)
	out, took = r.run("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_train",
		"tool_input": map[string]any{"command": "python train.py"}, "tool_response": map[string]any{"stdout": "auc 0.81"}})
	if took > time.Second {
		t.Fatalf("post-tool-use under a lock took %v: %s", took, out)
	}
	if !store.Spooled(filepath.Join(r.home, "spool.jsonl")) {
		t.Fatal("nothing was spooled")
	}
	unlock()
	if n := r.count("SELECT count(*) FROM sessions"); n != 0 {
		t.Fatalf("%d sessions written under the lock", n)
	}
	r.run("pre-tool-use", writeEvent(r, "", "other.txt")) // the next event replays
	if store.Spooled(filepath.Join(r.home, "spool.jsonl")) {
		logs, _ := filepath.Glob(filepath.Join(r.home, "logs", "*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Log(string(b))
		}
		t.Fatal("the spool was not replayed")
	}
	if n := r.count("SELECT count(*) FROM advisories WHERE result = 'HARD_BLOCK' AND session_id = 'fault-1'"); n != 1 {
		t.Errorf("%d recorded denials, want 1", n)
	}
	if n := r.count("SELECT count(*) FROM spine_entries WHERE tool_use_id = 'toolu_train' AND action_type = 'MODEL_TRAIN'"); n != 1 {
		t.Errorf("%d spine entries for the call made under the lock, want 1", n)
	}
	if n := r.count("SELECT count(*) FROM sessions WHERE id = 'fault-1'"); n != 1 {
		t.Errorf("%d session rows, want 1", n)
	}
}

// TestResidentProcessReplaysAfterItsReply: in the resident process (an Env
// with After, on the process's own database handle) the spool of earlier
// events is replayed after the reply, not on the reply's way: the hook
// returns with the spool still there, and the after-reply work empties it.
func TestResidentProcessReplaysAfterItsReply(t *testing.T) {
	r := newFaultRig(t)
	unlock := r.lock()
	r.run("pre-tool-use", writeEvent(r, "", "notes.txt")) // its session row is spooled
	unlock()
	spool := filepath.Join(r.home, "spool.jsonl")
	if !store.Spooled(spool) {
		t.Fatal("nothing was spooled")
	}
	st, err := store.Open(context.Background(), r.dbPath(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := writeEvent(r, "", "other.txt")
	ev["cwd"], ev["session_id"] = r.project, "fault-1"
	raw, _ := json.Marshal(ev)
	var after []func(context.Context)
	e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Now: time.Now,
		Getenv: func(k string) string { return r.env[k] }, After: func(f func(context.Context)) { after = append(after, f) }}
	e.UseStore(st)
	if code := hookrun.Main(specs["pre-tool-use"], e); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !store.Spooled(spool) {
		t.Fatal("the spool was replayed before the reply")
	}
	for _, f := range after {
		f(context.Background())
	}
	if store.Spooled(spool) {
		t.Fatal("the after-reply work did not replay the spool")
	}
	if n := r.count("SELECT count(*) FROM sessions WHERE id = 'fault-1'"); n != 1 {
		t.Errorf("%d session rows after the replay, want 1", n)
	}
}

// TestUnknownEventOnThePreToolUseRouteDenies: whatever the tool, an event
// name the route does not know is refused.
func TestUnknownEventOnThePreToolUseRouteDenies(t *testing.T) {
	r := newFaultRig(t)
	for _, name := range []string{"", "pretooluse", "PreToolUse ", "Nonsense"} {
		out, _ := r.run("pre-tool-use", map[string]any{"hook_event_name": name, "tool_name": "Read",
			"tool_input": map[string]any{"file_path": filepath.Join(r.project, "x")}})
		if !strings.Contains(out, `"hookEventName":"PreToolUse","permissionDecision":"deny"`) {
			t.Errorf("%q: %s", name, out)
		}
	}
}

// TestHugeEventsAnsweredInTime: a 50 MB event is answered well within
// every hook's timeout: PreToolUse refuses what it cannot check, the other
// hooks skip it and say so.
func TestHugeEventsAnsweredInTime(t *testing.T) {
	r := newFaultRig(t)
	big := strings.Repeat("é", 25<<20) // 50 MB
	events := map[string]map[string]any{
		"pre-tool-use":  {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(r.project, "a.txt"), "content": big}},
		"post-tool-use": {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat big"}, "tool_response": map[string]any{"stdout": big}},
		"prompt-submit": {"hook_event_name": "UserPromptSubmit", "prompt": big},
		"session-start": {"hook_event_name": "SessionStart", "source": "startup", "model": big},
		"stop":          {"hook_event_name": "Stop", "last_assistant_message": big},
		"session-end":   {"hook_event_name": "SessionEnd", "reason": big},
	}
	for folder, ev := range events {
		out, took := r.run(folder, ev)
		budget := specs[folder].Budget
		if folder == "session-end" {
			budget = 1500 * time.Millisecond
		}
		if took > budget && !raceEnabled {
			t.Errorf("%s: %v, more than %v", folder, took, budget)
		}
		if !strings.Contains(out, "the event is 50.0 MB, more than the 8 MB vibe can check within the hook") {
			t.Errorf("%s: %s", folder, out)
		}
		if folder == "pre-tool-use" && !strings.Contains(out, `"permissionDecision":"deny"`) {
			t.Errorf("pre-tool-use did not refuse: %s", out)
		}
	}
}

// TestDatabaseBreakerFromConfig: config.json's "database" breaker decides
// what PreToolUse does when the database cannot be opened: warn (the
// default) allows and says so, skip allows silently, fail refuses.
func TestDatabaseBreakerFromConfig(t *testing.T) {
	for mode, want := range map[string]struct{ deny, note bool }{"warn": {false, true}, "skip": {false, false}, "fail": {true, true}} {
		r := newFaultRig(t)
		os.MkdirAll(r.dbPath(), 0o700) // a folder where the database should be
		os.WriteFile(filepath.Join(r.home, "config.json"), []byte(`{"breakers": {"database": "`+mode+`"}}`), 0o600)
		out, _ := r.run("pre-tool-use", writeEvent(r, "", "notes.txt"))
		if deny := strings.Contains(out, `"permissionDecision":"deny"`); deny != want.deny {
			t.Errorf("%s: deny %v: %s", mode, deny, out)
		}
		if want.deny && !strings.Contains(out, "circuit breaker database is set to fail") {
			t.Errorf("%s: the denial does not name the breaker: %s", mode, out)
		}
		if note := strings.Contains(out, "the memory database is unavailable"); note != want.note {
			t.Errorf("%s: note %v: %s", mode, note, out)
		}
	}
}

// TestBriefEnforcedWithTheDatabaseDown: a brief ingested while the
// database worked keeps denying its Critical constraint after the
// database file is destroyed (from the copy written at ingest).
func TestBriefEnforcedWithTheDatabaseDown(t *testing.T) {
	r := newFaultRig(t)
	os.MkdirAll(filepath.Join(r.project, "src"), 0o755)
	os.WriteFile(filepath.Join(r.project, "src", "split.go"), []byte("package src\n\nfunc MakeSplits(n int) []int { return nil }\n"), 0o644)
	briefText := "# Brief: Off-target scoring\n\n## Constraints\n\n### BC-001: Never change how guides are split\n- severity: Critical\n- action: Block\n- applies-to: src/split.go#MakeSplits\n- rationale: held-out guides.\n"
	st, err := store.Open(context.Background(), r.dbPath(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := integritycheck.IngestBrief(context.Background(), st, project.Resolve(r.project), "brief.md", []byte(briefText), time.Now()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	os.WriteFile(r.dbPath(), bytes.Repeat([]byte("not a database "), 512), 0o600)
	os.Remove(r.dbPath() + "-wal")
	out, _ := r.run("pre-tool-use", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_split",
		"tool_input": map[string]any{"file_path": filepath.Join(r.project, "src", "split.go"), "old_string": "nil", "new_string": "[]int{1}"}})
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "BC-001") || !strings.Contains(out, "database is unavailable") {
		t.Fatalf("the brief was not enforced with the database down: %s", out)
	}
}

// TestBriefEnforcedWithTheDatabaseFolderLost: with VIBE_HOME/db gone (a
// file where the folder was: neither the database nor the copy beside it
// can be read), a Critical constraint is still enforced, from the
// project's copy of the brief; before, the Edit was allowed with a
// warning. A database made again without the brief does not lift it.
func TestBriefEnforcedWithTheDatabaseFolderLost(t *testing.T) {
	r := newFaultRig(t)
	os.MkdirAll(filepath.Join(r.project, "src"), 0o755)
	os.WriteFile(filepath.Join(r.project, "src", "split.go"), []byte("package src\n\nfunc MakeSplits(n int) []int { return nil }\n"), 0o644)
	briefText := "# Brief: Off-target scoring\n\n## Constraints\n\n### BC-001: Never change how guides are split\n- severity: Critical\n- action: Block\n- applies-to: src/split.go#MakeSplits\n- rationale: held-out guides.\n"
	st, err := store.Open(context.Background(), r.dbPath(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := integritycheck.IngestBrief(context.Background(), st, project.Resolve(r.project), "brief.md", []byte(briefText), time.Now()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	edit := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_split",
		"tool_input": map[string]any{"file_path": filepath.Join(r.project, "src", "split.go"), "old_string": "nil", "new_string": "[]int{1}"}}
	dbDir := filepath.Dir(r.dbPath())
	os.RemoveAll(dbDir)
	os.WriteFile(dbDir, []byte("not a folder"), 0o600)
	out, _ := r.run("pre-tool-use", edit)
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "BC-001") {
		t.Fatalf("the brief was not enforced with VIBE_HOME/db lost: %s", out)
	}
	os.Remove(dbDir) // the next hook makes a new, empty database
	out, _ = r.run("pre-tool-use", edit)
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "BC-001") {
		t.Fatalf("the brief was not enforced by a database made again without it: %s", out)
	}
}

// TestLiteratureSearchUnderALockStillCounts: a literature search whose
// PostToolUse found the database locked is spooled with its call, gate
// L-1 counts it at once (a direction written next is allowed, not refused
// for want of a search), and it is recorded when the spool is replayed.
func TestLiteratureSearchUnderALockStillCounts(t *testing.T) {
	r := newFaultRig(t)
	direction := func(id string) map[string]any {
		return map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": id,
			"tool_input": map[string]any{"file_path": filepath.Join(r.project, "RQ-001", "00-brainstorm", "direction.md"),
				"content": "# Direction\n\nPredict off-target cleavage from bulges.\n"}}
	}
	unlock := r.lock()
	if out, _ := r.run("pre-tool-use", direction("toolu_dir1")); !strings.Contains(out, `"deny"`) || !strings.Contains(out, "L-1") {
		t.Fatalf("a direction before any search was not refused: %s", out)
	}
	r.run("post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "WebSearch", "tool_use_id": "toolu_search",
		"tool_input":    map[string]any{"query": "CRISPR off-target bulge prediction PubMed review"},
		"tool_response": map[string]any{"query": "CRISPR off-target bulge prediction PubMed review", "results": []any{}}})
	if !store.SpooledLiteratureSearch(filepath.Join(r.home, "spool.jsonl"), "fault-1") {
		t.Fatal("the search made under the lock is not in the spool")
	}
	if out, _ := r.run("pre-tool-use", direction("toolu_dir2")); strings.Contains(out, `"deny"`) {
		t.Fatalf("the direction after a spooled search was refused: %s", out)
	}
	unlock()
	r.run("pre-tool-use", writeEvent(r, "", "other.txt")) // the next event replays
	if n := r.count("SELECT count(*) FROM literature_searches WHERE session_id = 'fault-1' AND tool_use_id = 'toolu_search'"); n != 1 {
		t.Errorf("%d literature searches recorded after the replay, want 1", n)
	}
	if store.SpooledLiteratureSearch(filepath.Join(r.home, "spool.jsonl"), "fault-1") {
		t.Error("the spool still holds the search after the replay")
	}
}
