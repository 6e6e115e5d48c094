package cli

import (
	"context"
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

// TestStoreNamesTheFile: a database that does not open is named, so a
// researcher with VIBE_HOME or VIBE_DB set knows which file it was; the
// error keeps its kind (exit 1, not usage).
func TestStoreNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	f := &Factory{Getenv: func(k string) string {
		if k == "VIBE_DB" {
			return dir
		}
		return ""
	}}
	_, err := f.Store(context.Background())
	want := "open the database " + dir + ": read schema version: database cannot be opened or written: unable to open database file: is a directory"
	if err == nil || err.Error() != want || fault.KindOf(err) != fault.Unavailable || ExitCode(err) != 1 {
		t.Errorf("Store: %v (kind %v, exit %d), want %q", err, fault.KindOf(err), ExitCode(err), want)
	}
}
