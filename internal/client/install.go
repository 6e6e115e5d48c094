package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// registered are the events of a client vibe installs hooks for (Events,
// in its order).
func registered(client string) []Event {
	var out []Event
	for _, e := range Events[client] {
		if e.Registered() {
			out = append(out, e)
		}
	}
	return out
}

// Install describes where a client keeps its hooks and context file.
type Install struct {
	Client   string
	Settings string // ~/.codex/hooks.json, ~/.gemini/settings.json
	Context  string // ~/.codex/AGENTS.md, ~/.gemini/GEMINI.md
}

// Locate is the client's user-level configuration under home.
func Locate(client, home string) (Install, error) {
	switch client {
	case Codex:
		return Install{client, filepath.Join(home, ".codex", "hooks.json"), filepath.Join(home, ".codex", "AGENTS.md")}, nil
	case Gemini:
		return Install{client, filepath.Join(home, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "GEMINI.md")}, nil
	}
	return Install{}, fmt.Errorf("no hook configuration for client %q (clients: codex, gemini; Claude Code uses the plugin)", client)
}

// command is the shell command a client runs for one hook. Both clients run
// the command string through a shell; VIBE_HOME is pinned when it was set,
// because neither client promises to pass the user's environment on.
func command(root, vibeHome, client string, e Event) string {
	q := shellQuote
	c := q(filepath.Join(root, "bin", e.Binary)) + " --client " + client
	if e.Guarded {
		c = q(filepath.Join(root, "plugin", "guard.sh")) + " " + e.Binary + " --client " + client
	}
	if vibeHome != "" {
		c = "VIBE_HOME=" + q(vibeHome) + " " + c
	}
	return c
}

// ours reports whether a configured command is one of vibe's for client.
func ours(cmd, client string) bool {
	return strings.Contains(cmd, "vibe-") && strings.Contains(cmd, "--client "+client)
}

// Apply writes (remove false) or removes (remove true) vibe's hooks in the
// client's settings file and vibe's block in its context file, keeping every
// other hook, setting and line. It reports whether a file changed; a second
// run with the same arguments changes nothing.
func (in Install) Apply(root, vibeHome, methodology string, remove bool) (changed bool, err error) {
	cfg := map[string]json.RawMessage{}
	old, err := os.ReadFile(in.Settings)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = nil
	case err != nil:
		return false, err
	case len(bytes.TrimSpace(old)) > 0:
		if err := json.Unmarshal(old, &cfg); err != nil {
			return false, fmt.Errorf("%s is not valid JSON (%v): fix it by hand, vibe will not overwrite it", in.Settings, err)
		}
	}
	hooks := map[string][]map[string]any{}
	if raw, ok := cfg["hooks"]; ok {
		if err := json.Unmarshal(raw, &hooks); err != nil {
			return false, fmt.Errorf("%s: \"hooks\" is not an object of event lists (%v): fix it by hand", in.Settings, err)
		}
	}
	for event, groups := range hooks {
		var kept []map[string]any
		for _, g := range groups {
			list, _ := g["hooks"].([]any)
			var rest []any
			for _, h := range list {
				m, _ := h.(map[string]any)
				if c, _ := m["command"].(string); ours(c, in.Client) {
					continue
				}
				rest = append(rest, h)
			}
			if len(rest) == 0 && len(list) > 0 {
				continue
			}
			g["hooks"] = rest
			kept = append(kept, g)
		}
		if len(kept) == 0 {
			delete(hooks, event)
		} else {
			hooks[event] = kept
		}
	}
	if !remove {
		for _, e := range registered(in.Client) {
			timeout := e.Timeout
			if in.Client == Gemini {
				timeout *= 1000 // Gemini counts milliseconds
			}
			h := map[string]any{"type": "command", "command": command(root, vibeHome, in.Client, e), "timeout": timeout}
			if in.Client == Gemini {
				h["name"] = "vibe " + strings.TrimPrefix(e.Binary, "vibe-")
			}
			hooks[e.Name] = append(hooks[e.Name], map[string]any{"hooks": []any{h}})
		}
	}
	if len(hooks) == 0 {
		delete(cfg, "hooks")
	} else {
		b, err := json.Marshal(hooks)
		if err != nil {
			return false, err
		}
		cfg["hooks"] = b
	}
	var next []byte
	if len(cfg) > 0 || old != nil {
		next, err = json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			return false, err
		}
		next = append(next, '\n')
	}
	c1, err := writeIfChanged(in.Settings, old, next, canonicalEqual)
	if err != nil {
		return false, err
	}
	c2, err := in.applyContext(methodology, remove)
	return c1 || c2, err
}

