package brief

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

type briefGolden struct {
	Brief          Brief    `json:"brief"`
	ParseErrors    []string `json:"parse_errors"`
	ValidateErrors []string `json:"validate_errors"`
}

func errStrings(errs []error) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestBriefsGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "briefs", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ins)
	n := 0
	for _, in := range ins {
		if strings.HasSuffix(in, ".golden.json") {
			continue
		}
		n++
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			run := func() []byte {
				b, perrs := Parse(name, raw)
				out, err := verdict.Canonical(briefGolden{b, errStrings(perrs), errStrings(Validate(b))})
				if err != nil {
					t.Fatal(err)
				}
				return append(out, '\n')
			}
			got := run()
			if !bytes.Equal(got, run()) {
				t.Fatal("second run differs")
			}
			golden := filepath.Join("testdata", "briefs", strings.ReplaceAll(name, ".", "_")+".golden.json")
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
		})
	}
	if n < 5 {
		t.Fatalf("brief corpus has %d inputs, want 5", n)
	}
}

func readBrief(t *testing.T, name string) Brief {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "briefs", name))
	if err != nil {
		t.Fatal(err)
	}
	b, errs := Parse(name, raw)
	if len(errs) != 0 {
		t.Fatalf("Parse(%s): %v", name, errs)
	}
	if verrs := Validate(b); len(verrs) != 0 {
		t.Fatalf("Validate(%s): %v", name, verrs)
	}
	return b
}

func TestParseMarkdown(t *testing.T) {
	b := readBrief(t, "crispr.md")
	if b.Title != "CRISPR off-target scoring" || b.Source != "crispr.md" || len(b.Hash) != 64 {
		t.Fatalf("head: %q %q %q", b.Title, b.Source, b.Hash)
	}
	want := []Constraint{
		{ID: "BC-001", Title: "Never train on the held-out guides", Severity: Critical, Action: Block,
			AppliesTo: []string{"src/split.py#make_splits", "data/heldout/**"},
			Rationale: "the held-out guides are the only measure of generalisation to unseen guides.",
			Source:    "Lab review 2026-01, section 3"},
		{ID: "BC-002", Title: "Report AUC with its confidence interval", Severity: High, Action: WarnAndConfirm,
			AppliesTo: []string{"internal/score/score.go#Score", "reports/*.md"}},
		{ID: "BC-003", Title: "Keep the CFD matrix as published", Severity: Medium, Action: WarnOnly,
			AppliesTo: []string{"data/cfd/"}, Rationale: "The published matrix is the reference every comparison uses."},
		{ID: "BC-004", Title: "Log every threshold change", Severity: Low, Action: LogOnly,
			AppliesTo: []string{".vibe-science/domain-config.json"}},
	}
	if !reflect.DeepEqual(b.Constraints, want) {
		t.Fatalf("constraints:\ngot  %+v\nwant %+v", b.Constraints, want)
	}
	wantD := []Decision{
		{ID: "AD-001", Title: "Use guide-held-out splitting", Date: "2026-01-10", Status: Accepted,
			Text: "split by guide, never by site.", Rationale: "sites of one guide share sequence."},
		{ID: "AD-002", Title: "Drop the Hsu 2013 matrix", Date: "2026-02-01", Status: Superseded},
	}
	if !reflect.DeepEqual(b.Decisions, wantD) {
		t.Fatalf("decisions:\ngot  %+v\nwant %+v", b.Decisions, wantD)
	}
	var anchors []string
	for _, a := range b.Anchors {
		anchors = append(anchors, a.String()+"/"+a.Lang)
	}
	wantA := []string{"src/split.py#make_splits/python", "internal/store/store.go#(*Store).Get/go", "internal/score/score.go#Score/go"}
	if !reflect.DeepEqual(anchors, wantA) {
		t.Fatalf("anchors = %v, want %v (applies-to anchors must be added)", anchors, wantA)
	}
}

