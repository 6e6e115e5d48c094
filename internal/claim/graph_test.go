package claim

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// cycleFixture is one case of the D1 golden corpus. The want_ fields are
// written by hand and checked before the golden bytes, so -update can never
// bless a wrong answer.
type cycleFixture struct {
	Claim       string            `json:"claim"`
	Promoting   bool              `json:"promoting"`
	Edges       [][2]string       `json:"edges"`
	Ledger      string            `json:"ledger"`
	Reviews     map[string]string `json:"reviews"`
	WantCycles  [][]string        `json:"want_cycles"`
	WantSupport [][]string        `json:"want_support"`
	WantResult  verdict.Result    `json:"want_result"`
}

// runCycleFixture builds the fixture's graph and returns the canonical JSON
// of what D1 reports for it.
func runCycleFixture(t *testing.T, fx cycleFixture) ([]byte, [][]string, [][]string, verdict.Verdict) {
	t.Helper()
	g := NewGraph()
	if fx.Ledger != "" || fx.Reviews != nil {
		l, errs := ParseLedger([]byte(fx.Ledger))
		if len(errs) != 0 {
			t.Fatalf("fixture ledger: %v", errs)
		}
		reviews := map[string][]byte{}
		for p, c := range fx.Reviews {
			reviews[p] = []byte(c)
		}
		g = BuildGraph(l, reviews)
	}
	for _, e := range fx.Edges {
		g.AddEdge(e[0], e[1])
	}
	cycles := g.Cycles()
	support := cycles
	if fx.Claim != "" {
		support = g.SupportCycles(fx.Claim)
	}
	v := CycleVerdict(fx.Claim, support, fx.Promoting)
	out, err := verdict.Canonical(map[string]any{
		"nodes":          orEmpty(g.Nodes()),
		"edges":          orEmptyEdges(g.Edges()),
		"cycles":         orEmptyCycles(cycles),
		"support_cycles": orEmptyCycles(support),
		"verdict":        v,
	})
	if err != nil {
		t.Fatalf("canonical: %v", err)
	}
	return append(out, '\n'), cycles, support, v
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyEdges(e []Edge) []Edge {
	if e == nil {
		return []Edge{}
	}
	return e
}

func orEmptyCycles(c [][]string) [][]string {
	if c == nil {
		return [][]string{}
	}
	return c
}

func runCycleCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", "cycles", "*.in.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 12 {
		t.Fatalf("the D1 corpus has %d fixtures; it needs at least 12", len(inputs))
	}
	results := map[string][]byte{}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var fx cycleFixture
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fx); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, cycles, support, v := runCycleFixture(t, fx)
		if !reflect.DeepEqual(orEmptyCycles(cycles), orEmptyCycles(fx.WantCycles)) {
			t.Errorf("%s: cycles %q, want %q", name, cycles, fx.WantCycles)
		}
		if !reflect.DeepEqual(orEmptyCycles(support), orEmptyCycles(fx.WantSupport)) {
			t.Errorf("%s: support cycles %q, want %q", name, support, fx.WantSupport)
		}
		if v.Result != fx.WantResult {
			t.Errorf("%s: result %s, want %s", name, v.Result, fx.WantResult)
		}
		results[name] = got
	}
	return results
}

func TestCycleCorpusGolden(t *testing.T) {
	results := runCycleCorpus(t)
	for name, got := range results {
		golden := filepath.Join("testdata", "cycles", name+".golden.json")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%s (run with -update to create it): %v", golden, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its golden file:\n got %s\nwant %s", name, got, want)
		}
	}
	// Running the corpus again must give the same bytes: no map order, no
	// clock, no randomness leaks into the output.
	again := runCycleCorpus(t)
	for name, got := range results {
		if !bytes.Equal(got, again[name]) {
			t.Errorf("%s: second run differs:\n%s\n%s", name, got, again[name])
		}
	}
}

// randomNames gives n distinct node names in an order unrelated to their
// sort order, so "edges only from lower to higher index" does not coincide
// with the byte order the search uses.
func randomNames(r *rand.Rand, n int) []string {
	names := make([]string, n)
	for i, p := range r.Perm(n) {
		names[i] = fmt.Sprintf("n%03d", p)
	}
	return names
}

