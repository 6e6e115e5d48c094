package claim

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// EdgeKind says why one node of the evidence graph rests on another.
type EdgeKind string

// The edge kinds. Every edge points from what rests to what it rests on: a
// claim to the claim it depends on, a claim to the evidence item that
// supports it, a review to the claim it cites.
const (
	KindDependsOn   EdgeKind = "depends-on"
	KindSupportedBy EdgeKind = "supported-by"
	KindCites       EdgeKind = "cites"
)

// kindRank decides which kind an edge keeps when it is added twice.
var kindRank = map[EdgeKind]int{KindDependsOn: 0, KindSupportedBy: 1, KindCites: 2}

// MaxCycles caps how many cycles one search lists, because a dense graph can
// hold exponentially many; the verdict is the same past the first one.
const MaxCycles = 1000

// Edge is one edge of the evidence graph.
type Edge struct {
	From string   `json:"from"`
	To   string   `json:"to"`
	Kind EdgeKind `json:"kind"`
}

// Graph is the evidence graph: claims (by id), evidence items (by path,
// without #fragment) and review files (by path) as nodes. The zero value is
// an empty graph ready for use.
type Graph struct {
	out map[string]map[string]EdgeKind
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{out: map[string]map[string]EdgeKind{}} }

// AddNode adds a node with no edges; an empty id is ignored.
func (g *Graph) AddNode(id string) {
	if id == "" {
		return
	}
	if g.out == nil {
		g.out = map[string]map[string]EdgeKind{}
	}
	if _, ok := g.out[id]; !ok {
		g.out[id] = nil
	}
}

// AddEdge adds a depends-on edge from one node to another, adding both nodes;
// an edge with an empty end is ignored and a repeated edge is kept once.
func (g *Graph) AddEdge(from, to string) { g.addEdge(from, to, KindDependsOn) }

func (g *Graph) addEdge(from, to string, kind EdgeKind) {
	if from == "" || to == "" {
		return
	}
	g.AddNode(from)
	g.AddNode(to)
	m := g.out[from]
	if m == nil {
		m = map[string]EdgeKind{}
		g.out[from] = m
	}
	if old, ok := m[to]; !ok || kindRank[kind] < kindRank[old] {
		m[to] = kind
	}
}

// Nodes returns every node id in byte order.
func (g *Graph) Nodes() []string {
	if g == nil {
		return nil
	}
	ids := make([]string, 0, len(g.out))
	for id := range g.out {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Edges returns every edge, ordered by From and then To.
func (g *Graph) Edges() []Edge {
	var edges []Edge
	for _, from := range g.Nodes() {
		for to, kind := range g.out[from] {
			edges = append(edges, Edge{From: from, To: to, Kind: kind})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].From != edges[j].From {
			return edges[i].From < edges[j].From
		}
		return edges[i].To < edges[j].To
	})
	return edges
}

// BuildGraph builds the evidence graph of a ledger and its reviews (review
// path → content). Each claim is a node; depends-on entries, and evidence
// entries that are claim ids, become depends-on edges; other evidence entries
// become supported-by edges to their path (without #fragment); each review
// gets a cites edge to every claim CitedClaims finds in it. An evidence path
// that names a review file, in full or as a trailing part of its path
// ("05-reviewer2/r1.md" for "RQ-001/05-reviewer2/r1.md"), is that review's
// node, so a claim supported by a review that cites the claim closes a cycle:
// the review is not independent evidence.
func BuildGraph(l Ledger, reviews map[string][]byte) *Graph {
	g := NewGraph()
	byPath := map[string][][]byte{}
	for p, content := range reviews {
		if cp := cleanPath(p); cp != "" {
			byPath[cp] = append(byPath[cp], content)
		}
	}
	reviewPaths := make([]string, 0, len(byPath))
	for p := range byPath {
		reviewPaths = append(reviewPaths, p)
	}
	sort.Strings(reviewPaths)
	resolve := func(p string) string {
		p = cleanPath(p)
		for _, r := range reviewPaths {
			if p == r || strings.HasSuffix(p, "/"+r) || strings.HasSuffix(r, "/"+p) {
				return r
			}
		}
		return p
	}
	for _, c := range l.Claims {
		g.AddNode(c.ID)
		for _, d := range c.DependsOn {
			g.addEdge(c.ID, d, KindDependsOn)
		}
		for _, e := range c.Evidence {
			if id, ok := NormaliseID(e); ok {
				g.addEdge(c.ID, id, KindDependsOn)
				continue
			}
			g.addEdge(c.ID, resolve(e), KindSupportedBy)
		}
	}
	for _, r := range reviewPaths {
		g.AddNode(r)
		for _, content := range byPath[r] {
			for _, id := range CitedClaims(content) {
				g.addEdge(r, id, KindCites)
			}
		}
	}
	return g
}

// cleanPath makes evidence and review paths comparable: no #fragment,
// forward slashes, no ./ or duplicate separators.
func cleanPath(p string) string {
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "./")
}

// Cycles returns every elementary cycle of the graph (at most MaxCycles),
// each rotated to start at its smallest id (byte order) and listed without
// repeating that id at the end; the cycles are sorted element by element. A
// self-loop is the cycle [A]; a diamond (A→B, A→C, B→D, C→D) has none.
//
// A depth-first search marking nodes in progress and done first decides
// whether any back edge, and so any cycle, exists; an acyclic graph costs
// one linear pass. Only then does Johnson's circuit search list the cycles,
// including those a back-edge search alone would miss: with A→B→C→A and
// A→D→B, both [A B C] and [A D B C] are reported.
func (g *Graph) Cycles() [][]string {
	if g == nil {
		return nil
	}
	return g.cyclesWithin(nil)
}