func TestParseJSONMatchesMarkdown(t *testing.T) {
	md := readBrief(t, "crispr.md")
	js := readBrief(t, "crispr.json")
	if !reflect.DeepEqual(js.Constraints, md.Constraints[:2]) {
		t.Fatalf("JSON constraints differ:\n%+v\n%+v", js.Constraints, md.Constraints[:2])
	}
	if js.Decisions[0].Status != Accepted || !reflect.DeepEqual(js.Decisions[0], Decision{ID: "AD-001", Title: "Use guide-held-out splitting", Date: "2026-01-10", Status: Accepted, Text: "split by guide, never by site."}) {
		t.Fatalf("decision %+v", js.Decisions[0])
	}
	if js.Anchors[1].Hash != "abc" || js.Anchors[1].Lang != LangGo || js.Anchors[0].Symbol != "make_splits" {
		t.Fatalf("anchors %+v", js.Anchors)
	}
	// A brief written back as JSON reads the same.
	raw, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	back, errs := Parse("export.json", raw)
	back.Source, back.Hash = md.Source, md.Hash
	if len(errs) != 0 || !reflect.DeepEqual(back, md) {
		t.Fatalf("round trip: %v\n%+v\n%+v", errs, back, md)
	}
	// Without an extension the content decides.
	if b, errs := Parse("brief", raw); len(errs) != 0 || len(b.Constraints) != 4 {
		t.Fatalf("sniffed JSON: %v %d", errs, len(b.Constraints))
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"a.md", "# Brief: x\n## Constraints\n### BC-1: t\n- colour: red\n", []string{`a.md:4: unknown field "colour" in constraint BC-1: use severity, action, applies-to, rationale or source`}},
		{"a.md", "# Brief: x\n## Constraints\n### no-title-here\n", []string{`a.md:3: heading "no-title-here" has no "ID: Title" form: write it as "### BC-001: <title>"`}},
		{"a.json", `{"title":"x","constraints":[{"id":"a","applies-to":[]}]}`, []string{`a.json: json: unknown field "applies-to": the known fields are title, constraints (id, title, severity, action, applies_to, rationale, source), decisions (id, title, date, status, decision, rationale) and anchors`}},
		{"a.json", "{\"title\":\n  \"x\",\n \"decisions\": 3}", []string{"a.json: line 3: json: cannot unmarshal number into Go struct field Brief.decisions of type []brief.Decision"}},
		{"a.json", `{"title":"x"} {}`, []string{"a.json: more than one JSON value: a brief is one object"}},
		{"a.json", `{"anchors":["x.go#"]}`, []string{`a.json: anchor "x.go#": nothing after '#': write path#Symbol, or the bare path for the whole file`}},
	}
	for _, tt := range tests {
		_, errs := Parse(tt.name, []byte(tt.content))
		if got := errStrings(errs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q):\ngot  %q\nwant %q", tt.content, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	b := Brief{
		Constraints: []Constraint{
			{ID: "BC-1", Title: "a", Severity: Critical, Action: Block},
			{ID: "BC-1", Title: "", Severity: "Urgent", Action: "Shout", AppliesTo: []string{"../x", "a/[b", "x.txt#S", "", "ok/**/*.py", "f.go#(*).M"}},
			{ID: "1bad", Title: "b", Severity: Low, Action: LogOnly},
		},
		Decisions: []Decision{{ID: "AD-1", Title: "d", Status: "Maybe", Date: "2026-02-30"}, {ID: "", Title: "e", Status: Accepted}},
		Anchors:   []Anchor{{Path: "/abs.go", Symbol: "F", Lang: LangGo}, {Path: "x.py", Symbol: "a.b.c", Lang: LangPython}},
	}
	want := []string{
		`brief has no title: start it with "# Brief: <title>" (markdown) or set "title" (JSON)`,
		"constraint BC-1 is Critical with action Block but applies to nothing, so it cannot be enforced: add an applies-to list of anchors or globs",
		"id BC-1 is used by a constraint and a constraint: ids must be unique, renumber one",
		`constraint BC-1 has no title: write it after the id ("### BC-1: <title>")`,
		`constraint BC-1 has severity "Urgent": use Critical, High, Medium or Low`,
		`constraint BC-1 has action "Shout": use Block, WarnAndConfirm, WarnOnly or LogOnly`,
		`constraint BC-1 applies to "../x": path leaves the project (..): write it relative to the project root`,
		`constraint BC-1 applies to "a/[b": segment "[b" is not a valid glob: syntax error in pattern`,
		`constraint BC-1 applies to "x.txt#S": symbols can be anchored only in .go, .py and .R files: anchor the whole file (drop #S) instead`,
		`constraint BC-1 applies to "": empty entry: remove the stray comma`,
		`constraint BC-1 applies to "f.go#(*).M": the Go symbol "(*).M" is not Name, T.Method, (T).Method or (*T).Method`,
		`constraint id "1bad" is not a letter followed by letters, digits, '.', '_' or '-': rename it (e.g. BC-001)`,
		`decision AD-1 has status "Maybe": use Proposed, Accepted, Deprecated or Superseded`,
		`decision AD-1 has date "2026-02-30": write it as YYYY-MM-DD`,
		"a decision has no id: give it one such as BC-001 or AD-001",
		"anchor /abs.go#F: path is absolute: write it relative to the project root",
		`anchor x.py#a.b.c: symbol "a.b.c" is not a python function name (Python: name or Class.method)`,
	}
	if got := errStrings(Validate(b)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Validate:\ngot  %q\nwant %q", got, want)
	}
}

