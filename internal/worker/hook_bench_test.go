package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/wire"
)

// BenchmarkRelayedHook times one hook as the resident process serves it:
// dial, send the frame, run the handler on the open database, read the
// reply (a PreToolUse Read and a PostToolUse of a Bash call).
func BenchmarkRelayedHook(b *testing.B) {
	dir := b.TempDir()
	for _, c := range []struct{ name, hook, event string }{
		{"subagent-stop", "stop", `{"session_id":"bench-1","cwd":"` + dir + `","hook_event_name":"SubagentStop","stop_hook_active":false,"agent_id":"a1","agent_type":"reviewer2"}`},
		{"pre-tool-use-read", "pre-tool-use", `{"session_id":"bench-1","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + dir + `/notes.md"},"tool_use_id":"t1"}`},
		{"post-tool-use-bash", "post-tool-use", `{"session_id":"bench-1","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a\nb"},"tool_use_id":"t2"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := testHome(b)
			w := New(Config{Paths: p, Settings: settings("fake"), PollInterval: time.Hour})
			if err := w.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			frame := wire.AppendHookRequest(nil, wire.HookRequest{Hook: c.hook, Version: buildinfo.Version,
				Env: []string{"VIBE_HOME=" + p.Home, "HOME=" + p.Home, "VIBE_WORKER=off", "VIBE_ENFORCE=everywhere"}, Stdin: []byte(c.event)})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if rep := sendFrame(b, p.Socket, frame); rep.Code != "" || rep.Exit != 0 || strings.Contains(string(rep.Stdout), "could not") {
					b.Fatalf("reply %+v %s", rep, rep.Stdout)
				}
			}
		})
	}
}
