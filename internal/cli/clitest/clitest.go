package clitest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
)

// Options describe the factory a test wants; the zero value is a pipe
// (no TTY), an empty stdin, a fresh VIBE_HOME and no other variables.
type Options struct {
	// Now is the factory's clock (zero: time.Now).
	Now time.Time
	// Env is the environment besides VIBE_HOME; a VIBE_HOME here wins
	// over the temporary one.
	Env map[string]string
	// TTY and Width make Out a terminal of that many columns.
	TTY   bool
	Width int
	// In is stdin (nil: empty).
	In io.Reader
}

// New is a Factory whose stdout and stderr are the returned buffers and
// whose VIBE_HOME is a temporary folder; the factory is closed when the
// test ends.
func New(t testing.TB, o Options) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	in := o.In
	if in == nil {
		in = &bytes.Buffer{}
	}
	var out, errOut bytes.Buffer
	now := time.Now
	if !o.Now.IsZero() {
		now = func() time.Time { return o.Now }
	}
	f := &cli.Factory{
		IO:  cli.IO{In: in, Out: &out, ErrOut: &errOut, TTY: o.TTY, Width: o.Width},
		Now: now,
		Getenv: func(k string) string {
			if v, ok := o.Env[k]; ok {
				return v
			}
			if k == "VIBE_HOME" {
				return home
			}
			return ""
		},
	}
	t.Cleanup(f.Close)
	return f, &out, &errOut
}

// Project is a new project folder (with .vibe-science/), its path with
// symbolic links resolved as the commands resolve it.
func Project(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return MkVibeDir(t, root)
}

// MkVibeDir makes dir a project folder (creates dir/.vibe-science) and
// returns dir.
func MkVibeDir(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".vibe-science"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Main runs args against a `vibe` tree holding only cmds, the way the
// whole tree runs them (usage errors, "vibe: " on stderr, exit codes), and
// returns the exit code. It closes f's store, as `vibe` does.
func Main(f *cli.Factory, args []string, cmds ...*cobra.Command) int {
	root := cli.NewRoot(f)
	root.AddCommand(cmds...)
	cli.FinishTree(root)
	return cli.Run(f, root, args)
}

// JSONTimeFields fails t for a field of one of types (struct values) that
// holds a time under a JSON name other than <something>_at, or as anything
// but an RFC 3339 string: every time in --json output is one (they were
// "time", "at", "started_at" and epoch milliseconds).
func JSONTimeFields(t testing.TB, types ...any) {
	t.Helper()
	for _, v := range types {
		typ := reflect.TypeOf(v)
		for i := 0; i < typ.NumField(); i++ {
			fl := typ.Field(i)
			name, _, _ := strings.Cut(fl.Tag.Get("json"), ",")
			isTime := name == "time" || name == "at" || strings.HasSuffix(name, "_at")
			if !isTime {
				continue
			}
			if !strings.HasSuffix(name, "_at") || name == "_at" {
				t.Errorf("%s.%s: json %q, want a name ending in _at", typ.Name(), fl.Name, name)
			}
			if k := fl.Type.Kind(); k != reflect.String && !(k == reflect.Pointer && fl.Type.Elem().Kind() == reflect.String) {
				t.Errorf("%s.%s: %s, want an RFC 3339 string", typ.Name(), fl.Name, fl.Type)
			}
		}
	}
}

// Parse runs cmd (a command built with a runF that records its Options)
// on argv, its own output discarded, and returns its error: the first
// half of a command's tests, argv → Options.
func Parse(cmd *cobra.Command, argv ...string) error {
	cmd.SetArgs(argv)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

// FlagCase is one argv → Options case: Want is the Options runF receives
// (with the dependencies cleared), or Err a part of the error expected
// instead.
type FlagCase[O any] struct {
	Argv []string
	Want O
	Err  string
}

// Flags checks each case against the command newCmd builds around its
// runF; clear zeroes what is not a flag (IO, the dependencies) before the
// comparison.
func Flags[O any](t *testing.T, newCmd func(runF func(*O) error) *cobra.Command, clear func(*O), cases []FlagCase[O]) {
	t.Helper()
	for _, c := range cases {
		var got *O
		err := Parse(newCmd(func(o *O) error { got = o; return nil }), c.Argv...)
		if c.Err != "" {
			if err == nil || !strings.Contains(err.Error(), c.Err) {
				t.Errorf("%q: err %v, want %q", c.Argv, err, c.Err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.Argv, err)
			continue
		}
		clear(got)
		if !reflect.DeepEqual(*got, c.Want) {
			t.Errorf("%q:\ngot  %+v\nwant %+v", c.Argv, *got, c.Want)
		}
	}
}

// Built is the Options newCmd fills in for argv, its runF recording them
// instead of running: an Options → output test starts from them (every
// dependency taken from the factory, as `vibe` takes it) and replaces the
// ones it fakes.
func Built[O any](t testing.TB, newCmd func(runF func(*O) error) *cobra.Command, argv ...string) *O {
	t.Helper()
	var got *O
	if err := Parse(newCmd(func(o *O) error { got = o; return nil }), argv...); err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return got
}

// Wired fails t for each func field of the Options struct *o left nil: a
// dependency the command's constructor forgot to take from the factory.
func Wired(t testing.TB, o any) {
	t.Helper()
	v := reflect.ValueOf(o).Elem()
	for i := 0; i < v.NumField(); i++ {
		if fl := v.Field(i); fl.Kind() == reflect.Func && fl.IsNil() {
			t.Errorf("%s.%s is nil: its constructor does not set it", v.Type().Name(), v.Type().Field(i).Name)
		}
	}
}