func TestContext(t *testing.T) {
	b := readBrief(t, "crispr.md")
	got := b.Context(0, 0)
	want := `Research brief "CRISPR off-target scoring" (crispr.md): follow these constraints; a write that breaks a Critical constraint with action Block is denied.
Constraints:
- BC-001 (Critical, Block): Never train on the held-out guides. Applies to src/split.py#make_splits, data/heldout/**. Why: the held-out guides are the only measure of generalisation to unseen guides.
- BC-002 (High, WarnAndConfirm): Report AUC with its confidence interval. Applies to internal/score/score.go#Score, reports/*.md
- BC-003 (Medium, WarnOnly): Keep the CFD matrix as published. Applies to data/cfd/. Why: The published matrix is the reference every comparison uses.
- BC-004 (Low, LogOnly): Log every threshold change. Applies to .vibe-science/domain-config.json
Accepted decisions:
- AD-001 (2026-01-10): Use guide-held-out splitting. split by guide, never by site.`
	if got != want {
		t.Fatalf("Context:\n%s\nwant\n%s", got, want)
	}
	two := b.Context(0, 2)
	if !strings.Contains(two, "BC-002") || strings.Contains(two, "BC-003") ||
		!strings.Contains(two, "\n[… 2 more constraints truncated: run `vibe brief show`]\nAccepted decisions:\n- AD-001") {
		t.Fatalf("constraint cap:\n%s", two)
	}
	if Tokens("abcde") != 2 || Tokens("") != 0 || Tokens("ééé") != 1 {
		t.Fatal("Tokens is not ceil(characters/4)")
	}
	tight := b.Context(Tokens(want)-1, 0)
	if Tokens(tight) > Tokens(want)-1 || !strings.Contains(tight, "more decisions truncated") {
		t.Fatalf("token cap at %d gave %d tokens:\n%s", Tokens(want)-1, Tokens(tight), tight)
	}
	if b.Context(5, 0) != "" {
		t.Fatal("a cap smaller than the heading must give nothing")
	}
}

// TestContextCaps checks the default caps on a large brief: 20 constraints
// and 4000 tokens, Critical before High whatever the file order.
func TestContextCaps(t *testing.T) {
	var b Brief
	b.Title, b.Source = "big", "big.md"
	for i := range 60 {
		sev := High
		if i%3 == 2 {
			sev = Critical
		}
		b.Constraints = append(b.Constraints, Constraint{ID: fmt.Sprintf("BC-%03d", i), Title: "constraint", Severity: sev, Action: WarnOnly,
			Rationale: strings.Repeat("long reason ", 40)})
	}
	got := b.Context(0, 0)
	lines := strings.Split(got, "\n")
	var kept []string
	for _, l := range lines {
		if strings.HasPrefix(l, "- BC-") {
			kept = append(kept, l)
		}
	}
	if len(kept) != 20 || Tokens(got) > DefaultMaxTokens {
		t.Fatalf("kept %d constraints in %d tokens", len(kept), Tokens(got))
	}
	if !strings.HasPrefix(kept[0], "- BC-002 (Critical") || !strings.HasPrefix(kept[19], "- BC-059 (Critical") {
		t.Fatalf("order: %s ... %s", kept[0][:20], kept[19][:20])
	}
	if lines[len(lines)-1] != "[… 40 more constraints truncated: run `vibe brief show`]" {
		t.Fatalf("marker: %q", lines[len(lines)-1])
	}
	if !strings.HasSuffix(kept[0], "long reason…") || len([]rune(kept[0])) > 300 {
		t.Fatalf("rationale not shortened: %d chars", len([]rune(kept[0])))
	}
	small := b.Context(1000, 0)
	if Tokens(small) > 1000 || !strings.HasSuffix(small, "more constraints truncated: run `vibe brief show`]") {
		t.Fatalf("token cap 1000: %d tokens, ends %q", Tokens(small), small[len(small)-60:])
	}
}

