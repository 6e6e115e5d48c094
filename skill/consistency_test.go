package skill_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/skill"
)

// TestGatesDocumentMatchesRegistry holds gates.md to the code's gate
// registry in both directions: the same ids in the same order, the same
// enforcement level, and for schema gates the same schema file, which must
// exist in the embedded skill.
func TestGatesDocumentMatchesRegistry(t *testing.T) {
	raw, err := fs.ReadFile(skill.FS, "vibe/gates.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## (\S+) `)
	enforcement := regexp.MustCompile("^- \\*\\*Enforcement:\\*\\* (code|schema|prompt)(?: \\(`([a-z0-9-]+\\.schema\\.json)`\\))?$")
	type docGate struct{ kind, schema string }
	var docIDs []string
	doc := map[string]docGate{}
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			cur = m[1]
			docIDs = append(docIDs, cur)
			continue
		}
		if m := enforcement.FindStringSubmatch(line); m != nil && cur != "" {
			doc[cur] = docGate{m[1], m[2]}
		}
	}
	var codeIDs []string
	for _, g := range gate.Registry() {
		codeIDs = append(codeIDs, g.ID)
		d, ok := doc[g.ID]
		if !ok {
			t.Errorf("gate %s is in the registry but not in gates.md (or has no Enforcement line)", g.ID)
			continue
		}
		if d.kind != string(g.Kind) {
			t.Errorf("gate %s: gates.md says %s, the registry %s", g.ID, d.kind, g.Kind)
		}
		if d.schema != g.Schema {
			t.Errorf("gate %s: gates.md names schema %q, the registry %q", g.ID, d.schema, g.Schema)
		}
		if g.Schema != "" {
			if _, err := fs.Stat(skill.FS, "vibe/schemas/"+g.Schema); err != nil {
				t.Errorf("gate %s names %s, which the skill does not ship", g.ID, g.Schema)
			}
		}
	}
	if strings.Join(docIDs, " ") != strings.Join(codeIDs, " ") {
		t.Errorf("gates.md ids %v\nregistry ids %v", docIDs, codeIDs)
	}
}
