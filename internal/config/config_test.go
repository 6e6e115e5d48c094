package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/filememo"
	"github.com/vibe-science/vibe/internal/integrity"
)

func settingsFile(t *testing.T, content string) Paths {
	t.Helper()
	home := t.TempDir()
	p := Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBreakersAreReadOverTheDefaults: a config naming one dependency keeps
// the others' defaults; modes are case-insensitive.
func TestBreakersAreReadOverTheDefaults(t *testing.T) {
	s, err := LoadSettings(settingsFile(t, `{"breakers": {"database": "FAIL", "brief": "skip"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := integrity.Breakers{"database": "fail", "worker": "skip", "vec": "skip", "brief": "skip"}
	if len(s.Breakers) != len(want) {
		t.Fatalf("breakers %v, want %v", s.Breakers, want)
	}
	for k, v := range want {
		if s.Breakers[k] != v {
			t.Errorf("%s: %s, want %s", k, s.Breakers[k], v)
		}
	}
	d, err := LoadSettings(Resolve(func(k string) string { return map[string]string{"VIBE_HOME": t.TempDir()}[k] }))
	if err != nil || d.Breakers.Mode(integrity.DepDatabase) != integrity.ModeWarn {
		t.Fatalf("defaults: %v %v", d.Breakers, err)
	}
}

// TestSettingsErrors: unknown keys, dependencies and modes are errors that
// name the file and what to write instead.
func TestSettingsErrors(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{`{"breaker": {"database": "fail"}}`, `unknown key "breaker"; did you mean "breakers"?`},
		{`{"observer_evry": 5}`, `unknown key "observer_evry"; did you mean "observer_every"?`},
		{`{"colour": "red"}`, `unknown key "colour"; the keys are recall_deadline_ms, observer_every`},
		{`{"breakers": {"databse": "fail"}}`, `unknown dependency "databse"; use database, worker, vec or brief`},
		{`{"breakers": {"database": "explode"}}`, `circuit-breaker mode "explode" is not one of skip, warn, fail`},
		{`{"observer_every": "ten"}`, `not valid: json: cannot unmarshal string`},
	} {
		p := settingsFile(t, c.content)
		s, err := LoadSettings(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p.Settings) {
			t.Errorf("%s: %v, want an error naming %s and containing %q", c.content, err, p.Settings, c.want)
		}
		if s.ObserverEvery != Defaults.ObserverEvery || s.Breakers.Mode(integrity.DepDatabase) != integrity.ModeWarn {
			t.Errorf("%s: a broken file must give the defaults, got %+v", c.content, s)
		}
	}
}

// TestUnreadableSettings: a config.json that exists but cannot be read (a
// folder here) is an error naming it, with the defaults; only a missing
// one gives the defaults silently.
func TestUnreadableSettings(t *testing.T) {
	p := Resolve(func(k string) string { return map[string]string{"VIBE_HOME": t.TempDir()}[k] })
	if err := os.MkdirAll(p.Settings, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSettings(p)
	if err == nil || !strings.HasPrefix(err.Error(), "read settings "+p.Settings) {
		t.Fatalf("config.json is a folder: %v, want a read error naming it", err)
	}
	if s.ObserverEvery != Defaults.ObserverEvery || s.Breakers.Mode(integrity.DepDatabase) != integrity.ModeWarn {
		t.Errorf("an unreadable file must give the defaults, got %+v", s)
	}
}

// TestOffSwitches: VIBE_WORKER, VIBE_EMBED_FALLBACK and VIBE_MODEL_PULL
// are off for "off" in any case, and only for it; each reads its own
// variable.
func TestOffSwitches(t *testing.T) {
	for name, off := range map[string]func(func(string) string) bool{
		"VIBE_WORKER": WorkerOff, "VIBE_EMBED_FALLBACK": EmbedFallbackOff, "VIBE_MODEL_PULL": ModelPullOff,
	} {
		for v, want := range map[string]bool{"off": true, "OFF": true, "Off": true, "": false, "on": false, "0": false, "false": false, " off": false} {
			getenv := func(k string) string {
				if k == name {
					return v
				}
				return "off" // every other variable: must not be read
			}
			if got := off(getenv); got != want {
				t.Errorf("%s=%q: off %v, want %v", name, v, got, want)
			}
		}
	}
}

// TestWorkerIdleExit: the worker exits after 30 minutes idle by default;
// worker_idle_exit_sec changes it (negative: never), and
// VIBE_WORKER_IDLE_EXIT overrides both with a duration or "off"; a value
// that is neither is an error that leaves the settings' time.
func TestWorkerIdleExit(t *testing.T) {
	if Defaults.WorkerIdleExitSec != 1800 {
		t.Errorf("default idle exit %d s, want 1800 (30 minutes)", Defaults.WorkerIdleExitSec)
	}
	fromFile := func(raw string) Settings {
		t.Helper()
		f, err := ParseSettings([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		s := defaults()
		merge(&s, f)
		return s
	}
	for _, c := range []struct {
		file, env string
		want      time.Duration
		err       bool
	}{
		{`{}`, "", 30 * time.Minute, false},
		{`{"worker_idle_exit_sec": 90}`, "", 90 * time.Second, false},
		{`{"worker_idle_exit_sec": -1}`, "", -1, false},
		{`{"worker_idle_exit_sec": 90}`, "2h", 2 * time.Hour, false},
		{`{}`, "OFF", -1, false},
		{`{}`, " 45m ", 45 * time.Minute, false},
		{`{"worker_idle_exit_sec": 90}`, "soon", 90 * time.Second, true},
		{`{}`, "0s", 30 * time.Minute, true},
		{`{}`, "-5m", 30 * time.Minute, true},
	} {
		getenv := func(k string) string {
			if k == "VIBE_WORKER_IDLE_EXIT" {
				return c.env
			}
			return "off" // every other variable: must not be read
		}
		got, err := WorkerIdleExit(getenv, fromFile(c.file))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s, VIBE_WORKER_IDLE_EXIT=%q: %v, %v; want %v, error %v", c.file, c.env, got, err, c.want, c.err)
		}
	}
}

// TestSettingsFollowTheFile: the settings the resident process keeps
// between hooks are read again once config.json changes (to another text
// of the same length, or to a broken one, or away), and a caller that
// changes the breakers it got does not change what the next one gets.
func TestSettingsFollowTheFile(t *testing.T) {
	settle := filememo.Settle
	filememo.Settle = 0 // keep what this test just wrote
	t.Cleanup(func() { filememo.Settle = settle })
	p := settingsFile(t, `{"observer_every": 5}`)
	at := time.Now().Add(-time.Hour)
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(p.Settings, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Second)
		os.Chtimes(p.Settings, at, at)
	}
	write(`{"observer_every": 5}`)
	s, err := LoadSettings(p)
	if err != nil || s.ObserverEvery != 5 {
		t.Fatalf("%+v %v", s, err)
	}
	s.Breakers[integrity.DepDatabase] = integrity.ModeFail
	if s, _ := LoadSettings(p); s.ObserverEvery != 5 || s.Breakers.Mode(integrity.DepDatabase) != integrity.ModeWarn {
		t.Fatalf("unchanged file: %+v", s)
	}
	write(`{"observer_every": 7}`)
	if s, err := LoadSettings(p); err != nil || s.ObserverEvery != 7 {
		t.Fatalf("changed file: %+v %v", s, err)
	}
	write(`{"observer_every": "7"}`)
	if _, err := LoadSettings(p); err == nil {
		t.Fatal("a broken file gave no error")
	}
	os.Remove(p.Settings)
	if s, err := LoadSettings(p); err != nil || s.ObserverEvery != Defaults.ObserverEvery {
		t.Fatalf("removed file: %+v %v", s, err)
	}
}

// TestEnforcedEverywhere: VIBE_ENFORCE decides when set (case ignored), the
// "enforce" setting otherwise; the default is opted-in projects only, and
// a setting vibe does not know is refused, not read as one of the two.
func TestEnforcedEverywhere(t *testing.T) {
	everywhere := Defaults
	everywhere.Enforce = EnforceEverywhere
	for _, c := range []struct {
		env  string
		s    Settings
		want bool
	}{
		{"", Defaults, false},
		{"", everywhere, true},
		{"everywhere", Defaults, true},
		{"EVERYWHERE", Defaults, true},
		{"projects", everywhere, false},
		{"yes", Defaults, false},
	} {
		getenv := func(k string) string {
			if k == EnforceVar {
				return c.env
			}
			return ""
		}
		if got := EnforcedEverywhere(getenv, c.s); got != c.want {
			t.Errorf("VIBE_ENFORCE=%q enforce=%q: %v, want %v", c.env, c.s.Enforce, got, c.want)
		}
	}
	if Defaults.Enforce != EnforceProjects {
		t.Errorf("default enforce %q", Defaults.Enforce)
	}
	s, err := ParseSettings([]byte(`{"enforce": "everywhere"}`))
	if err != nil || s.Enforce != EnforceEverywhere {
		t.Errorf("parse: %+v %v", s, err)
	}
	if _, err := ParseSettings([]byte(`{"enforce": "always"}`)); err == nil || !strings.Contains(err.Error(), `"always" is not "projects" or "everywhere"`) {
		t.Errorf("an unknown enforce value: %v", err)
	}
}
