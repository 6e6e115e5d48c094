//go:build e2e

package client_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"unicode"

	"github.com/vibe-science/vibe/internal/client"
	"github.com/vibe-science/vibe/internal/e2e"
)

// TestEventInventory reads the hook events each pinned client ships out of
// the installed client and fails when one is missing from client.Events
// (vibe has not classified it: registered or ignored with the reason) or
// when client.Events names one the client does not ship.
func TestEventInventory(t *testing.T) {
	for _, c := range []struct {
		name string
		read func(t *testing.T) []string
	}{
		{client.Claude, claudeEvents},
		{client.Codex, codexEvents},
		{client.Gemini, geminiEvents},
	} {
		t.Run(c.name, func(t *testing.T) {
			shipped := c.read(t)
			var listed []string
			for _, e := range client.Events[c.name] {
				listed = append(listed, e.Name)
			}
			for _, ev := range shipped {
				if !slices.Contains(listed, ev) {
					t.Errorf("%s ships the hook event %s, which vibe has not classified: add it to client.Events[%q] "+
						"(the binary that judges it, or why it is ignored) and to docs/clients.md", c.name, ev, c.name)
				}
			}
			for _, ev := range listed {
				if !slices.Contains(shipped, ev) {
					t.Errorf("client.Events[%q] lists %s, which the pinned %s does not ship", c.name, ev, c.name)
				}
			}
			t.Logf("%s: %d events, %v", c.name, len(shipped), shipped)
		})
	}
}

// claudeEvents is the hook-event list in the Claude Code bundle: the
// longest JavaScript array of event names that starts with "PreToolUse"
// (the bundle holds the full list and shorter subsets of it).
func claudeEvents(t *testing.T) []string {
	bin, err := filepath.EvalSymlinks(e2e.RequireClaude(t))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var longest []string
	for _, m := range regexp.MustCompile(`\["PreToolUse"(?:,"[A-Z][A-Za-z]+")+\]`).FindAll(data, -1) {
		var names []string
		if json.Unmarshal(m, &names) == nil && len(names) > len(longest) {
			longest = names
		}
	}
	if !slices.Contains(longest, "SessionStart") || !slices.Contains(longest, "Stop") {
		t.Fatalf("no hook-event list found in %s (longest candidate %v): the bundle's layout changed; update claudeEvents", bin, longest)
	}
	return longest
}

// codexEvents is the HookEventName enum of Codex's app-server protocol, as
// `codex app-server generate-json-schema` writes it (camelCase there,
// PascalCase in hooks.json).
func codexEvents(t *testing.T) []string {
	bin := installClient(t, client.Codex)
	out, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "app-server", "generate-json-schema", "--out", out)
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+home)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s app-server generate-json-schema: %v\n%s", bin, err, b)
	}
	raw, err := os.ReadFile(filepath.Join(out, "v2", "HooksListResponse.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Definitions struct {
			HookEventName struct {
				Enum []string `json:"enum"`
			} `json:"HookEventName"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil || len(schema.Definitions.HookEventName.Enum) == 0 {
		t.Fatalf("no HookEventName enum in Codex's HooksListResponse schema (%v): its layout changed; update codexEvents", err)
	}
	var names []string
	for _, n := range schema.Definitions.HookEventName.Enum {
		r := []rune(n)
		r[0] = unicode.ToUpper(r[0])
		names = append(names, string(r))
	}
	return names
}

// geminiEvents is the HookEventName enum compiled into Gemini CLI's bundle
// (`HookEventName2["BeforeTool"] = "BeforeTool"`).
func geminiEvents(t *testing.T) []string {
	bin := installClient(t, client.Gemini)
	bundle := filepath.Join(filepath.Dir(bin), "..", "@google", "gemini-cli", "bundle")
	files, _ := filepath.Glob(filepath.Join(bundle, "*.js"))
	re := regexp.MustCompile(`HookEventName\d*\["([A-Za-z]+)"\] = "([A-Za-z]+)"`)
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("HookEventName")) {
			continue
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			if n := string(m[2]); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if !slices.Contains(names, "BeforeTool") {
		t.Fatalf("no HookEventName enum in %s (found %v): the bundle's layout changed; update geminiEvents", bundle, names)
	}
	return names
}
