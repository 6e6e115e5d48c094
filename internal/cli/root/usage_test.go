package root

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/cli/session"
)

// TestUnknownSubcommandExitsTwo: a typo at any level is a usage error with
// a suggestion, never the group's help with status 0 (issue 16, finding 1:
// a CI job with `vibe gate chek` went green).
func TestUnknownSubcommandExitsTwo(t *testing.T) {
	cases := []struct {
		args    []string
		suggest string
	}{
		{[]string{"stauts"}, "status"},
		{[]string{"gate", "chek"}, "check"},
		{[]string{"memory", "imprt", "x"}, "import"},
		{[]string{"worker", "lgos"}, "logs"},
		{[]string{"permissions", "chek"}, "check"},
		{[]string{"help", "stauts"}, "status"},
		{[]string{"completion", "bsh"}, "bash"},
		// cobra answers --help before it looks at the arguments
		{[]string{"stauts", "--help"}, "status"},
		{[]string{"gate", "chek", "-h"}, "check"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, out, errOut := gateTestFactory(t, nil)
			code := Main(c.args, f)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stdout %q stderr %q", code, out, errOut)
			}
			msg := errOut.String()
			if !strings.Contains(msg, "unknown command \""+c.args[len(c.args)-1-extraArgs(c.args)]+"\"") ||
				!strings.Contains(msg, "Did you mean this?\n\t"+c.suggest+"\n") {
				t.Fatalf("stderr %q: want the unknown command and the suggestion %q", msg, c.suggest)
			}
			if out.Len() != 0 {
				t.Fatalf("stdout %q, want nothing (errors go to stderr)", out)
			}
		})
	}
}

// extraArgs is how many arguments follow the mistyped word in a case.
func extraArgs(args []string) int {
	if len(args) == 3 && args[0] == "memory" || strings.HasPrefix(args[len(args)-1], "-") {
		return 1
	}
	return 0
}

