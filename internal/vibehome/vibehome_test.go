package vibehome

import (
	"path/filepath"
	"testing"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

// TestResolveMatchesFilepath: the paths are what filepath.Join gives for
// the usual (clean) homes, including a trailing separator and the root.
func TestResolveMatchesFilepath(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		home string
	}{
		{"VIBE_HOME", map[string]string{"VIBE_HOME": "/data/vibe", "HOME": "/home/r"}, "/data/vibe"},
		{"VIBE_HOME with a trailing slash", map[string]string{"VIBE_HOME": "/data/vibe/"}, "/data/vibe"},
		{"HOME", map[string]string{"HOME": "/home/r"}, "/home/r/.vibe-science"},
		{"HOME is the root", map[string]string{"HOME": "/"}, "/.vibe-science"},
		{"no home at all", map[string]string{}, ".vibe-science"},
	} {
		p := Resolve(env(tc.env))
		if filepath.Clean(p.Home) != tc.home {
			t.Errorf("%s: home %q, want %q", tc.name, p.Home, tc.home)
		}
		if s := Socket(env(tc.env)); s != p.Socket { // the hook binaries' shortcut
			t.Errorf("%s: Socket %q, Resolve's %q", tc.name, s, p.Socket)
		}
		for got, want := range map[string]string{
			p.DB: filepath.Join(tc.home, "db", "vibe-science.db"), p.Socket: filepath.Join(tc.home, "worker.sock"),
			p.Logs: filepath.Join(tc.home, "logs"), p.Models: filepath.Join(tc.home, "models"),
			p.PIDFile: filepath.Join(tc.home, "worker.pid"), p.LockFile: filepath.Join(tc.home, "worker.lock"),
			p.Settings: filepath.Join(tc.home, "config.json"),
		} {
			if got != want {
				t.Errorf("%s: %q, want %q", tc.name, got, want)
			}
		}
	}
}

func TestVibeDBOverridesTheDatabase(t *testing.T) {
	p := Resolve(env(map[string]string{"VIBE_HOME": "/v", "VIBE_DB": "/elsewhere/x.db"}))
	if p.DB != "/elsewhere/x.db" || p.Socket != "/v/worker.sock" {
		t.Errorf("%+v", p)
	}
}

// TestOptedIn: the rule over a made-up tree; vibe's home and a folder
// holding a database are no project.
func TestOptedIn(t *testing.T) {
	dirs := map[string]bool{"/r/.vibe-science": true, "/h/.vibe-science": true, "/h/.vibe-science/db": true,
		"/o/.vibe-science": true, "/o/.vibe-science/db": true}
	isDir := func(p string) bool { return dirs[p] }
	for _, c := range []struct {
		root string
		want bool
	}{
		{"/r", true}, {"/r/a/b", true}, {"/p/q", false}, {"/h/code", false}, {"/o/code", false}, {"/", false}, {"", false},
	} {
		if got := OptedIn(c.root, "/h/.vibe-science", isDir); got != c.want {
			t.Errorf("OptedIn(%q) = %v, want %v", c.root, got, c.want)
		}
	}
	delete(dirs, "/h/.vibe-science/db") // a home with no database yet is still the home
	if OptedIn("/h/code", "/h/.vibe-science", isDir) {
		t.Error("VIBE_HOME opted in the projects below its parent")
	}
	for in, want := range map[string]string{"/a/b": "/a", "/a": "/", "/": "/", "a": "a"} {
		if got := parentDir(in); got != want {
			t.Errorf("parentDir(%q) = %q, want %q", in, got, want)
		}
	}
}