func TestRandomAcyclicGraphsHaveNoCycle(t *testing.T) {
	r := rand.New(rand.NewSource(20260101))
	for k := 0; k < 100; k++ {
		n := 2 + r.Intn(40)
		density := r.Float64()
		names := randomNames(r, n)
		g := NewGraph()
		edges := 0
		for i := 0; i < n; i++ {
			g.AddNode(names[i])
			for j := i + 1; j < n; j++ {
				if r.Float64() < density {
					g.AddEdge(names[i], names[j])
					edges++
				}
			}
		}
		if c := g.Cycles(); c != nil {
			t.Fatalf("graph %d (%d nodes, %d edges) has no cycle, got %q", k, n, edges, c)
		}
		for _, id := range names {
			if c := g.SupportCycles(id); c != nil {
				t.Fatalf("graph %d: support of %s has no cycle, got %q", k, id, c)
			}
		}
		if v := CycleVerdict(names[0], g.SupportCycles(names[0]), true); v.Result != verdict.Pass {
			t.Fatalf("graph %d: verdict %s, want PASS", k, v.Result)
		}
	}
}

// bruteCycles lists every elementary cycle by trying every ordering of
// every subset of nodes: slow and obviously right, for small graphs.
func bruteCycles(n int, edge [][]bool) [][]int {
	var out [][]int
	var perm func(path []int, used []bool)
	perm = func(path []int, used []bool) {
		last := path[len(path)-1]
		if edge[last][path[0]] {
			out = append(out, slices.Clone(path))
		}
		for v := path[0] + 1; v < n; v++ {
			if !used[v] && edge[last][v] {
				used[v] = true
				perm(append(path, v), used)
				used[v] = false
			}
		}
	}
	for s := 0; s < n; s++ {
		used := make([]bool, n)
		used[s] = true
		perm([]int{s}, used)
	}
	sort.Slice(out, func(a, b int) bool { return slices.Compare(out[a], out[b]) < 0 })
	return out
}

func TestCyclesMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for k := 0; k < 300; k++ {
		n := 1 + r.Intn(6)
		p := r.Float64()
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("v%d", i) // sort order = index order
		}
		edge := make([][]bool, n)
		g := NewGraph()
		for i := 0; i < n; i++ {
			edge[i] = make([]bool, n)
			g.AddNode(names[i])
			for j := 0; j < n; j++ {
				if r.Float64() < p {
					edge[i][j] = true
					g.AddEdge(names[i], names[j])
				}
			}
		}
		var want [][]string
		for _, c := range bruteCycles(n, edge) {
			var named []string
			for _, v := range c {
				named = append(named, names[v])
			}
			want = append(want, named)
		}
		if got := g.Cycles(); !reflect.DeepEqual(got, want) {
			t.Fatalf("graph %d: Cycles = %q\nbrute force %q", k, got, want)
		}
		// SupportCycles is Cycles restricted to what the claim can reach.
		for s := 0; s < n; s++ {
			reach := make([]bool, n)
			var walk func(v int)
			walk = func(v int) {
				reach[v] = true
				for w := 0; w < n; w++ {
					if edge[v][w] && !reach[w] {
						walk(w)
					}
				}
			}
			walk(s)
			var wantSupport [][]string
			for _, c := range want {
				idx := slices.Index(names, c[0])
				if reach[idx] {
					wantSupport = append(wantSupport, c)
				}
			}
			if got := g.SupportCycles(names[s]); !reflect.DeepEqual(got, wantSupport) {
				t.Fatalf("graph %d: SupportCycles(%s) = %q, want %q", k, names[s], got, wantSupport)
			}
		}
	}
}

func TestCyclesAreCapped(t *testing.T) {
	// A complete directed graph on 8 nodes has 16064 elementary cycles.
	g := NewGraph()
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			if i != j {
				g.AddEdge(fmt.Sprint(i), fmt.Sprint(j))
			}
		}
	}
	cycles := g.Cycles()
	if len(cycles) != MaxCycles {
		t.Fatalf("got %d cycles, want the cap %d", len(cycles), MaxCycles)
	}
	if !reflect.DeepEqual(cycles[0], []string{"0", "1"}) {
		t.Errorf("first cycle %q, want [0 1]", cycles[0])
	}
	for _, c := range cycles {
		for i := range c {
			if _, ok := g.out[c[i]][c[(i+1)%len(c)]]; !ok {
				t.Fatalf("cycle %q uses a missing edge", c)
			}
		}
	}
}

