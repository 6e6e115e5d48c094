package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vibe-science/vibe/internal/fault"
)

// TestExitCode: the one table from errors to exit codes (0 ok, 1 a check
// failed or something went wrong, 2 usage), through wrapping.
func TestExitCode(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"usage", &UsageError{Err: errors.New("missing ID")}, 2},
		{"wrapped usage", fmt.Errorf("gate run: %w", &UsageError{Err: errors.New("x")}), 2},
		{"invalid input", fault.Errorf(fault.Invalid, "memory id", "%q is not a memory id", "x"), 2},
		{"not found", fault.Errorf(fault.NotFound, "session", "no session %q", "zz"), 1},
		{"failed check", errors.New("2 check(s) failed"), 1},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
}
