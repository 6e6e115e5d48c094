package viewer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestLayeredKeepsACycleInOneColumn(t *testing.T) {
	v := graphView{
		nodes: []string{"A", "B", "C", "D", "E"},
		edges: []claim.Edge{{From: "A", To: "B"}, {From: "B", To: "C"}, {From: "C", To: "B"}, {From: "C", To: "E"}, {From: "A", To: "D"}},
	}
	col, row, cols := layered(v)
	wantCol := map[string]int{"A": 0, "B": 1, "C": 1, "D": 2, "E": 2}
	wantRow := map[string]int{"A": 0, "B": 0, "C": 1, "D": 0, "E": 1}
	if cols != 3 || !reflect.DeepEqual(col, wantCol) || !reflect.DeepEqual(row, wantRow) {
		t.Errorf("columns %v rows %v (%d columns), want %v %v (3)", col, row, cols, wantCol, wantRow)
	}
}

func TestSCC(t *testing.T) {
	// 0→1→2→0, 2→3, 3→3 (self-loop), 4 alone.
	comp := scc([][]int{{1}, {2}, {0, 3}, {3}, nil})
	if comp[0] != comp[1] || comp[1] != comp[2] || comp[3] == comp[0] || comp[4] == comp[0] || comp[4] == comp[3] {
		t.Errorf("components %v", comp)
	}
}

func TestEvidenceGraphMarksOnlyCycleEdges(t *testing.T) {
	l, _ := claim.ParseLedger([]byte("## C-001: a\n- status: PROVISIONAL\n- type: descriptive\n- depends-on: C-002\n\n" +
		"## C-002: b\n- status: PROVISIONAL\n- type: descriptive\n- depends-on: C-001\n\n" +
		"## C-003: c\n- status: PROVISIONAL\n- type: descriptive\n- depends-on: C-001\n"))
	ev := evidence{ledger: l, graph: claim.BuildGraph(l, nil)}
	s := &Server{cfg: Config{Token: "t"}}
	svg := string(s.evidenceGraph(ev, ev.whole(), ""))
	if got := strings.Count(svg, `<path class="edge depends-on cycle"`); got != 2 {
		t.Errorf("%d cycle edges, want 2 (C-001⇄C-002):\n%s", got, svg)
	}
	if got := strings.Count(svg, `<path class="edge depends-on"`); got != 1 {
		t.Errorf("%d plain edges, want 1 (C-003→C-001)", got)
	}
	if got := strings.Count(svg, `<g class="node claim cycle" data-cycle="true">`); got != 2 {
		t.Errorf("%d cycle nodes, want 2", got)
	}
	if !strings.Contains(svg, `<a href="/claim?id=C-003&amp;t=t">`) {
		t.Error("claim nodes do not link to their page")
	}
	around := string(s.evidenceGraph(ev, ev.around("C-003"), "C-003"))
	if !strings.Contains(around, `class="node claim focus"`) || !strings.Contains(around, "C-002") {
		t.Errorf("C-003's view lacks its focus or its support:\n%s", around)
	}
}

func TestReliabilityDiagramDrawsNonEmptyBins(t *testing.T) {
	c := calibrate.Score([]calibrate.Point{{ClaimID: "a", Confidence: 0.9, Held: true}, {ClaimID: "b", Confidence: 0.85, Held: false},
		{ClaimID: "c", Confidence: 0.2, Held: false}}, 10)
	svg := string(ReliabilityDiagram(c))
	if got := strings.Count(svg, `<circle class="bin-dot"`); got != 3 {
		t.Errorf("%d bin dots, want 3 (bins 0.2, 0.8 and 0.9)", got)
	}
	if !strings.Contains(svg, "<title>0.80–0.90: 1 claim, mean confidence 0.850, held 0.000, gap 0.850</title>") {
		t.Errorf("bin 0.8–0.9 is not described:\n%s", svg)
	}
}

func TestPlotsEscapeRecordedText(t *testing.T) {
	strip := string(GateStrip(`<g onload="x">`, []record.GateRecord{{GateID: "G", Status: `PASS" onclick="x`, ClaimID: "<script>"}}))
	for _, bad := range []string{`<script>`, `" onclick="x`, `<g onload`} {
		if strings.Contains(strip, bad) {
			t.Errorf("gate strip carries %q unescaped:\n%s", bad, strip)
		}
	}
	c := 0.5
	tl := string(ConfidenceTimeline([]record.ClaimEventRecord{{ClaimEvent: record.ClaimEvent{Type: "<b>", NewStatus: "</title><script>", Confidence: &c}}}))
	if strings.Contains(tl, "<script>") || strings.Contains(tl, "<b>") {
		t.Errorf("confidence timeline carries event text unescaped:\n%s", tl)
	}
	pts := string(ConfidenceOutcome([]calibrate.Point{{ClaimID: "<img src=x>", Confidence: 0.4}}))
	if strings.Contains(pts, "<img") {
		t.Errorf("confidence plot carries a claim id unescaped:\n%s", pts)
	}
}
