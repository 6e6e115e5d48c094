package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestDurationDefaultInHelp: a --since with no default shows none (it
// means "all", which "(default 0s)" does not say); others show theirs in
// the units they are written in.
func TestDurationDefaultInHelp(t *testing.T) {
	var since, timeout, window time.Duration
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Var(NewDurationValue(&since, 0), "since", "only newer entries")
	fs.Var(NewDurationValue(&timeout, 10*time.Second), "timeout", "how long")
	fs.Var(NewDurationValue(&window, 7*24*time.Hour), "window", "how far back")
	want := []string{
		"      --since duration     only newer entries",
		"      --timeout duration   how long (default 10s)",
		"      --window duration    how far back (default 7d)",
	}
	if got := strings.Split(strings.TrimRight(fs.FlagUsages(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("help:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := fs.Parse([]string{"--since", "2w"}); err != nil || since != 14*24*time.Hour {
		t.Errorf("--since 2w: %v, %v", since, err)
	}
}
