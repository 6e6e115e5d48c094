package postmortem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/postmortem"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// reply is what one hook answered, digested.
type reply struct {
	decision string // deny / ask / block / ""
	context  bool   // additionalContext or a systemMessage was given
	text     string // every string of the reply, for "says"
	raw      string
}

func digest(t *testing.T, out []byte) reply {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return reply{}
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("hook stdout is not one JSON object: %q", out)
	}
	r := reply{raw: string(out)}
	if d, _ := m["decision"].(string); d == "block" {
		r.decision = "block"
	}
	if h, ok := m["hookSpecificOutput"].(map[string]any); ok {
		if d, _ := h["permissionDecision"].(string); d == "deny" || d == "ask" {
			r.decision = d
		}
		if c, _ := h["additionalContext"].(string); c != "" {
			r.context = true
		}
	}
	if s, _ := m["systemMessage"].(string); s != "" {
		r.context = true
	}
	var texts []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			texts = append(texts, x)
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(m)
	r.text = strings.Join(texts, "\n")
	return r
}

// session replays scenarios through the hooks in-process.
type session struct {
	t    *testing.T
	root string
	env  map[string]string
	id   string
}

func (s *session) run(spec hookrun.Spec, ev map[string]any) (reply, int) {
	raw, _ := json.Marshal(ev)
	var stdout, stderr bytes.Buffer
	// The hooks compare file times with the clock, and the scripts write
	// files now: the session runs on the real clock.
	e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr,
		Now: time.Now, Getenv: func(k string) string { return s.env[k] }}
	code := hookrun.Main(spec, e)
	return digest(s.t, stdout.Bytes()), code
}

func (s *session) event(name, tool string, input map[string]any, id string) map[string]any {
	return map[string]any{"session_id": s.id, "transcript_path": filepath.Join(s.env["HOME"], "t.jsonl"), "cwd": s.root,
		"permission_mode": "acceptEdits", "hook_event_name": name, "tool_name": tool, "tool_input": input, "tool_use_id": id}
}

// execute carries the tool call out the way Claude Code would, and returns
// its tool_response.
func (s *session) execute(st postmortem.Step, in map[string]any) (resp map[string]any, failure string) {
	t := s.t
	switch st.Tool {
	case "Bash":
		cmd := exec.Command("bash", "-c", in["command"].(string))
		cmd.Dir = s.root
		cmd.Env = append(os.Environ(), "HOME="+s.env["HOME"])
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if (err != nil) != st.Fails {
			t.Fatalf("step command %q: exit error %v, scenario says fails=%v\n%s%s", in["command"], err, st.Fails, out.String(), errb.String())
		}
		if err != nil {
			return nil, fmt.Sprintf("Exit code 1\n%s%s", out.String(), errb.String())
		}
		return map[string]any{"stdout": out.String(), "stderr": errb.String(), "interrupted": false, "isImage": false}, ""
	case "Write":
		p := in["file_path"].(string)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(in["content"].(string)), 0o644); err != nil {
			t.Fatal(err)
		}
		return map[string]any{"type": "create", "filePath": p, "content": in["content"]}, ""
	case "Edit":
		p := in["file_path"].(string)
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		o, n := in["old_string"].(string), in["new_string"].(string)
		if !bytes.Contains(old, []byte(o)) {
			t.Fatalf("Edit of %s: old_string not found", p)
		}
		os.WriteFile(p, bytes.Replace(old, []byte(o), []byte(n), 1), 0o644)
		return map[string]any{"filePath": p, "oldString": o, "newString": n}, ""
	}
	if st.Response != nil {
		return st.Response, ""
	}
	return map[string]any{}, ""
}

// reporter is where unmet expectations go: the test itself, or a
// collector for a scenario that awaits other work.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// collector keeps what a waiting scenario did not meet.
type collector struct{ unmet []string }

func (c *collector) Helper() {}

func (c *collector) Errorf(format string, args ...any) {
	c.unmet = append(c.unmet, fmt.Sprintf(format, args...))
}

func check(t reporter, where string, got reply, want, says []string) {
	t.Helper()
	kind := got.decision
	if kind == "" && got.context {
		kind = "context"
	}
	ok := false
	for _, w := range want {
		if kind == w {
			ok = true
		}
	}
	if !ok {
		t.Errorf("%s: vibe answered %q, want %s\n  reply: %s", where, kind, strings.Join(want, " or "), got.raw)
		return
	}
	if kind == "" {
		return
	}
	for _, s := range says {
		if !strings.Contains(strings.ToLower(got.text), strings.ToLower(s)) {
			t.Errorf("%s: the reply does not say %q\n  reply: %s", where, s, got.raw)
		}
	}
}

