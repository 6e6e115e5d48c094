//go:build unix

package relay

import (
	"os"
	"slices"
	"testing"
)

// The environment read from the runtime is the one package os sees, the
// first of a repeated name wins (as getenv(3) and os.Getenv), and what
// setenv adds reaches Getenv and Environ (the worker's forwarded
// environment and the local handler's).
func TestProcessEnvironment(t *testing.T) {
	var p procEnv
	if got, want := p.environ(), os.Environ(); !slices.Equal(got, want) {
		t.Fatalf("environ() has %d variables, os.Environ() %d", len(got), len(want))
	}
	for _, k := range []string{"HOME", "PATH"} {
		if got := p.getenv(k); got != os.Getenv(k) {
			t.Errorf("getenv(%s) = %q, want %q", k, got, os.Getenv(k))
		}
	}
	p.vars = []string{"A=1", "AB=2", "A=3", "EMPTY="}
	for k, want := range map[string]string{"A": "1", "AB": "2", "EMPTY": "", "B": "", "": ""} {
		if got := p.getenv(k); got != want {
			t.Errorf("getenv(%q) = %q, want %q", k, got, want)
		}
	}
	p.setenv("VIBE_CLIENT", "codex")
	p.setenv("AB", "4")
	if got := p.getenv("VIBE_CLIENT"); got != "codex" {
		t.Errorf("getenv after setenv = %q", got)
	}
	if got, want := p.environ(), []string{"A=1", "AB=4", "A=3", "EMPTY=", "VIBE_CLIENT=codex"}; !slices.Equal(got, want) {
		t.Errorf("environ() = %q, want %q", got, want)
	}
}