// TestUsageErrorsExitTwo: unknown flags, extra arguments and missing
// arguments are usage errors at every level, and a missing argument is
// named.
func TestUsageErrorsExitTwo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"status", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"gate", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"gate", "check", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"status", "extra"}, `"vibe status" takes no arguments, got "extra"`},
		{[]string{"alerts", "resolve"}, "missing ID\nUsage: vibe alerts resolve ID"},
		{[]string{"memory", "show"}, "missing ID\nUsage: vibe memory show ID"},
		{[]string{"brief", "ingest"}, "missing FILE\nUsage: vibe brief ingest FILE"},
		{[]string{"memory", "forget", "a", "b"}, `"vibe memory forget" takes 1 argument (ID), got 2: "a" "b"`},
		{[]string{"memory", "import"}, "missing FILE.jsonl\nUsage: vibe memory import FILE.jsonl"},
		{[]string{"model", "pull", "a", "b"}, `"vibe model pull" takes at most 1 argument ([name]), got 2: "a" "b"`},
		{[]string{"permissions", "check", "x"}, `"vibe permissions check" takes no arguments, got "x"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, errOut := gateTestFactory(t, nil)
			if code := Main(c.args, f); code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
			}
			if !strings.Contains(errOut.String(), c.want) {
				t.Fatalf("stderr %q, want it to contain %q", errOut, c.want)
			}
		})
	}
}

// TestGroupWithoutSubcommandShowsHelp: a bare group still prints its help
// and succeeds; only a wrong word is an error.
func TestGroupWithoutSubcommandShowsHelp(t *testing.T) {
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"gate"}, f); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), "Available Commands:") || !strings.Contains(out.String(), "check") {
		t.Fatalf("stdout %q, want the group's help", out)
	}
}

func TestVersionFlag(t *testing.T) {
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"--version"}, f); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out.String(), "vibe "+buildinfo.Version+" (schema ") {
		t.Fatalf("stdout %q, want the version line of `vibe version`", out)
	}
}

func TestHelpExitCodes(t *testing.T) {
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"help", "exit-codes"}, f); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	for _, want := range []string{"0  ", "1  ", "2  ", "usage"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("stdout %q, want %q", out, want)
		}
	}
}

// TestHelpEnvironmentDocumentsEveryVariable fails when the code reads a
// VIBE_* variable that `vibe help environment` does not describe.
func TestHelpEnvironmentDocumentsEveryVariable(t *testing.T) {
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"help", "environment"}, f); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	doc := out.String()
	used := map[string]bool{}
	re := regexp.MustCompile(`\bVIBE_[A-Z0-9_]*[A-Z0-9]\b`)
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		n := d.Name()
		if strings.HasSuffix(n, "_test.go") || !(strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".sh") || n == "Makefile" || n == "run") {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringIndex(string(raw), -1) {
			// "$VIBE_INSTALL" in a policy pattern is a placeholder the
			// policy expands itself, not a variable read from the
			// environment; "$VIBE_HOME" is both, and documented.
			if m[0] > 0 && raw[m[0]-1] == '$' && string(raw[m[0]:m[1]]) != "VIBE_HOME" {
				continue
			}
			used[string(raw[m[0]:m[1]])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) < 5 {
		t.Fatalf("found only %v in the code: the scan is broken", used)
	}
	var missing []string
	for v := range used {
		if !strings.Contains(doc, "\n  "+v+" ") && !strings.Contains(doc, "\n  "+v+"\n") {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("`vibe help environment` does not document %v (add them to environmentHelp)", missing)
	}
}

// TestProjectCommandsOutsideAProject: from a folder that is no vibe project
// (and from $HOME, whose ~/.vibe-science is vibe's home, not a project),
// project commands fail with exit 2 and say what to do, instead of walking
// unrelated folders or passing on nothing (issue 16, finding 2).
func TestProjectCommandsOutsideAProject(t *testing.T) {
	home := t.TempDir()
	vibeHome := filepath.Join(home, ".vibe-science")
	if err := os.MkdirAll(filepath.Join(vibeHome, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	nowhere := filepath.Join(home, "papers", "draft")
	if err := os.MkdirAll(nowhere, 0o755); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"gate", "check"}, {"gate", "check", "--format", "sarif"}, {"gate", "history"}, {"gate", "run", "DQ4"},
		{"alerts", "list"}, {"brief", "show"}, {"brief", "history"}, {"calibration"}, {"domain", "show"},
		{"domain", "validate"}, {"integrity", "check"}, {"literature", "sources"}, {"literature", "searches"},
		{"memory", "add", "a note"}, {"memory", "export"}, {"permissions", "show"},
		{"permissions", "check", "--role", "researcher", "--path", "x.md"}, {"recall", "query"}, {"seeds"},
		{"sessions", "list"}, {"spine"}, {"decisions"},
	}
	for _, dir := range []string{home, nowhere} {
		for _, args := range commands {
			t.Run(filepath.Base(dir)+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Chdir(dir)
				var out, errOut strings.Builder
				f := &cli.Factory{IO: cli.IO{Out: &out, ErrOut: &errOut}, Now: func() time.Time { return gateT0 },
					Getenv: func(k string) string {
						return map[string]string{"HOME": home, "VIBE_WORKER": "off"}[k]
					}}
				code := Main(args, f)
				if code != 2 {
					t.Fatalf("exit %d, want 2; stdout %q stderr %q", code, out.String(), errOut.String())
				}
				real, _ := filepath.EvalSymlinks(dir)
				want := "vibe: not a vibe project (no .vibe-science/ in " + real + " or above); run `vibe init` there, or pass --project DIR\n"
				if errOut.String() != want {
					t.Fatalf("stderr %q, want %q", errOut.String(), want)
				}
			})
		}
	}
	// A --project that does not exist is named as such.
	var out, errOut strings.Builder
	f := &cli.Factory{IO: cli.IO{Out: &out, ErrOut: &errOut}, Now: func() time.Time { return gateT0 },
		Getenv: func(k string) string { return map[string]string{"HOME": home, "VIBE_WORKER": "off"}[k] }}
	missing := filepath.Join(home, "no-such-analysis")
	if code := Main([]string{"citations", "--project", missing}, f); code != 2 || errOut.String() != "vibe: --project "+missing+": no such folder\n" {
		t.Errorf("--project of a missing folder: exit %d, stderr %q", code, errOut.String())
	}
}

// TestProjectFlagAndAll: --project names another project, --all spans
// every project from anywhere, and a folder below a project finds it.
func TestProjectFlagAndAll(t *testing.T) {
	proj := clitest.GateProject(t)
	nowhere := t.TempDir()
	t.Chdir(nowhere)
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"gate", "check", "--project", proj}, f); code != 0 {
		t.Fatalf("gate check --project: exit %d; stderr %q", code, errOut)
	}
	if !strings.Contains(out.String(), "PASS") {
		t.Fatalf("stdout %q, want the clean fixture to pass", out)
	}
	for _, args := range [][]string{{"sessions", "list", "--all"}, {"spine", "--all"}, {"memory", "export", "--all"}} {
		f, _, errOut := gateTestFactory(t, nil)
		if code := Main(args, f); code != 0 {
			t.Fatalf("%v: exit %d; stderr %q", args, code, errOut)
		}
	}
	sub := filepath.Join(proj, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	f, _, errOut = gateTestFactory(t, nil)
	if code := Main([]string{"gate", "check"}, f); code != 0 {
		t.Fatalf("gate check below the project: exit %d; stderr %q", code, errOut)
	}
}

// TestFlagValueErrorsAreSentences: a bad flag value says what was wanted,
// not strconv's or time's words (issue 16, finding 6), followed by the
// flag's own line of the help (not an example that fits another flag: `vibe
// ui --port abc` said "such as 20"); a mistyped flag gets a suggestion.
func TestFlagValueErrorsAreSentences(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"spine", "--all", "--limit", "abc"}, "vibe: --limit \"abc\": want a whole number\n      --limit int   how many (default 30)\nRun 'vibe spine --help' for usage.\n"},
		{[]string{"ui", "--port", "abc"}, "vibe: --port \"abc\": want a whole number\n      --port int   port on 127.0.0.1 (default: any free port)\nRun 'vibe ui --help' for usage.\n"},
		{[]string{"spine", "--all", "--since", "abc"}, "vibe: --since \"abc\": want a duration such as 90s, 30m, 24h, 7d or 2w\n      --since duration   only entries newer than this, e.g. 24h or 7d\nRun 'vibe spine --help' for usage.\n"},
		{[]string{"worker", "stop", "--timeout", "soon"}, "vibe: --timeout \"soon\": want a duration such as 90s, 30m, 24h, 7d or 2w\n      --timeout duration   how long to wait for the worker to exit (default 30s)\nRun 'vibe worker stop --help' for usage.\n"},
		{[]string{"status", "--json=maybe"}, "vibe: --json \"maybe\": want true or false\n      --json   print JSON\nRun 'vibe status --help' for usage.\n"},
		{[]string{"status", "--jsn"}, "vibe: unknown flag: --jsn\n\nDid you mean this?\n\t--json\nRun 'vibe status --help' for usage.\n"},
		{[]string{"gate", "check", "--formt", "sarif"}, "vibe: unknown flag: --formt\n\nDid you mean this?\n\t--format\nRun 'vibe gate check --help' for usage.\n"},
		{[]string{"status", "--bogus"}, "vibe: unknown flag: --bogus\nRun 'vibe status --help' for usage.\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f, _, errOut := gateTestFactory(t, nil)
			if code := Main(c.args, f); code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
			}
			if errOut.String() != c.want {
				t.Fatalf("stderr %q\nwant   %q", errOut, c.want)
			}
		})
	}
}

// TestDurationsAcceptDays: --since takes days and weeks besides Go's units.
func TestDurationsAcceptDays(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour,
		"36h": 36 * time.Hour, "1d12h": 36 * time.Hour, "1.5d": 36 * time.Hour, "90s": 90 * time.Second} {
		f, _, _ := gateTestFactory(t, nil)
		var got *session.SpineOptions
		cmd := session.NewCmdSpine(f, func(o *session.SpineOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--since", in})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("--since %s: %v", in, err)
		}
		if got.Since != want {
			t.Errorf("--since %s = %v, want %v", in, got.Since, want)
		}
	}
}
