package root

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

// TestDocsUpToDate: docs/cli and docs/man are what the command tree
// generates now; a command or flag changed without `make docs` fails here.
func TestDocsUpToDate(t *testing.T) {
	f, _, _ := gateTestFactory(t, nil)
	fresh := t.TempDir()
	if err := genDocs(f, fresh); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "..", "docs")
	for _, sub := range []string{"cli", "man"} {
		want := readTree(t, filepath.Join(fresh, sub))
		got := readTree(t, filepath.Join(committed, sub))
		if len(want) < 20 {
			t.Fatalf("only %d %s pages generated", len(want), sub)
		}
		var stale []string
		for name, w := range want {
			if g, ok := got[name]; !ok || !bytes.Equal(g, w) {
				stale = append(stale, name)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				stale = append(stale, name+" (no such command now)")
			}
		}
		sort.Strings(stale)
		if len(stale) > 0 {
			t.Errorf("docs/%s is out of date (%s): run `make docs`", sub, strings.Join(stale, ", "))
		}
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = raw
	}
	return out
}

var gateT0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

// gateTestFactory shows tables as a 200-column terminal does (root's
// output_test.go checks the pipe form).
func gateTestFactory(t *testing.T, env map[string]string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: gateT0, Env: env, TTY: true, Width: 200})
}
