package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorded holds the hook inputs Claude Code 2.1.330 sent in one session
// (testdata/clients/claude-code-2.1.330/README.md).
const recorded = "../../testdata/clients/claude-code-2.1.330"

// recordedEvents are the recorded inputs' paths, in the order they fired.
func recordedEvents(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(recorded, "*.json"))
	if err != nil || len(files) != 15 {
		t.Fatalf("want the 15 recorded events in %s, found %d (%v)", recorded, len(files), err)
	}
	return files
}

func TestDecodeRecordedFixtures(t *testing.T) {
	files := recordedEvents(t)
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		ev, err := Decode(raw)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if ev.SessionID != "372e7d5d-9e0c-4521-bc95-02a2c22cfa24" || ev.Cwd != "/home/researcher/project" {
			t.Errorf("%s: %+v", f, ev)
		}
		if strings.Contains(f, "08-PreToolUse") && (ev.AgentType != "role-guard-test:reviewer2" || ev.Files().FilePath != "/home/researcher/project/CLAIM-LEDGER.md") {
			t.Errorf("subagent fields: %+v", ev)
		}
		if strings.Contains(f, "04-PostToolUse") && (ev.DurationMS == nil || *ev.DurationMS != 13 || len(ev.ToolResponse) == 0) {
			t.Errorf("post fields: %+v", ev)
		}
		if strings.Contains(f, "14-Stop") && !ev.StopHookActive {
			t.Errorf("stop_hook_active lost")
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := map[string]string{
		"":                           "empty input",
		"   ":                        "empty input",
		"[]":                         "not a JSON object",
		`{"session_id":"x"}`:         "hook_event_name is missing",
		`{"hook_event_name":"Stop"}`: "session_id is missing",
		`{"session_id":"x","hook_event_name":"Stop"} {}`: "more than one JSON value",
		`{"session_id":"x",`:                             "unexpected EOF",
		`{"session_id":1,"hook_event_name":"Stop"}`:      "cannot unmarshal",
	}
	for in, want := range cases {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
	ev, err := Decode([]byte(`{"session_id":"x","hook_event_name":"Stop","brand_new_field":{"a":1}}`))
	if err != nil || ev.HookEventName != "Stop" {
		t.Errorf("unknown fields must be tolerated: %v", err)
	}
}

func TestReplyEncodeCapsStrings(t *testing.T) {
	r := &Reply{SystemMessage: strings.Repeat("x", MaxString+50)}
	out, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > MaxString+100 || !strings.Contains(string(out), "cut by vibe") {
		t.Errorf("not capped: %d bytes", len(out))
	}
	if !(&Reply{}).Empty() || (&Reply{Decision: "block"}).Empty() {
		t.Error("Empty")
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range recordedEvents(f) {
		raw, _ := os.ReadFile(p)
		f.Add(raw)
	}
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_input":{"file_path":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(data)
		if err != nil {
			return
		}
		if ev.SessionID == "" || ev.HookEventName == "" {
			t.Fatalf("accepted an event without identity: %q", data)
		}
		_ = ev.Files()
	})
}

// TestCwdOf: the cwd of an event is read without decoding the rest, also
// from an event far larger than a hook judges; input the fast decoder
// cannot read gives no answer.
func TestCwdOf(t *testing.T) {
	big := `{"session_id":"s","hook_event_name":"PreToolUse","tool_input":{"content":"` + strings.Repeat("x", 9<<20) + `"},"cwd":"/home/r/p"}`
	for _, c := range []struct {
		in, cwd string
		ok      bool
	}{
		{big, "/home/r/p", true},
		{` {"cwd":"/a"} `, "/a", true},
		{`{"session_id":"s"}`, "", true},
		{`{"Cwd":"/a"}`, "", false},
		{`not json`, "", false},
	} {
		cwd, ok := CwdOf([]byte(c.in))
		if cwd != c.cwd || ok != c.ok {
			t.Errorf("CwdOf(%.40q) = %q, %v; want %q, %v", c.in, cwd, ok, c.cwd, c.ok)
		}
	}
}
