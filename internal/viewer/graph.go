package viewer

import (
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/project"
)

// evidence is the project's claim ledger and its evidence graph, read from
// the project's files on each request (they are small, and a reload must
// show the ledger as it is now).
type evidence struct {
	ledger  claim.Ledger
	reviews map[string][]byte
	graph   *claim.Graph
}

// readEvidence reads .vibe-science/CLAIM-LEDGER.md and a top-level
// CLAIM-LEDGER.md (a claim in both counts once, as the research folder's copy
// has it) and the reviewer files, and builds the evidence graph as the
// integrity checks do (claim.BuildGraph).
func readEvidence(root string) (evidence, error) {
	proj := project.Project{Root: root}
	var l claim.Ledger
	have := map[string]bool{}
	for _, p := range []string{proj.Path("CLAIM-LEDGER.md"), filepath.Join(root, "CLAIM-LEDGER.md")} {
		content, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return evidence{}, fmt.Errorf("read claim ledger: %w", err)
		}
		parsed, _ := claim.ParseLedger(content)
		for _, c := range parsed.Claims {
			if !have[c.ID] {
				have[c.ID] = true
				l.Claims = append(l.Claims, c)
			}
		}
	}
	reviews, err := claimcheck.ReadReviews(proj)
	if err != nil {
		return evidence{}, err
	}
	return evidence{ledger: l, reviews: reviews, graph: claim.BuildGraph(l, reviews)}, nil
}

// graphView is what a page draws: a set of nodes, the edges among them, and
// the cycles to highlight.
type graphView struct {
	nodes  []string
	edges  []claim.Edge
	cycles [][]string
}

// whole is the entire graph with every cycle.
func (e evidence) whole() graphView {
	return graphView{nodes: e.graph.Nodes(), edges: e.graph.Edges(), cycles: e.graph.Cycles()}
}

