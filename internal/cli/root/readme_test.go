package root

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestREADMEListsEveryCommand: the README's command table names exactly
// the commands `vibe --help` lists (it named 6 of 22 once).
func TestREADMEListsEveryCommand(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	start := strings.Index(readme, "\n## The vibe command\n")
	if start < 0 {
		t.Fatal(`README.md has no "## The vibe command" section`)
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `vibe ([a-z-]+)").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}

	f, _, _ := gateTestFactory(t, nil)
	root := NewRootCmd(f)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	listed := map[string]bool{}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" {
			listed[c.Name()] = true
		}
	}
	var missing, extra []string
	for n := range listed {
		if !documented[n] {
			missing = append(missing, n)
		}
	}
	for n := range documented {
		if !listed[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("README's command table: missing %v, names commands that do not exist %v", missing, extra)
	}
}

// TestREADMECommandsAreReal: every `vibe …` the README shows in a code span
// or a shell block names a real command and subcommand, and each --flag
// after it is a flag of that command (or a global one); the README stays a
// guide of at most 250 lines.
func TestREADMECommandsAreReal(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it a guide of at most 250 (details go under docs/)", n)
	}
	f, _, _ := gateTestFactory(t, nil)
	root := NewRootCmd(f)
	root.InitDefaultHelpCmd()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	checked := 0
	for _, use := range readmeVibeUses(string(raw)) {
		if problem := checkUse(root, use); problem != "" {
			t.Errorf("README: `%s`: %s", strings.Join(use, " "), problem)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d vibe commands found in README.md: the parser lost them", checked)
	}
}

// readmeVibeUses returns the words of every `vibe …` in the README's code
// spans and fenced blocks, up to a word that is neither a command nor a
// flag (an argument, a comment, a pipe).
func readmeVibeUses(md string) [][]string {
	var texts []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			texts = append(texts, line)
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(line, -1) {
			texts = append(texts, m[1])
		}
	}
	var out [][]string
	for _, t := range texts {
		fields := strings.Fields(t)
		for i, w := range fields {
			if w != "vibe" || (i > 0 && !strings.HasSuffix(fields[i-1], "&&") && fields[i-1] != "&&") {
				continue
			}
			out = append(out, fields[i:])
		}
	}
	return out
}

// checkUse walks the command tree along use and checks its flags; "" when
// all is well.
func checkUse(root *cobra.Command, use []string) string {
	cmd := root
	for _, w := range use[1:] {
		if strings.HasPrefix(w, "-") {
			name := strings.TrimLeft(strings.SplitN(w, "=", 2)[0], "-")
			if name == "" || strings.HasPrefix(w, "---") {
				continue
			}
			if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil && (len(name) != 1 || cmd.Flags().ShorthandLookup(name) == nil) {
				return fmt.Sprintf("%q has no flag --%s", cmd.CommandPath(), name)
			}
			continue
		}
		if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
			break // an argument: a path, a placeholder, a pipe
		}
		sub, _, err := cmd.Find([]string{w})
		if err != nil || sub == cmd {
			if cmd.HasSubCommands() && cmd == root {
				return fmt.Sprintf("no command %q", w)
			}
			break // a word argument (a query, a name)
		}
		cmd = sub
	}
	return ""
}
