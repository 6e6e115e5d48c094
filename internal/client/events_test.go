package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventsTable: each event is either registered (a binary and a
// timeout) or ignored (a reason), once per client; only the pre-tool hook
// fails closed.
func TestEventsTable(t *testing.T) {
	for name, events := range Events {
		seen := map[string]bool{}
		for _, e := range events {
			if seen[e.Name] {
				t.Errorf("%s: %s listed twice", name, e.Name)
			}
			seen[e.Name] = true
			switch {
			case e.Registered() == (e.Ignored != ""):
				t.Errorf("%s %s: binary %q, ignored %q: want exactly one", name, e.Name, e.Binary, e.Ignored)
			case e.Registered() && e.Timeout <= 0:
				t.Errorf("%s %s: no timeout", name, e.Name)
			case e.Guarded && e.Binary != "vibe-pre-tool-use":
				t.Errorf("%s %s: %s fails closed, only vibe-pre-tool-use does", name, e.Name, e.Binary)
			}
		}
	}
}

// TestEventsDocumented: docs/clients.md shows Events as it is, one
// table per client, so the page never says an event is used or ignored
// for a reason the code does not have.
func TestEventsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Claude, Codex, Gemini} {
		if table := eventTable(name); !strings.Contains(string(doc), table) {
			t.Errorf("docs/clients.md lacks the %s event table as Events has it:\n%s", name, table)
		}
	}
}

// eventTable renders a client's events as docs/clients.md shows them.
func eventTable(name string) string {
	var b strings.Builder
	b.WriteString("| event | vibe | why |\n|---|---|---|\n")
	for _, e := range Events[name] {
		switch {
		case e.Registered() && e.Guarded:
			fmt.Fprintf(&b, "| %s | `%s` (fails closed) | |\n", e.Name, e.Binary)
		case e.Registered():
			fmt.Fprintf(&b, "| %s | `%s` | |\n", e.Name, e.Binary)
		default:
			fmt.Fprintf(&b, "| %s | ignored | %s |\n", e.Name, e.Ignored)
		}
	}
	return b.String()
}
