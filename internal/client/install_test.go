package client

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallKeepsUserHooksAndIsIdempotent(t *testing.T) {
	userHooks := map[string]string{
		Codex:  `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"~/bin/my-guard.sh","timeout":5}]}]}}`,
		Gemini: `{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"type":"command","command":"~/my.sh"}]}]}}`,
	}
	for _, name := range []string{Codex, Gemini} {
		home, root := t.TempDir(), "/opt/vibe"
		in, err := Locate(name, home)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(in.Settings), 0o755)
		os.WriteFile(in.Settings, []byte(userHooks[name]), 0o644)
		os.WriteFile(in.Context, []byte("# My notes\n\nkeep me\n"), 0o644)
		method := Methodology("---\nname: vibe\n---\n# vibe\n\nLaw 1.\n")

		changed, err := in.Apply(root, "/data/vibe home", method, false)
		if err != nil || !changed {
			t.Fatalf("%s: first install changed=%v err=%v", name, changed, err)
		}
		again, err := in.Apply(root, "/data/vibe home", method, false)
		if err != nil || again {
			t.Fatalf("%s: second install changed=%v err=%v", name, again, err)
		}
		raw, _ := os.ReadFile(in.Settings)
		s := string(raw)
		user := map[string]string{Codex: "my-guard.sh", Gemini: "~/my.sh"}[name]
		for _, want := range []string{user, "guard.sh' vibe-pre-tool-use --client " + name,
			"VIBE_HOME='/data/vibe home' '/opt/vibe/bin/vibe-session-start' --client " + name} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: settings lack %q:\n%s", name, want, s)
			}
		}
		if name == Gemini && (!strings.Contains(s, `"theme": "dark"`) || !strings.Contains(s, `"timeout": 30000`)) {
			t.Errorf("gemini: other settings or millisecond timeouts lost:\n%s", s)
		}
		var cfg struct{ Hooks map[string][]any }
		json.Unmarshal(raw, &cfg)
		if len(cfg.Hooks) != len(eventsOf(name)) {
			t.Errorf("%s: events %v", name, cfg.Hooks)
		}
		ctx, _ := os.ReadFile(in.Context)
		if !strings.HasPrefix(string(ctx), "# My notes\n\nkeep me\n\n"+BeginMark+"\n# vibe\n\nLaw 1.\n"+EndMark) {
			t.Errorf("%s: context file:\n%s", name, ctx)
		}
		os.MkdirAll(filepath.Join(home, "bin"), 0o755)
		if p := in.Check(root, method); len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), "make build") {
			t.Errorf("%s: check must report the missing binaries: %v", name, p)
		}
		if p := in.Check(root, Methodology("# vibe\n\nLaw 2.\n")); !strings.Contains(strings.Join(p, "\n"), "current methodology") {
			t.Errorf("%s: check must report a stale context block: %v", name, p)
		}

		if changed, err := in.Apply(root, "", method, true); err != nil || !changed {
			t.Fatalf("%s: remove changed=%v err=%v", name, changed, err)
		}
		raw, _ = os.ReadFile(in.Settings)
		var got, want any
		json.Unmarshal(raw, &got)
		json.Unmarshal([]byte(userHooks[name]), &want)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s: after remove\n got %s\nwant %s", name, g, w)
		}
		if ctx, _ := os.ReadFile(in.Context); string(ctx) != "# My notes\n\nkeep me\n" {
			t.Errorf("%s: context after remove: %q", name, ctx)
		}
	}
}

func TestInstallOnEmptyHome(t *testing.T) {
	home := t.TempDir()
	in, _ := Locate(Codex, home)
	if _, err := in.Apply("/opt/vibe", "", "M\n", false); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Apply("/opt/vibe", "", "M\n", true); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(in.Settings)
	if strings.TrimSpace(string(raw)) != "{}" {
		t.Errorf("settings after remove: %q", raw)
	}
	if ctx, _ := os.ReadFile(in.Context); len(ctx) != 0 {
		t.Errorf("context after remove: %q", ctx)
	}
	bad, _ := Locate(Gemini, home)
	os.MkdirAll(filepath.Dir(bad.Settings), 0o755)
	os.WriteFile(bad.Settings, []byte("{not json"), 0o644)
	if _, err := bad.Apply("/opt/vibe", "", "M\n", false); err == nil || !strings.Contains(err.Error(), "fix it by hand") {
		t.Errorf("a broken settings file must be left alone: %v", err)
	}
}

func eventsOf(name string) map[string]bool {
	m := map[string]bool{}
	for _, e := range registered(name) {
		m[e.Name] = true
	}
	return m
}