func TestApplicable(t *testing.T) {
	b := readBrief(t, "crispr.md")
	tests := []struct {
		path    string
		touched []string
		want    []string // constraint id → target
	}{
		{"src/split.py", nil, []string{"BC-001→src/split.py#make_splits"}},
		{"./src/split.py", []string{"make_splits"}, []string{"BC-001→src/split.py#make_splits"}},
		{"src/split.py", []string{"other_fn"}, nil},
		{"data/heldout/guides.csv", nil, []string{"BC-001→data/heldout/**"}},
		{"data/heldout/a/b/c.csv", nil, []string{"BC-001→data/heldout/**"}},
		{"data/heldout", nil, []string{"BC-001→data/heldout/**"}},
		{"data/heldoutX/a.csv", nil, nil},
		{"internal/score/score.go", []string{"Score", "Other"}, []string{"BC-002→internal/score/score.go#Score"}},
		{"reports/auc.md", nil, []string{"BC-002→reports/*.md"}},
		{"reports/sub/auc.md", nil, nil},
		{"data/cfd/matrix.csv", nil, []string{"BC-003→data/cfd/"}},
		{"data/cfd", nil, []string{"BC-003→data/cfd/"}},
		{".vibe-science/domain-config.json", nil, []string{"BC-004→.vibe-science/domain-config.json"}},
		{"README.md", nil, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range b.Applicable(tt.path, tt.touched) {
			got = append(got, m.Constraint.ID+"→"+m.Target)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Applicable(%q, %v) = %v, want %v", tt.path, tt.touched, got, tt.want)
		}
	}
	method := Brief{Constraints: []Constraint{{ID: "C", AppliesTo: []string{"s.go#(*Store).Get"}}}}
	if len(method.Applicable("s.go", []string{"Store.Get"})) != 1 || len(method.Applicable("s.go", []string{"(Store).Put"})) != 0 {
		t.Fatal("receiver forms must compare equal")
	}
	glob := [][2]string{{"**/*.py", "a/b/c.py"}, {"**/*.py", "c.py"}, {"src/**/test_*.py", "src/test_a.py"}, {"src/**/**/x", "src/x"},
		{"a/**/b/**/c", "a/x/b/y/z/c"}, {"a/**", "a"}, {"a/**", "a/b/c"}, {"*/b", "a/b"}}
	for _, g := range glob {
		if !matchGlob(strings.Split(g[0], "/"), strings.Split(g[1], "/")) {
			t.Errorf("%s should match %s", g[0], g[1])
		}
	}
	for _, g := range [][2]string{{"*.py", "a/b.py"}, {"a/**/b", "a/c"}, {"a/b", "a/b/c"}, {"**/x", "x/y"}} {
		if matchGlob(strings.Split(g[0], "/"), strings.Split(g[1], "/")) {
			t.Errorf("%s must not match %s", g[0], g[1])
		}
	}
	// Many "**" against a long near-miss path must stay fast (no backtracking).
	pat := strings.Repeat("**/x/", 30) + "y"
	name := strings.Repeat("x/", 60) + "z"
	if matchGlob(strings.Split(pat, "/"), strings.Split(name, "/")) {
		t.Error("near miss matched")
	}
}

func TestVerdicts(t *testing.T) {
	b := readBrief(t, "crispr.md")
	c := func(id string) Constraint {
		for _, c := range b.Constraints {
			if c.ID == id {
				return c
			}
		}
		t.Fatalf("no %s", id)
		return Constraint{}
	}
	highBlock := Constraint{ID: "BC-9", Title: "t", Severity: High, Action: Block, AppliesTo: []string{"x"}}
	ms := []Match{
		{c("BC-001"), "src/split.py", "src/split.py#make_splits"},
		{c("BC-002"), "reports/auc.md", "reports/*.md"},
		{c("BC-003"), "data/cfd/m.csv", "data/cfd/"},
		{c("BC-004"), ".vibe-science/domain-config.json", ".vibe-science/domain-config.json"},
		{highBlock, "x", "x"},
	}
	vs := Verdicts(ms)
	type row struct {
		result  verdict.Result
		confirm bool
	}
	want := []row{{verdict.HardBlock, false}, {verdict.Warn, true}, {verdict.Warn, false}, {verdict.Pass, false}, {verdict.Warn, true}}
	for i, w := range want {
		if vs[i].Result != w.result || NeedsConfirm(vs[i]) != w.confirm || vs[i].Check != CheckConstraint {
			t.Errorf("verdict %d = %s confirm=%v, want %s confirm=%v", i, vs[i].Result, NeedsConfirm(vs[i]), w.result, w.confirm)
		}
	}
	deny := "Writing src/split.py breaks research-brief constraint BC-001 \"Never train on the held-out guides\" (Critical, Block), which applies to src/split.py#make_splits; leave this file alone, or change the brief first (`vibe brief ingest FILE`) if the research has changed."
	if vs[0].Reason != deny || vs[0].Severity != verdict.High || vs[0].Evidence.Paths[0] != "src/split.py" {
		t.Fatalf("deny reason %q", vs[0].Reason)
	}
	if again := Verdicts(ms[:1]); again[0].DecisionHash != vs[0].DecisionHash {
		t.Fatal("the same match must give the same decision hash")
	}
	other := Verdicts([]Match{{c("BC-001"), "data/heldout/x.csv", "data/heldout/**"}})
	if other[0].DecisionHash == vs[0].DecisionHash {
		t.Fatal("a different path must give a different decision")
	}
}

func TestAnchorsFor(t *testing.T) {
	b := readBrief(t, "crispr.md")
	got := b.AnchorsFor("./internal/score/score.go")
	if len(got) != 1 || got[0].Symbol != "Score" {
		t.Fatalf("AnchorsFor = %+v", got)
	}
	if len(b.AnchorsFor("README.md")) != 0 {
		t.Fatal("no anchors expected")
	}
}