func TestGraphBasics(t *testing.T) {
	var zero Graph
	zero.AddEdge("A", "B")
	zero.AddEdge("", "B")
	zero.AddEdge("A", "")
	zero.AddNode("")
	if got, want := zero.Nodes(), []string{"A", "B"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Nodes = %q, want %q", got, want)
	}
	if got, want := zero.Edges(), []Edge{{From: "A", To: "B", Kind: KindDependsOn}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Edges = %#v, want %#v", got, want)
	}
	var nilGraph *Graph
	if nilGraph.Cycles() != nil || nilGraph.SupportCycles("A") != nil || nilGraph.Nodes() != nil {
		t.Error("a nil graph must report nothing")
	}
	// SupportCycles normalises a claim id it cannot find as written.
	g := NewGraph()
	g.AddEdge("C-001", "C-002")
	g.AddEdge("C-002", "C-001")
	if got, want := g.SupportCycles("c001"), [][]string{{"C-001", "C-002"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("SupportCycles(c001) = %q, want %q", got, want)
	}
}

func TestBuildGraph(t *testing.T) {
	l := mustLedger(t, "## C-001: A\n- status: PROVISIONAL\n- evidence: RQ-1/FINDINGS.json#auc, ./RQ-1/FINDINGS.json#n, C-002, RQ-1\\figs\\a.png\n- depends-on: C-002\n"+
		"## C-002: B\n- status: PROVISIONAL\n- evidence: 05-reviewer2/r1.md#section\n"+
		"## C-003: C\n- status: PROVISIONAL\n")
	g := BuildGraph(l, map[string][]byte{
		"RQ-1/05-reviewer2/r1.md":    []byte("C-001 ACCEPT, C-003 DEFER"),
		"./RQ-1/05-reviewer2/r2.md":  []byte("nothing cited"),
		"RQ-1//05-reviewer2/r1.md":   []byte("C-004 mentioned"),
		"RQ-1/05-reviewer2/empty.md": nil,
	})
	wantNodes := []string{"C-001", "C-002", "C-003", "C-004", "RQ-1/05-reviewer2/empty.md", "RQ-1/05-reviewer2/r1.md", "RQ-1/05-reviewer2/r2.md", "RQ-1/FINDINGS.json", "RQ-1/figs/a.png"}
	if got := g.Nodes(); !reflect.DeepEqual(got, wantNodes) {
		t.Errorf("Nodes = %q\nwant %q", got, wantNodes)
	}
	wantEdges := []Edge{
		{From: "C-001", To: "C-002", Kind: KindDependsOn},
		{From: "C-001", To: "RQ-1/FINDINGS.json", Kind: KindSupportedBy},
		{From: "C-001", To: "RQ-1/figs/a.png", Kind: KindSupportedBy},
		{From: "C-002", To: "RQ-1/05-reviewer2/r1.md", Kind: KindSupportedBy},
		{From: "RQ-1/05-reviewer2/r1.md", To: "C-001", Kind: KindCites},
		{From: "RQ-1/05-reviewer2/r1.md", To: "C-003", Kind: KindCites},
		{From: "RQ-1/05-reviewer2/r1.md", To: "C-004", Kind: KindCites},
	}
	if got := g.Edges(); !reflect.DeepEqual(got, wantEdges) {
		t.Errorf("Edges = %#v\nwant %#v", got, wantEdges)
	}
	if got, want := g.SupportCycles("C-001"), [][]string{{"C-001", "C-002", "RQ-1/05-reviewer2/r1.md"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("SupportCycles(C-001) = %q, want %q", got, want)
	}
	if got := g.SupportCycles("C-003"); got != nil {
		t.Errorf("SupportCycles(C-003) = %q, want none", got)
	}
}

func TestCycleVerdict(t *testing.T) {
	cycles := [][]string{{"C-001", "C-002"}, {"C-001", "RQ-1/05-reviewer2/r1.md"}}
	tests := []struct {
		name      string
		claim     string
		cycles    [][]string
		promoting bool
		result    verdict.Result
		severity  verdict.Severity
		reason    string
		evidence  verdict.Evidence
		rec       string
	}{
		{
			name: "pass", claim: "C-001", promoting: true, result: verdict.Pass, severity: verdict.Low,
			reason:   "C-001: no cycle among the claims, evidence and reviews it rests on (D1 circular logic).",
			evidence: verdict.Evidence{Claims: []string{"C-001"}},
		},
		{
			name: "empty cycles are dropped", claim: "C-001", cycles: [][]string{{}}, result: verdict.Pass, severity: verdict.Low,
			reason:   "C-001: no cycle among the claims, evidence and reviews it rests on (D1 circular logic).",
			evidence: verdict.Evidence{Claims: []string{"C-001"}},
		},
		{
			name: "block when promoting", claim: "C-001", cycles: cycles, promoting: true, result: verdict.Block, severity: verdict.High,
			reason: "C-001 cannot be promoted: its support is circular (D1 circular logic), 2 cycles, the first C-001 → C-002 → C-001.",
			evidence: verdict.Evidence{Claims: []string{"C-001", "C-002"}, Paths: []string{"RQ-1/05-reviewer2/r1.md"},
				Numbers: []string{"cycles=2"}, Notes: []string{"C-001 → C-002 → C-001", "C-001 → RQ-1/05-reviewer2/r1.md → C-001"}},
			rec: "Break each cycle by removing one of its links (for example C-001 → C-002) or by resting one claim on independent evidence, then check again.",
		},
		{
			name: "warn otherwise", claim: "C-003", cycles: [][]string{{"C-003"}}, result: verdict.Warn, severity: verdict.High,
			reason:   "C-003 rests on circular support (D1 circular logic): a cycle C-003 → C-003.",
			evidence: verdict.Evidence{Claims: []string{"C-003"}, Numbers: []string{"cycles=1"}, Notes: []string{"C-003 → C-003"}},
			rec:      "Break each cycle by removing one of its links (for example C-003 → C-003) or by resting one claim on independent evidence, then check again.",
		},
		{
			name: "whole graph", cycles: [][]string{{"A", "B"}}, promoting: true, result: verdict.Warn, severity: verdict.High,
			reason:   "The evidence graph holds circular support (D1 circular logic): a cycle A → B → A.",
			evidence: verdict.Evidence{Paths: []string{"A", "B"}, Numbers: []string{"cycles=1"}, Notes: []string{"A → B → A"}},
			rec:      "Break each cycle by removing one of its links (for example A → B) or by resting one claim on independent evidence, then check again.",
		},
		{
			name: "whole graph passes", result: verdict.Pass, severity: verdict.Low,
			reason: "the evidence graph: no cycle among the claims, evidence and reviews it rests on (D1 circular logic).",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := CycleVerdict(tt.claim, tt.cycles, tt.promoting)
			if v.Check != CheckCircular || v.Result != tt.result || v.Severity != tt.severity || v.Reason != tt.reason || v.Recommendation != tt.rec {
				t.Errorf("verdict = %s %s %s %q rec %q\nwant %s %s %q rec %q", v.Check, v.Result, v.Severity, v.Reason, v.Recommendation,
					tt.result, tt.severity, tt.reason, tt.rec)
			}
			if !reflect.DeepEqual(v.Evidence, tt.evidence) {
				t.Errorf("evidence = %#v\nwant %#v", v.Evidence, tt.evidence)
			}
			if v.DecisionHash != verdict.Hash(v.Check, v.Input, v.Result) {
				t.Errorf("decision hash does not cover check, input and result")
			}
		})
	}
}

func TestCycleVerdictHash(t *testing.T) {
	c := [][]string{{"C-001", "C-002"}}
	a := CycleVerdict("C-001", c, true)
	if b := CycleVerdict("C-001", [][]string{{"C-001", "C-002"}}, true); a.DecisionHash != b.DecisionHash {
		t.Error("the same decision must have the same hash")
	}
	if b := CycleVerdict("C-001", c, false); a.DecisionHash == b.DecisionHash {
		t.Error("promoting or not must change the hash")
	}
	if b := CycleVerdict("C-002", c, true); a.DecisionHash == b.DecisionHash {
		t.Error("the claim must change the hash")
	}
	if p, q := CycleVerdict("C-001", nil, true), CycleVerdict("C-001", [][]string{}, true); p.DecisionHash != q.DecisionHash {
		t.Error("nil and empty cycles are the same decision")
	}
}
