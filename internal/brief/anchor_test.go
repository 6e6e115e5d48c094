package brief

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// anchorFixture is one <name>.in.json of testdata/anchors: the file when the
// brief was ingested (nil: absent), the file now (nil: deleted), and the
// status the check must find.
type anchorFixture struct {
	Anchor string  `json:"anchor"`
	Before *string `json:"before"`
	After  *string `json:"after"`
	Want   string  `json:"want"`
}

type anchorGolden struct {
	Pinned     Anchor          `json:"pinned"`
	PinErrors  []string        `json:"pin_errors"`
	Result     AnchorResult    `json:"result"`
	RotVerdict verdict.Verdict `json:"rot_verdict"`
}

// files is a read function over an in-memory tree.
func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		s, ok := m[filepath.ToSlash(p)]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		return []byte(s), nil
	}
}

func runAnchorFixture(t *testing.T, fx anchorFixture) []byte {
	t.Helper()
	a, err := ParseAnchor(fx.Anchor)
	if err != nil {
		t.Fatalf("ParseAnchor: %v", err)
	}
	tree := func(s *string) map[string]string {
		if s == nil {
			return map[string]string{}
		}
		return map[string]string{"root/" + a.Path: *s}
	}
	pinned, errs := Pin("root", []Anchor{a}, files(tree(fx.Before)))
	g := anchorGolden{Pinned: pinned[0], PinErrors: []string{}}
	for _, e := range errs {
		g.PinErrors = append(g.PinErrors, e.Error())
	}
	results := CheckAnchors("root", pinned, files(tree(fx.After)))
	g.Result = results[0]
	g.RotVerdict = RotVerdict(results)
	out, err := verdict.Canonical(g)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestAnchorsGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "anchors", "*.in.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ins)
	if len(ins) < 10 {
		t.Fatalf("anchor corpus has %d fixtures, want at least 10", len(ins))
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var fx anchorFixture
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&fx); err != nil {
				t.Fatal(err)
			}
			got := runAnchorFixture(t, fx)
			if again := runAnchorFixture(t, fx); !bytes.Equal(got, again) {
				t.Fatal("second run differs")
			}
			golden := strings.TrimSuffix(in, ".in.json") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("differs from golden:\ngot  %s\nwant %s", got, want)
			}
			var g anchorGolden
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if string(g.Result.Status) != fx.Want {
				t.Errorf("status = %s, want %s (%s)", g.Result.Status, fx.Want, g.Result.Reason)
			}
			wantRot := verdict.Warn
			if fx.Want == string(Verified) {
				wantRot = verdict.Pass
			}
			if g.RotVerdict.Result != wantRot {
				t.Errorf("rot verdict = %s, want %s", g.RotVerdict.Result, wantRot)
			}
			if fx.Before != nil && fx.Want != string(Unrecorded) && (g.Pinned.Hash == "" || len(g.PinErrors) != 0) {
				t.Errorf("anchor not pinned: %+v %v", g.Pinned, g.PinErrors)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	goSrc := `package p

import "io"

type List[T any] struct{ items []T }

func (l *List[T]) Push(v T, more ...T) {}

func Copy(dst io.Writer, src io.Reader, n, m int) (written int64, err error) { return }

func Run(f func(int) error, ch <-chan string, out chan<- []byte, m map[string]*[4]int) error { return nil }

func Zero() {}

type Num interface{ ~int | ~float64; String() string }

type Alias = map[string]int

func init() {}
`
	py := "class A(Base, metaclass=M):\n    x = 1\n    def f(self, a: 'List[int]' = [1, 2,], *args, **kw) -> Dict[str, int]:  # c\n        pass\n\ndef g(a,\n      b = \"x, y\",\n      ):\n    pass\n"
	r := "  helper <- function(x) x\nhelper <- \\(x, y = c(1, 2)) {\n  x\n}\n`odd.name` <<- function(a, ...) NULL\n"
	tests := []struct {
		lang, src, sym, want string
	}{
		{LangGo, goSrc, "List.Push", "func (*List[T]) Push(T, ...T)"},
		{LangGo, goSrc, "(*List).Push", "func (*List[T]) Push(T, ...T)"},
		{LangGo, goSrc, "Copy", "func Copy(io.Writer, io.Reader, int, int) (int64, error)"},
		{LangGo, goSrc, "Run", "func Run(func(int) error, <-chan string, chan<- []byte, map[string]*[4]int) error"},
		{LangGo, goSrc, "Zero", "func Zero()"},
		{LangGo, goSrc, "List", "type List[T any] struct{items []T}"},
		{LangGo, goSrc, "Num", "type Num interface{~int | ~float64; String() string}"},
		{LangGo, goSrc, "Alias", "type Alias = map[string]int"},
		{LangGo, goSrc, "init", "func init()"},
		{LangPython, py, "A.f", "def f(self, a:'List[int]'=[1, 2], *args, **kw)->Dict[str, int]"},
		{LangPython, py, "g", `def g(a, b="x, y")`},
		{LangR, r, "helper", "helper <- function(x, y=c(1, 2))"},
		{LangR, r, "odd.name", "odd.name <- function(a, ...)"},
	}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.sym, func(t *testing.T) {
			got, ok := Signature(tt.lang, []byte(tt.src), tt.sym)
			if !ok || got != tt.want {
				t.Fatalf("Signature = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
	missing := []struct{ lang, src, sym string }{
		{LangGo, goSrc, "(List).Push"}, // pointer receiver, value asked
		{LangGo, goSrc, "Push"},        // a method is not a top-level function
		{LangGo, goSrc, "List.Pop"},
		{LangGo, goSrc, "(*).Push"}, // malformed symbol
		{LangGo, "package p\nfunc F( {", "F"},
		{LangPython, py, "f"}, // a method is not a top-level def
		{LangPython, py, "B.f"},
		{LangPython, "def h(a:\n", "h"}, // never closes
		{LangR, r, "nope"},
		{"rust", "fn main() {}", "main"},
	}
	for _, tt := range missing {
		if got, ok := Signature(tt.lang, []byte(tt.src), tt.sym); ok {
			t.Errorf("Signature(%s, %s) = %q, want not found", tt.lang, tt.sym, got)
		}
	}
}

func TestCheckAnchorsReadError(t *testing.T) {
	boom := errors.New("permission denied")
	res := CheckAnchors("/p", []Anchor{{Path: "a.go", Symbol: "F", Hash: "x"}}, func(string) ([]byte, error) { return nil, boom })
	if res[0].Status != Missing || res[0].Reason != "file a.go cannot be read: permission denied" || res[0].Anchor.Lang != LangGo {
		t.Fatalf("got %+v", res[0])
	}
	var seen string
	CheckAnchors("/p", []Anchor{{Path: "sub/a.go"}}, func(p string) ([]byte, error) { seen = p; return nil, fs.ErrNotExist })
	if seen != filepath.Join("/p", "sub", "a.go") {
		t.Fatalf("read got %q", seen)
	}
}

func TestRotVerdict(t *testing.T) {
	res := []AnchorResult{
		{Anchor: Anchor{Path: "a.go", Symbol: "F"}, Status: Verified, Hash: "h1"},
		{Anchor: Anchor{Path: "src/split.py", Symbol: "make_splits"}, Status: Drifted, Hash: "h2", Reason: "signature changed"},
		{Anchor: Anchor{Path: "src/split.py", Symbol: "other"}, Status: Missing, Reason: "gone"},
	}
	v := RotVerdict(res)
	want := "The research brief is degraded: 2 of 3 anchors no longer match the code (src/split.py#make_splits drifted, src/split.py#other missing); check that the code still follows the brief, then re-ingest it with `vibe brief ingest FILE`."
	if v.Result != verdict.Warn || v.Reason != want || v.Check != CheckAnchorsName {
		t.Fatalf("got %s %q", v.Result, v.Reason)
	}
	if len(v.Evidence.Paths) != 1 || v.Evidence.Paths[0] != "src/split.py" || len(v.Evidence.Notes) != 2 {
		t.Fatalf("evidence %+v", v.Evidence)
	}
	if p := RotVerdict(res[:1]); p.Result != verdict.Pass || p.Reason != "All 1 anchors of the research brief match the code." {
		t.Fatalf("pass: %+v", p)
	}
}
