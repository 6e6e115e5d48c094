package hookrun_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
)

// FuzzMain feeds arbitrary stdin to the two tool hooks: they must never
// panic, always exit 0, print nothing or exactly one JSON object, and the
// pre-tool-use hook must never allow what it could not read.
func FuzzMain(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/x","content":"y"}}`))
	f.Add([]byte(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"ok"}`))
	f.Add([]byte("\x00\xff{"))
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, spec := range []hookrun.Spec{handler.PreToolUse, handler.PostToolUse} {
			var out bytes.Buffer
			env := &hookrun.Env{Stdin: bytes.NewReader(data), Stdout: &out, Stderr: &bytes.Buffer{},
				Now:    func() time.Time { return time.Unix(1_800_000_000, 0) },
				Getenv: func(k string) string { return map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "everywhere"}[k] }}
			if code := hookrun.Main(spec, env); code != 0 {
				t.Fatalf("%s exit %d", spec.Name, code)
			}
			if out.Len() > 0 && !json.Valid(out.Bytes()) {
				t.Fatalf("%s printed non-JSON %q", spec.Name, out.Bytes())
			}
		}
	})
}
