package client

import (
	"strings"
	"testing"
)

const samplePatch = `*** Begin Patch
*** Add File: results/new.md
+# New
+line two
*** Delete File: old.txt
*** Update File: src/a.py
*** Move to: src/b.py
@@ def f():
-    return 1
+    return 2
*** Update File: notes.md
 alpha
-beta
+BETA
*** End of File
*** End Patch`

func TestParsePatch(t *testing.T) {
	cs, err := ParsePatch(samplePatch)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 4 {
		t.Fatalf("%d changes: %+v", len(cs), cs)
	}
	if cs[0].Op != PatchAdd || cs[0].Path != "results/new.md" || cs[0].Content != "# New\nline two\n" {
		t.Errorf("add: %+v", cs[0])
	}
	if cs[1].Op != PatchDelete || cs[1].Path != "old.txt" {
		t.Errorf("delete: %+v", cs[1])
	}
	if c := cs[2]; c.Op != PatchUpdate || c.MoveTo != "src/b.py" || len(c.Chunks) != 1 || c.Chunks[0].Anchor != "def f():" ||
		strings.Join(c.Chunks[0].Old, "|") != "    return 1" || strings.Join(c.Chunks[0].New, "|") != "    return 2" {
		t.Errorf("update+move: %+v", c)
	}
	if c := cs[3]; len(c.Chunks) != 1 || !c.Chunks[0].AtEOF || strings.Join(c.Chunks[0].Old, "|") != "alpha|beta" {
		t.Errorf("update: %+v", c)
	}
}

func TestParsePatchRejects(t *testing.T) {
	cases := map[string]string{
		"no begin":        "*** Add File: a\n+x\n*** End Patch",
		"no end":          "*** Begin Patch\n*** Add File: a\n+x",
		"no file":         "*** Begin Patch\n*** End Patch",
		"body before":     "*** Begin Patch\nhello\n*** End Patch",
		"bad add line":    "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
		"bad update line": "*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch",
		"empty update":    "*** Begin Patch\n*** Update File: a\n*** End Patch",
		"move in add":     "*** Begin Patch\n*** Add File: a\n*** Move to: b\n*** End Patch",
	}
	for name, p := range cases {
		if _, err := ParsePatch(p); err == nil {
			t.Errorf("%s: accepted %q", name, p)
		}
	}
}

func TestApply(t *testing.T) {
	cs, _ := ParsePatch(samplePatch)
	got, err := cs[2].Apply("def g():\n    return 1\ndef f():\n    return 1\n")
	if err != nil || got != "def g():\n    return 1\ndef f():\n    return 2\n" {
		t.Errorf("anchored hunk: %q %v", got, err)
	}
	got, err = cs[3].Apply("alpha\nbeta\nalpha\nbeta\n")
	if err != nil || got != "alpha\nbeta\nalpha\nBETA\n" {
		t.Errorf("end-of-file hunk: %q %v", got, err)
	}
	got, err = cs[3].Apply("alpha  \nbeta\n")
	if err != nil || got != "alpha\nBETA\n" {
		t.Errorf("trailing whitespace tolerated like Codex: %q %v", got, err)
	}
	if _, err := cs[3].Apply("gamma\n"); err == nil || !strings.Contains(err.Error(), "hunk 1 of notes.md") {
		t.Errorf("a hunk that does not fit must fail: %v", err)
	}
	add, _ := ParsePatch("*** Begin Patch\n*** Update File: x\n@@\n+tail\n*** End Patch")
	if got, _ := add[0].Apply("head\n"); got != "head\ntail\n" {
		t.Errorf("pure addition: %q", got)
	}
}

func FuzzParsePatch(f *testing.F) {
	f.Add(samplePatch)
	f.Fuzz(func(t *testing.T, p string) {
		cs, err := ParsePatch(p)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Path == "" {
				t.Fatalf("a change without a path from %q", p)
			}
			_, _ = c.Apply("a\nb\n")
		}
	})
}
