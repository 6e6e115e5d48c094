package client

import (
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
)

// TestStaleByVersion: two Makefile-stamped versions that differ make a
// worker stale; an unstamped one (a plain go build) leaves the decision
// to the file's identity.
func TestStaleByVersion(t *testing.T) {
	home := t.TempDir()
	p := config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	saved := buildinfo.Version
	defer func() { buildinfo.Version = saved }()
	for _, c := range []struct {
		mine, worker string
		stale        bool
	}{
		{"v1.2-3-gabc", "v1.2-3-gabc", false},
		{"v1.2-3-gabc-dirty.0badf00d", "v1.2-3-gabc-dirty.1234abcd", true},
		{"v1.2", "devel-abc", false},
		{"devel-abc-dirty", "v1.2", false},
		{"devel", "devel", false},
	} {
		buildinfo.Version = c.mine
		why := Stale(p, "/nonexistent/"+BinaryName, Health{PID: 42, Version: c.worker})
		if (why != "") != c.stale {
			t.Errorf("mine %s, worker %s: Stale = %q, want stale %v", c.mine, c.worker, why, c.stale)
		}
		if c.stale && !strings.Contains(why, "pid 42) is build "+c.worker+", this vibe is build "+c.mine) {
			t.Errorf("reason %q does not name both builds", why)
		}
	}
}