func TestPostMortem(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("the post-mortem scenarios run their analysis scripts with python3; install it")
	}
	scenarios, err := postmortem.All()
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for _, sc := range scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			home := t.TempDir()
			root, _ := filepath.EvalSymlinks(t.TempDir())
			root = filepath.Join(root, "crispr")
			s := &session{t: t, root: root, id: "pm-" + sc.ID,
				env: map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off", "VIBE_BUSY_TIMEOUT_MS": "500"}}
			if err := sc.Setup(root, time.Now()); err != nil {
				t.Fatal(err)
			}
			var r reporter = t
			waiting := &collector{}
			if sc.Awaits != "" {
				r = waiting
			}
			executed := 0
			for i, st := range sc.Steps {
				in := st.StepInput(root)
				id := fmt.Sprintf("toolu_%03d", i)
				where := fmt.Sprintf("%s step %d (%s %v)", sc.ID, i, st.Tool, short(in))
				pre, code := s.run(handler.PreToolUse, s.event("PreToolUse", st.Tool, in, id))
				wantPre := st.Expect.Pre
				if wantPre == "" {
					wantPre = "allow"
				}
				if wantPre == "allow" {
					check(r, where+" PreToolUse", pre, []string{""}, nil)
				} else {
					check(r, where+" PreToolUse", pre, []string{wantPre}, st.Expect.Says)
				}
				if pre.decision == "deny" || code == 2 {
					continue
				}
				resp, failure := s.execute(st, in)
				executed++
				ev := s.event("PostToolUse", st.Tool, in, id)
				ev["tool_response"] = resp
				if failure != "" {
					ev = s.event("PostToolUseFailure", st.Tool, in, id)
					ev["error"] = failure
				}
				ev["duration_ms"] = 40
				post, _ := s.run(handler.PostToolUse, ev)
				if os.Getenv("PM_DEBUG") != "" { // PM_DEBUG=1 go test -v: every reply and the record
					t.Logf("step %d PostToolUse: %s", i, post.raw)
				}
				wantPost := st.Expect.Post
				switch wantPost {
				case "", "quiet":
					check(r, where+" PostToolUse", post, []string{""}, nil)
				default:
					check(r, where+" PostToolUse", post, []string{wantPost}, st.Expect.Says)
				}
			}
			recorded(t, r, home, root, sc, s.id, executed)
			if sc.Awaits != "" {
				if len(waiting.unmet) == 0 {
					t.Fatalf("%s meets every expectation but still says it awaits %s: remove \"awaits\" in scenarios.py", sc.ID, sc.Awaits)
				}
				t.Skipf("awaits %s; %d expectation(s) unmet, the first: %s", sc.Awaits, len(waiting.unmet), waiting.unmet[0])
			}
			if !sc.Clean() && !t.Failed() {
				caught++
			}
		})
	}
	clean := 0
	for _, sc := range scenarios {
		if sc.Clean() {
			clean++
		}
	}
	t.Logf("post-mortem: %d of %d error scenarios caught as expected", caught, len(scenarios)-clean)
}

func short(in map[string]any) string {
	for _, k := range []string{"command", "file_path", "query", "url"} {
		if v, ok := in[k].(string); ok {
			if len(v) > 60 {
				v = v[:60] + "…"
			}
			return v
		}
	}
	return ""
}

// recorded checks that what the gates decided at the hooks is visible
// afterwards, as `vibe gate history` and `vibe status` read it: every gate
// that blocked after a call has a FAIL row, and the clean control has no
// FAIL or WARN at all.
func recorded(t *testing.T, r reporter, home, root string, sc postmortem.Scenario, session string, executed int) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "db", "vibe-science.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	history, err := st.GateHistory(ctx, root, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	states, err := st.ArtifactStates(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PM_DEBUG") != "" {
		for _, h := range history {
			t.Logf("gate history: %s %s", h.GateID, h.Status)
		}
		for _, a := range states {
			t.Logf("artifact: %s %s %s", a.Path, a.Kind, a.Status)
		}
	}
	// M11, the retroactive logbook: the spine holds every call that ran, as
	// it ran, whatever the agent writes in its own log.
	spine, err := st.Spine(ctx, record.SpineFilter{Session: session, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(spine) != executed {
		r.Errorf("the research spine holds %d entries for %d calls that ran", len(spine), executed)
	}
	if sc.Clean() {
		for _, h := range history {
			if h.Status != record.GatePass {
				r.Errorf("clean control: %s recorded %s", h.GateID, h.Status)
			}
		}
		for _, a := range states {
			if a.Status == "FAIL" || a.Status == "WARN" {
				r.Errorf("clean control: %s is recorded as %s", a.Path, a.Status)
			}
		}
		if len(history) == 0 {
			r.Errorf("clean control: no gate result was recorded at all")
		}
		return
	}
	for _, step := range sc.Steps {
		if step.Expect.Post != "block" || len(step.Expect.Says) == 0 {
			continue
		}
		id := step.Expect.Says[0]
		if _, ok := gate.Lookup(id); !ok {
			continue
		}
		found := false
		for _, h := range history {
			if h.GateID == id && h.Status == record.GateFail {
				found = true
			}
		}
		if !found {
			r.Errorf("%s blocked at PostToolUse but no %s FAIL is in the gate history", id, id)
		}
		if id == "L-1" {
			// A direction's block is lifted by the search, not by a
			// change of the file: its state is what its last write found.
			continue
		}
		failing := false
		for _, a := range states {
			failing = failing || a.Status == "FAIL"
		}
		if !failing {
			r.Errorf("%s blocked, but no research file is recorded as failing (vibe status shows none)", id)
		}
	}
}

// TestScenariosAreGenerated holds scenarios/*.json to scenarios.py, which
// writes them.
func TestScenariosAreGenerated(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("python3", "scenarios.py", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scenarios.py: %v\n%s", err, msg)
	}
	got, _ := filepath.Glob(filepath.Join(out, "*.json"))
	want, _ := filepath.Glob(filepath.Join("scenarios", "*.json"))
	if len(got) != len(want) {
		t.Fatalf("scenarios.py writes %d scenarios, scenarios/ holds %d; run `python3 scenarios.py`", len(got), len(want))
	}
	for _, g := range got {
		a, _ := os.ReadFile(g)
		b, err := os.ReadFile(filepath.Join("scenarios", filepath.Base(g)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("scenarios/%s is not what scenarios.py writes; run `python3 scenarios.py`", filepath.Base(g))
		}
	}
}