// The markers around vibe's part of a context file.
const (
	BeginMark = "<!-- vibe:begin (written by `vibe setup`; edits inside are replaced) -->"
	EndMark   = "<!-- vibe:end -->"
)

// Methodology is the context-file form of the Claude skill: SKILL.md without
// its front matter, so the three clients read one text.
func Methodology(skill string) string {
	if rest, ok := strings.CutPrefix(skill, "---\n"); ok {
		if _, body, ok := strings.Cut(rest, "\n---\n"); ok {
			skill = body
		}
	}
	return strings.TrimSpace(skill) + "\n"
}

func (in Install) applyContext(methodology string, remove bool) (bool, error) {
	old, err := os.ReadFile(in.Context)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	text := string(old)
	if i := strings.Index(text, BeginMark); i >= 0 {
		if j := strings.Index(text[i:], EndMark); j >= 0 {
			text = strings.TrimRight(text[:i], "\n") + text[i+j+len(EndMark):]
			text = strings.TrimLeft(text, "\n")
			if strings.TrimSpace(text) == "" {
				text = ""
			}
		}
	}
	if !remove {
		block := BeginMark + "\n" + methodology + EndMark + "\n"
		if strings.TrimSpace(text) != "" {
			text = strings.TrimRight(text, "\n") + "\n\n" + block
		} else {
			text = block
		}
	}
	var next []byte
	if text != "" || old != nil {
		next = []byte(text)
	}
	return writeIfChanged(in.Context, old, next, bytes.Equal)
}

func canonicalEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}

// writeIfChanged writes next over path unless it says the same as old; a
// nil next leaves a missing file missing.
func writeIfChanged(path string, old, next []byte, same func(a, b []byte) bool) (bool, error) {
	if next == nil && old == nil {
		return false, nil
	}
	if old != nil && same(old, next) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp := path + ".vibe-tmp"
	if err := os.WriteFile(tmp, next, 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, path)
}

// Check lists what is wrong with a client's installation: hooks missing or
// pointing at binaries that are not there, a stale context block. An empty
// list means the client is set up.
func (in Install) Check(root, methodology string) []string {
	raw, err := os.ReadFile(in.Settings)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v; run `vibe setup --client %s`", in.Settings, err, in.Client)}
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return []string{fmt.Sprintf("%s is not valid JSON: %v", in.Settings, err)}
	}
	var problems []string
	for _, e := range registered(in.Client) {
		found := false
		for _, g := range cfg.Hooks[e.Name] {
			for _, h := range g.Hooks {
				if ours(h.Command, in.Client) && strings.Contains(h.Command, e.Binary) {
					found = true
				}
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%s has no vibe hook for %s; run `vibe setup --client %s`", in.Settings, e.Name, in.Client))
		}
		if _, err := os.Stat(filepath.Join(root, "bin", e.Binary)); err != nil {
			problems = appendOnce(problems, fmt.Sprintf("%s is missing; run `make build` in %s", filepath.Join(root, "bin", e.Binary), root))
		}
	}
	ctx, _ := os.ReadFile(in.Context)
	if !strings.Contains(string(ctx), BeginMark+"\n"+methodology+EndMark) {
		problems = append(problems, fmt.Sprintf("%s does not hold the current methodology; run `vibe setup --client %s`", in.Context, in.Client))
	}
	return problems
}

// Installed reports whether the client's settings hold any of vibe's hooks.
func (in Install) Installed() bool {
	raw, err := os.ReadFile(in.Settings)
	if err != nil {
		return false
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if json.Unmarshal(raw, &cfg) != nil {
		return false
	}
	for _, groups := range cfg.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if ours(h.Command, in.Client) {
					return true
				}
			}
		}
	}
	return false
}
