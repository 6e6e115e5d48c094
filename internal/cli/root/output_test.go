package root

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// TestTableInARealTerminal runs the built vibe in tmux (a real terminal, 70
// columns): the table is aligned and cut to the width. The same command in
// a pipe prints whole values, tab-separated.
func TestTableInARealTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux is not installed (apt-get install tmux): the real-terminal check did not run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vibe")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vibe")
	build.Dir = filepath.Join("..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build vibe: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	args := []string{"literature", "sources", "--domain", "generic"}

	sock := "vibe-test-" + filepath.Base(dir)
	tm := func(a ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, a...)...).CombinedOutput()
		return string(out), err
	}
	shell := "VIBE_HOME=" + home + " " + bin + " " + strings.Join(args, " ") + "; sleep 60"
	if out, err := tm("new-session", "-d", "-x", "70", "-y", "40", "-s", "t", shell); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	var screen string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		screen, _ = tm("capture-pane", "-p", "-t", "t")
		if strings.Contains(screen, "preprints") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var head, row string
	for _, line := range strings.Split(screen, "\n") {
		if utf8.RuneCountInString(line) > 70 {
			t.Errorf("line wider than the terminal: %q", line)
		}
		if strings.HasPrefix(line, "GROUP") {
			head = line
		}
		if strings.HasPrefix(line, "primary") && strings.Contains(line, "openalex") {
			row = line
		}
	}
	if head == "" || row == "" {
		t.Fatalf("no table on the screen:\n%s", screen)
	}
	if strings.Index(head, "ID") != strings.Index(row, "openalex") || strings.Index(head, "NAME") != strings.Index(row, "OpenAlex") {
		t.Errorf("columns not aligned:\n%s\n%s", head, row)
	}
	if !strings.Contains(screen, "…") || strings.Contains(screen, "\t") {
		t.Errorf("want cut cells and no tabs on the terminal:\n%s", screen)
	}

	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "VIBE_HOME="+home)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("piped: %v", err)
	}
	for _, want := range []string{"GROUP\tID\tNAME\tACCESS\tAPI\tMCP SERVER\tURL\n",
		"primary\tsemantic_scholar\tSemantic Scholar\tfree\tREST\topenags/paper-search-mcp\thttps://www.semanticscholar.org\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("piped output lacks %q:\n%s", want, out)
		}
	}
}

// TestEveryCommandTakesJSON: every command that prints something a script
// may read takes --json (issue 16, finding 6).
func TestEveryCommandTakesJSON(t *testing.T) {
	f, _, _ := gateTestFactory(t, nil)
	// These are not listings: help, a one-line confirmation, validators
	// whose answer is their exit status and messages, and a command whose
	// output is JSON already.
	exempt := map[string]bool{"vibe help": true, "vibe worker stop": true, "vibe memory forget": true,
		"vibe brief ingest": true, "vibe brief validate": true, "vibe domain validate": true, "vibe permissions show": true,
		"vibe export": true /* writes Markdown; the listings it draws on take --json */, "vibe ui": true /* serves pages until stopped */, "vibe tamper accept": true /* a confirmation */, "vibe tamper restore": true, /* a confirmation */
		"vibe citations add": true /* a confirmation */}
	var missing []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.HasSubCommands() || c.Hidden || exempt[c.CommandPath()] || strings.HasPrefix(c.CommandPath(), "vibe completion") {
			return
		}
		if c.Flags().Lookup("json") == nil && c.Flags().Lookup("format") == nil {
			missing = append(missing, c.CommandPath())
		}
	}
	walk(NewRootCmd(f))
	if len(missing) > 0 {
		t.Fatalf("without --json: %v", missing)
	}
}
