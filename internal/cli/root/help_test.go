package root

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/skill"
)

// TestHelpGroupsTheCommands: `vibe --help` opens with how to get started and
// lists every command in a group, gh-style, in the groups' order; only
// version, uninstall, help and completion are left to "Additional
// Commands" (it listed 26 commands alphabetically).
func TestHelpGroupsTheCommands(t *testing.T) {
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"--help"}, f); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	help := out.String()
	if !strings.HasPrefix(help, gettingStarted+"\n\nUsage:\n") {
		t.Fatalf("help does not open with the getting-started text:\n%s", help)
	}
	// Each heading, then its commands, up to the next blank line.
	sections := map[string][]string{}
	var order []string
	for _, block := range strings.Split(help, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) < 2 || !strings.HasSuffix(lines[0], ":") || strings.HasPrefix(lines[0], " ") {
			continue
		}
		order = append(order, lines[0])
		for _, l := range lines[1:] {
			sections[lines[0]] = append(sections[lines[0]], strings.Fields(l)[0])
		}
	}
	want := []string{"Usage:", "Getting started:", "What vibe recorded and decided:", "Memory and recall:",
		"Rules and protected files:", "Additional Commands:", "Flags:", "Additional help topics:"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("sections %q, want %q", order, want)
	}
	for heading, cmds := range map[string]string{
		"Getting started:":                "doctor init setup status ui",
		"What vibe recorded and decided:": "alerts calibration citations decisions export gate integrity literature repro seeds sessions spine",
		"Memory and recall:":              "memory model recall worker",
		"Rules and protected files:":      "brief domain permissions tamper",
		"Additional Commands:":            "completion help uninstall version",
		"Additional help topics:":         "vibe vibe vibe vibe",
	} {
		if got := strings.Join(sections[heading], " "); got != cmds {
			t.Errorf("%s %q, want %q", heading, got, cmds)
		}
	}
}

// TestTemplatesPointAtFormatsAUserCanOpen: every format a project template
// names (`vibe help formats NAME`) prints that format's document, from the
// copy built into vibe: the templates named skill/vibe/formats/..., a path
// only the plugin's checkout has.
func TestTemplatesPointAtFormatsAUserCanOpen(t *testing.T) {
	pointer := regexp.MustCompile("`vibe help formats ([a-z-]+)`")
	found := 0
	err := filepath.WalkDir(filepath.Join("..", "..", "scaffold", "templates"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(raw), "skill/vibe/formats") {
			t.Errorf("%s points at skill/vibe/formats, which a project does not have", p)
		}
		for _, m := range pointer.FindAllStringSubmatch(string(raw), -1) {
			found++
			doc, err := fs.ReadFile(skill.FS, "vibe/formats/"+m[1]+".md")
			if err != nil {
				t.Errorf("%s names format %q: %v", p, m[1], err)
				continue
			}
			f, out, errOut := gateTestFactory(t, nil)
			if code := Main([]string{"help", "formats", m[1]}, f); code != 0 {
				t.Fatalf("vibe help formats %s: exit %d; stderr %q", m[1], code, errOut)
			}
			if out.String() != strings.TrimSpace(string(doc))+"\n" {
				t.Errorf("vibe help formats %s printed\n%.300s\nnot its document", m[1], out)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Fatalf("%d pointers found in the templates, want the 5 of the ledger, findings, design, dictionary and seeds", found)
	}
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"help", "formats"}, f); code != 0 || !strings.Contains(out.String(), "  vibe help formats claim-ledger     The claim ledger: CLAIM-LEDGER.md\n") {
		t.Fatalf("vibe help formats: exit %d, stdout\n%s\nstderr %q", code, out, errOut)
	}
	f, _, errOut = gateTestFactory(t, nil)
	if code := Main([]string{"help", "formats", "clam-ledger"}, f); code != 2 ||
		errOut.String() != "vibe: no topic \"clam-ledger\" in `vibe help formats`\n\nDid you mean this?\n\tclaim-ledger\nRun 'vibe help formats' for the list.\n" {
		t.Fatalf("a mistyped format: exit %d, stderr %q", code, errOut)
	}
}

// TestMessagesPointAtSchemasAUserCanOpen: the schema a promotion message
// names (`vibe help schemas NAME`) prints that schema, from the copy built
// into vibe, and the topic lists every schema the skill holds.
func TestMessagesPointAtSchemasAUserCanOpen(t *testing.T) {
	raw, err := fs.ReadFile(skill.FS, "vibe/schemas/claim-promotion.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	f, out, errOut := gateTestFactory(t, nil)
	if code := Main([]string{"help", "schemas", "claim-promotion"}, f); code != 0 {
		t.Fatalf("vibe help schemas claim-promotion: exit %d; stderr %q", code, errOut)
	}
	if out.String() != strings.TrimSpace(string(raw))+"\n" {
		t.Errorf("vibe help schemas claim-promotion printed\n%.300s\nnot the schema", out)
	}
	f, out, _ = gateTestFactory(t, nil)
	Main([]string{"help", "schemas"}, f)
	entries, _ := fs.ReadDir(skill.FS, "vibe/schemas")
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".schema.json"); ok && !strings.Contains(out.String(), "vibe help schemas "+name+" ") {
			t.Errorf("vibe help schemas does not list %s", name)
		}
	}
}
