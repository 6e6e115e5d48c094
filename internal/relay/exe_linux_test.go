package relay

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A hook binary finds itself: from argv[0] when that is the file, through
// /proc/self/exe when argv[0] is a link to it or a bare name, so the
// daemon is always looked for beside the real binary.
func TestExecutableIsTheRealFile(t *testing.T) {
	if os.Getenv("VIBE_TEST_PRINT_EXE") == "1" {
		exe, err := executable()
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("EXE=" + exe + "\n")
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "hook-link")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, argv0, want string }{
		{"the file itself", self, self},
		{"a link to it", link, self},
		{"a bare name", "hook", self},
	} {
		cmd := exec.Command(self, "-test.run=^TestExecutableIsTheRealFile$")
		cmd.Args[0] = c.argv0
		cmd.Env = append(os.Environ(), "VIBE_TEST_PRINT_EXE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		_, got, _ := strings.Cut(string(out), "EXE=")
		got, _, _ = strings.Cut(got, "\n")
		if got != c.want {
			t.Errorf("%s (argv[0] %s): executable() = %q, want %q", c.name, c.argv0, got, c.want)
		}
	}
}
