package cli

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
)

// TestMissingModel: the sentence for each setting of the two switches, in
// any case, for a model vibe can download (named in the pull command, so a
// non-default model is pulled by its name) and for one it cannot.
func TestMissingModel(t *testing.T) {
	p := config.Resolve(func(k string) string {
		if k == "VIBE_HOME" {
			return "/v"
		}
		return ""
	})
	const fb = "not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) "
	const lex = "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) "
	mini := "all-MiniLM-L6-v2"
	if _, ok := embed.Catalog[mini]; !ok {
		t.Fatalf("%s is not in embed.Catalog", mini)
	}
	for _, c := range []struct {
		model        string
		env          map[string]string
		want         string
		wantFallback bool
	}{
		{embed.DefaultModel, nil,
			fb + "and downloads the model on first need (`vibe model pull " + embed.DefaultModel + "` installs it now)", true},
		{mini, map[string]string{"VIBE_MODEL_PULL": "off"},
			fb + "until `vibe model pull " + mini + "` installs it (VIBE_MODEL_PULL=off: no download on first need)", true},
		{mini, map[string]string{"VIBE_EMBED_FALLBACK": "OFF"},
			lex + "until the worker, once started, downloads the model on first need (`vibe model pull " + mini + "` installs it now)", false},
		{mini, map[string]string{"VIBE_EMBED_FALLBACK": "off", "VIBE_MODEL_PULL": "Off"},
			lex + "until `vibe model pull " + mini + "` installs it (VIBE_MODEL_PULL=off)", false},
		{mini, map[string]string{"VIBE_EMBED_FALLBACK": "on", "VIBE_MODEL_PULL": "no"}, // only "off" switches off
			fb + "and downloads the model on first need (`vibe model pull " + mini + "` installs it now)", true},
		{"my-own", map[string]string{"VIBE_MODEL_PULL": "off"},
			fb + "until its files are placed in " + embed.Dir(p.Models, "my-own") + " (vibe does not know how to download it)", true},
		{"my-own", map[string]string{"VIBE_EMBED_FALLBACK": "off"},
			lex + "until its files are placed in " + embed.Dir(p.Models, "my-own") + " (vibe does not know how to download it)", false},
	} {
		got, gotFallback := MissingModel(p, c.model, func(k string) string { return c.env[k] })
		if got != c.want || gotFallback != c.wantFallback {
			t.Errorf("%s %v:\n got %q %v\nwant %q %v", c.model, c.env, got, gotFallback, c.want, c.wantFallback)
		}
	}
	if got, _ := MissingModel(p, embed.DefaultModel, nil); got != fb+"and downloads the model on first need (`vibe model pull "+embed.DefaultModel+"` installs it now)" {
		t.Errorf("nil getenv: %q, want the defaults' sentence", got)
	}
}

type chosenModel struct {
	name string
	err  error
}

func (c chosenModel) EmbedModel(context.Context) (string, error) { return c.name, c.err }

// TestCurrentModel: the database's choice wins, then config.json, then the
// default; a database error is returned.
func TestCurrentModel(t *testing.T) {
	home := t.TempDir()
	p := config.Resolve(func(k string) string {
		if k == "VIBE_HOME" {
			return home
		}
		return ""
	})
	ctx := context.Background()
	check := func(what string, st ModelChoice, want string) {
		t.Helper()
		if got, err := CurrentModel(ctx, st, p); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", what, got, err, want)
		}
	}
	check("nothing chosen", chosenModel{}, config.Defaults.Model)
	check("no database", nil, config.Defaults.Model)
	if err := os.WriteFile(p.Settings, []byte(`{"model": "all-MiniLM-L6-v2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	check("settings", chosenModel{}, "all-MiniLM-L6-v2")
	check("settings, no database", nil, "all-MiniLM-L6-v2")
	check("database", chosenModel{name: "mini"}, "mini")
	boom := errors.New("boom")
	if _, err := CurrentModel(ctx, chosenModel{err: boom}, p); !errors.Is(err, boom) {
		t.Errorf("database error: %v, want boom", err)
	}
}