// SupportCycles returns the cycles among the nodes claimID rests on, directly
// or through other nodes (claimID included): the cycles Cycles reports that
// touch any node reachable from claimID. A cycle that only rests on the
// claim, or that the claim cannot reach, is not in its support. An unknown
// claim has no support and so no cycles.
func (g *Graph) SupportCycles(claimID string) [][]string {
	if g == nil {
		return nil
	}
	start := claimID
	if _, ok := g.out[start]; !ok {
		n, valid := NormaliseID(claimID)
		if _, known := g.out[n]; !valid || !known {
			return nil
		}
		start = n
	}
	reach := map[string]bool{start: true}
	todo := []string{start}
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for w := range g.out[v] {
			if !reach[w] {
				reach[w] = true
				todo = append(todo, w)
			}
		}
	}
	return g.cyclesWithin(reach)
}

// cyclesWithin lists the cycles of the subgraph induced by keep (nil: all).
func (g *Graph) cyclesWithin(keep map[string]bool) [][]string {
	names := make([]string, 0, len(g.out))
	for id := range g.out {
		if keep == nil || keep[id] {
			names = append(names, id)
		}
	}
	sort.Strings(names)
	index := make(map[string]int, len(names))
	for i, id := range names {
		index[id] = i
	}
	adj := make([][]int, len(names))
	for i, id := range names {
		for to := range g.out[id] {
			if j, ok := index[to]; ok {
				adj[i] = append(adj[i], j)
			}
		}
		slices.Sort(adj[i])
	}
	if !hasCycle(adj) {
		return nil
	}
	found := elementaryCycles(adj, MaxCycles)
	out := make([][]string, len(found))
	for i, cyc := range found {
		out[i] = make([]string, len(cyc))
		for k, v := range cyc {
			out[i][k] = names[v]
		}
	}
	return out
}

// hasCycle is the depth-first search with in-progress and done marking: an
// edge into a node still in progress is a back edge, and a back edge exists
// exactly when the graph has a cycle.
func hasCycle(adj [][]int) bool {
	const (
		unseen = iota
		inProgress
		done
	)
	mark := make([]uint8, len(adj))
	var visit func(v int) bool
	visit = func(v int) bool {
		mark[v] = inProgress
		for _, w := range adj[v] {
			switch mark[w] {
			case inProgress:
				return true
			case unseen:
				if visit(w) {
					return true
				}
			}
		}
		mark[v] = done
		return false
	}
	for v := range adj {
		if mark[v] == unseen && visit(v) {
			return true
		}
	}
	return false
}

// elementaryCycles is Johnson's algorithm over nodes 0..n-1 whose adjacency
// lists are sorted: for each start s in increasing order it searches the
// strongly connected part of the nodes ≥ s that contains s, so every cycle is
// found once, starting at its smallest node. The blocked sets keep the search
// from re-walking dead ends, which bounds the work by the cycles it reports.
// The result is sorted element by element and holds at most max cycles.
func elementaryCycles(adj [][]int, max int) [][]int {
	n := len(adj)
	radj := make([][]int, n)
	for v, ws := range adj {
		for _, w := range ws {
			radj[w] = append(radj[w], v)
		}
	}
	j := johnson{
		adj: adj, max: max,
		inPart:  make([]bool, n),
		blocked: make([]bool, n),
		bset:    make([][]int, n),
	}
	fwd := make([]bool, n)
	bwd := make([]bool, n)
	for s := 0; s < n && len(j.out) < max; s++ {
		clear(fwd)
		clear(bwd)
		reachFrom(adj, s, fwd)
		reachFrom(radj, s, bwd)
		size := 0
		for v := s; v < n; v++ {
			j.inPart[v] = fwd[v] && bwd[v]
			if j.inPart[v] {
				size++
				j.blocked[v] = false
				j.bset[v] = j.bset[v][:0]
			}
		}
		if size == 1 && !slices.Contains(adj[s], s) {
			continue
		}
		j.start = s
		j.circuit(s)
	}
	sort.Slice(j.out, func(a, b int) bool { return slices.Compare(j.out[a], j.out[b]) < 0 })
	return j.out
}

// reachFrom marks the nodes ≥ s reachable from s along adj.
func reachFrom(adj [][]int, s int, mark []bool) {
	mark[s] = true
	todo := []int{s}
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, w := range adj[v] {
			if w >= s && !mark[w] {
				mark[w] = true
				todo = append(todo, w)
			}
		}
	}
}

type johnson struct {
	adj     [][]int
	max     int
	start   int
	inPart  []bool
	blocked []bool
	bset    [][]int
	path    []int
	out     [][]int
}

func (j *johnson) circuit(v int) bool {
	found := false
	j.path = append(j.path, v)
	j.blocked[v] = true
	for _, w := range j.adj[v] {
		if len(j.out) >= j.max {
			break
		}
		if w < j.start || !j.inPart[w] {
			continue
		}
		if w == j.start {
			j.out = append(j.out, slices.Clone(j.path))
			found = true
		} else if !j.blocked[w] && j.circuit(w) {
			found = true
		}
	}
	if found {
		j.unblock(v)
	} else {
		for _, w := range j.adj[v] {
			if w >= j.start && j.inPart[w] && !slices.Contains(j.bset[w], v) {
				j.bset[w] = append(j.bset[w], v)
			}
		}
	}
	j.path = j.path[:len(j.path)-1]
	return found
}

func (j *johnson) unblock(u int) {
	j.blocked[u] = false
	for len(j.bset[u]) > 0 {
		w := j.bset[u][len(j.bset[u])-1]
		j.bset[u] = j.bset[u][:len(j.bset[u])-1]
		if j.blocked[w] {
			j.unblock(w)
		}
	}
}
