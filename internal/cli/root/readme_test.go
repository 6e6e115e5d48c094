package root

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
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
