package brief

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to both readers: Parse must not panic,
// must be deterministic, and must always return non-nil lists.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"crispr.md", "crispr.json", "broken.md", "broken.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "briefs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte("# Brief: x\n## Constraints\n### A: b\n- applies-to: a#b, **/c\n  - d\n"))
	f.Add([]byte(`{"anchors":[{"path":"a.go","symbol":"(*T).M"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"b.md", "b.json", "b"} {
			b1, e1 := Parse(name, data)
			b2, e2 := Parse(name, data)
			if !reflect.DeepEqual(b1, b2) || len(e1) != len(e2) {
				t.Fatalf("Parse(%s) is not deterministic", name)
			}
			if b1.Constraints == nil || b1.Decisions == nil || b1.Anchors == nil {
				t.Fatalf("Parse(%s) returned a nil list", name)
			}
			_ = Validate(b1)
			_ = b1.Context(50, 3)
			for _, c := range b1.Constraints {
				for _, tgt := range c.AppliesTo {
					_ = b1.Applicable(strings.Split(tgt, "#")[0], nil)
				}
			}
		}
	})
}

// FuzzSignature feeds arbitrary sources and symbols to every reader: no
// panic, the same answer twice, and a found signature is one normalised line.
func FuzzSignature(f *testing.F) {
	dir := filepath.Join("testdata", "anchors")
	ins, _ := filepath.Glob(filepath.Join(dir, "*.in.json"))
	for _, in := range ins {
		raw, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, "Score")
	}
	f.Add([]byte("def f(a, b=')', *c) -> 'x:y':\n  pass\n"), "f")
	f.Add([]byte("class C:\n    def m(self, x=(1,\n 2)):\n        pass\n"), "C.m")
	f.Add([]byte("f <- function(x = \"(\", y) # )\n{ x }\n"), "f")
	f.Add([]byte("package p\nfunc (t *T[K, V]) M(a, b int, c ...string) (x, y error) {}\n"), "T.M")
	f.Fuzz(func(t *testing.T, src []byte, sym string) {
		for _, lang := range []string{LangGo, LangPython, LangR} {
			s1, ok1 := Signature(lang, src, sym)
			s2, ok2 := Signature(lang, src, sym)
			if s1 != s2 || ok1 != ok2 {
				t.Fatalf("Signature(%s, %q) is not deterministic", lang, sym)
			}
			if !ok1 {
				continue
			}
			if lang != LangGo && (strings.ContainsAny(s1, "\n\r\t") && !strings.ContainsAny(sym, "\n")) {
				// Line breaks survive only inside string literals.
				if !strings.ContainsAny(s1, `"'`) {
					t.Fatalf("Signature(%s, %q) = %q is not one line", lang, sym, s1)
				}
			}
			if s1 == "" {
				t.Fatalf("Signature(%s, %q) found an empty signature", lang, sym)
			}
		}
	})
}
