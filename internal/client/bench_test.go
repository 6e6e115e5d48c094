package client

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/hook"
)

// BenchmarkTranslate is the adapter's own cost on a hook call: the event in,
// and a refusal rendered out (the handler's cost is the same for every client).
func BenchmarkTranslate(b *testing.B) {
	deny := &hook.Reply{HookSpecific: &hook.Specific{HookEventName: hook.PreToolUse, PermissionDecision: "deny", PermissionDecisionReason: "no"}}
	for _, c := range []struct{ client, file string }{
		{Codex, "recorded-06-PreToolUse"}, {Codex, "recorded-04-PreToolUse"}, {Gemini, "recorded-09-BeforeTool"}, {Gemini, "recorded-04-AfterTool"},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clients", c.client, c.file+".in.json"))
		if err != nil {
			b.Fatal(err)
		}
		_, ev, _ := strings.Cut(string(raw), `"event": `)
		ev = strings.TrimSuffix(strings.TrimSpace(ev), "}")
		ev = strings.ReplaceAll(ev, "$PROJECT", b.TempDir())
		a := adapters[c.client]
		b.Run(c.client+"/"+c.file, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				event, _, err := a.events([]byte(ev))
				if err != nil {
					b.Fatal(err)
				}
				a.render(event, deny, io.Discard)
			}
		})
	}
}