// around is what claim id rests on (directly or not) plus the nodes resting
// directly on it (claims depending on it, reviews citing it), with the
// cycles in its support.
func (e evidence) around(id string) graphView {
	all := e.graph.Edges()
	out := map[string][]string{}
	for _, ed := range all {
		out[ed.From] = append(out[ed.From], ed.To)
	}
	keep := map[string]bool{}
	if _, ok := out[id]; ok || contains(e.graph.Nodes(), id) {
		keep[id] = true
		todo := []string{id}
		for len(todo) > 0 {
			v := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			for _, w := range out[v] {
				if !keep[w] {
					keep[w] = true
					todo = append(todo, w)
				}
			}
		}
		for _, ed := range all {
			if ed.To == id {
				keep[ed.From] = true
			}
		}
	}
	var v graphView
	for _, n := range e.graph.Nodes() {
		if keep[n] {
			v.nodes = append(v.nodes, n)
		}
	}
	for _, ed := range all {
		if keep[ed.From] && keep[ed.To] {
			v.edges = append(v.edges, ed)
		}
	}
	v.cycles = e.graph.SupportCycles(id)
	return v
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// layered places the nodes in columns: a node sits one column left of the
// farthest node it rests on, so evidence is on the right and what rests on it
// to the left. Nodes of one cycle (a strongly connected component) share a
// column; inside a column nodes keep byte order.
func layered(v graphView) (col map[string]int, row map[string]int, cols int) {
	index := map[string]int{}
	for i, n := range v.nodes {
		index[n] = i
	}
	adj := make([][]int, len(v.nodes))
	for _, e := range v.edges {
		adj[index[e.From]] = append(adj[index[e.From]], index[e.To])
	}
	comp := scc(adj)
	nc := 0
	for _, c := range comp {
		nc = max(nc, c+1)
	}
	// Longest path to a sink over the condensation, by relaxation: it is a
	// DAG, so len(nodes) rounds settle it.
	depth := make([]int, nc)
	for round := 0; round < len(v.nodes); round++ {
		changed := false
		for from, tos := range adj {
			for _, to := range tos {
				if comp[from] != comp[to] && depth[comp[from]] < depth[comp[to]]+1 {
					depth[comp[from]] = depth[comp[to]] + 1
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	maxDepth := 0
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	col, row = map[string]int{}, map[string]int{}
	used := map[int]int{}
	for i, n := range v.nodes {
		c := maxDepth - depth[comp[i]]
		col[n] = c
		row[n] = used[c]
		used[c]++
	}
	return col, row, maxDepth + 1
}

// scc numbers the strongly connected components of a graph (Tarjan).
func scc(adj [][]int) []int {
	n := len(adj)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	var stack []int
	next, nc := 0, 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range adj[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = nc
				if w == v {
					break
				}
			}
			nc++
		}
	}
	for v := range adj {
		if index[v] < 0 {
			visit(v)
		}
	}
	return comp
}

// nodeKind says what a node of the evidence graph is: a claim, a review file,
// or an evidence item.
func (e evidence) nodeKind(id string) string {
	if _, ok := claim.NormaliseID(id); ok {
		return "claim"
	}
	// BuildGraph names a review's node by its path as read; an evidence
	// entry may name it by a trailing part.
	for p := range e.reviews {
		if p == id || strings.HasSuffix(p, "/"+id) || strings.HasSuffix(id, "/"+p) {
			return "review"
		}
	}
	return "evidence"
}

// evidenceGraph draws a graph view: boxes in columns, arrows from what rests
// to what it rests on, and every node and edge on a listed cycle drawn as a
// cycle (class "cycle", data-cycle="true"). Claim nodes link to their page.
func (s *Server) evidenceGraph(e evidence, v graphView, focus string) template.HTML {
	if len(v.nodes) == 0 {
		return ""
	}
	const boxW, boxH, colGap, rowGap, pad = 170.0, 28.0, 70.0, 16.0, 12.0
	col, row, cols := layered(v)
	rows := 0
	for _, r := range row {
		rows = max(rows, r+1)
	}
	onCycle := map[string]bool{}
	cycleEdge := map[[2]string]bool{}
	for _, c := range v.cycles {
		for i, n := range c {
			onCycle[n] = true
			cycleEdge[[2]string{n, c[(i+1)%len(c)]}] = true
		}
	}
	w := pad*2 + float64(cols)*boxW + float64(cols-1)*colGap
	h := pad*2 + float64(rows)*boxH + float64(rows-1)*rowGap
	pos := func(n string) (float64, float64) {
		return pad + float64(col[n])*(boxW+colGap), pad + float64(row[n])*(boxH+rowGap)
	}
	var b svg
	b.f(`<svg id="evidence-graph" class="plot graph" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		w, h, w, h, esc(fmt.Sprintf("Evidence graph: %d nodes, %d edges, %d cycles", len(v.nodes), len(v.edges), len(v.cycles))))
	b.f(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrowhead" d="M0,0 L10,5 L0,10 z"/></marker>`)
	b.f(`<marker id="arrow-cycle" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrowhead cycle" d="M0,0 L10,5 L0,10 z"/></marker></defs>`)
	for _, ed := range v.edges {
		x1, y1 := pos(ed.From)
		x2, y2 := pos(ed.To)
		y1 += boxH / 2
		y2 += boxH / 2
		var d string
		if col[ed.To] > col[ed.From] {
			x1 += boxW
			d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, x1+colGap/2, y1, x2-colGap/2, y2, x2, y2)
		} else {
			// Same column or backwards (inside a cycle): loop round the right side.
			x1 += boxW
			x2 += boxW
			bend := 40 + 10*math.Abs(float64(row[ed.To]-row[ed.From]))
			d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, x1+bend, y1, x2+bend, y2, x2, y2)
		}
		class, marker, cyc := "edge "+string(ed.Kind), "arrow", ""
		if cycleEdge[[2]string{ed.From, ed.To}] {
			class, marker, cyc = class+" cycle", "arrow-cycle", ` data-cycle="true"`
		}
		b.f(`<path class="%s" d="%s" marker-end="url(#%s)"%s><title>%s</title></path>`,
			esc(class), d, marker, cyc, esc(ed.From+" "+string(ed.Kind)+" "+ed.To))
	}
	for _, n := range v.nodes {
		x, y := pos(n)
		kind := e.nodeKind(n)
		class := "node " + kind
		cyc := ""
		if onCycle[n] {
			class += " cycle"
			cyc = ` data-cycle="true"`
		}
		if n == focus {
			class += " focus"
		}
		label := n
		if r := []rune(label); len(r) > 24 {
			label = "…" + string(r[len(r)-23:])
		}
		open, closeA := "", ""
		if kind == "claim" {
			open = `<a href="` + esc(s.link("/claim", "id", n)) + `">`
			closeA = `</a>`
		}
		b.f(`%s<g class="%s"%s><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="5"/><text x="%.1f" y="%.1f">%s</text><title>%s</title></g>%s`,
			open, esc(class), cyc, x, y, boxW, boxH, x+8, y+boxH/2+4, esc(label), esc(n+" ("+kind+")"), closeA)
	}
	b.f(`</svg>`)
	return b.html()
}

// cycleText lists cycles as "A → B → A", in the graph's order.
func cycleText(cycles [][]string) []string {
	out := make([]string, 0, len(cycles))
	for _, c := range cycles {
		out = append(out, strings.Join(append(append([]string(nil), c...), c[0]), " → "))
	}
	sort.Strings(out)
	return out
}
