package disclosure

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBuildFits(t *testing.T) {
	parts := []Part{
		{Layer: LayerRecall, Priority: PrioritySeeds, Title: "SEEDS", Lines: []string{"- S-2 bulge at position 5"}},
		{Layer: LayerRecall, Priority: PriorityAlerts, Title: "ALERTS", Lines: []string{"- HALT ledger out of sync"}},
		{Layer: LayerState, Priority: PriorityState, Title: "VIBE STATE", Lines: []string{"project p · session 2"}},
		{Layer: LayerRecall, Priority: PriorityMemories, Title: "EMPTY"},                        // no lines: left out
		{Layer: 3, Priority: 0, Title: "FULL", Lines: []string{"never injected"}},               // layer 3 is on demand
		{Layer: LayerState, Priority: PriorityBlueprint, Lines: []string{"[BLUEPRINT] CRISPR"}}, // no title
	}
	got := Build(parts, DefaultBudgets(1000))
	want := strings.Join([]string{
		"[VIBE STATE]",
		"project p · session 2",
		"[BLUEPRINT] CRISPR",
		"[ALERTS]",
		"- HALT ledger out of sync",
		"[SEEDS]",
		"- S-2 bulge at position 5",
	}, "\n")
	if got != want {
		t.Errorf("Build =\n%s\nwant\n%s", got, want)
	}
}

func TestBuildCutsWithMarker(t *testing.T) {
	line := func(i int) string {
		return fmt.Sprintf("- [M-%d] decision 2026-10-0%d: %s", i, i, strings.Repeat("w", 60))
	}
	mem := Part{Layer: LayerRecall, Priority: PriorityMemories, Title: "MEMORY", Lines: []string{line(1), line(2), line(3), line(4)}}
	seeds := Part{Layer: LayerRecall, Priority: PrioritySeeds, Title: "SEEDS", Lines: []string{"- S-1 a seed"}, More: "vibe seeds"}
	if cost(line(1)) != 23 || cost("[MEMORY]") != 3 || cost("[SEEDS]")+cost("- S-1 a seed") != 6 {
		t.Fatalf("costs %d, %d, %d: the case assumes 23, 3, 6", cost(line(1)), cost("[MEMORY]"), cost("[SEEDS]")+cost("- S-1 a seed"))
	}
	// The seeds need less than half of the room and are shown whole; the
	// memories get the rest: title, two lines, and a shortened third.
	got := Build([]Part{seeds, mem}, Budgets{Layer1: 200, Layer2: 90, Total: 1000})
	room := 90 - markerCost([]string{"vibe seeds", defaultMore})
	third := Shorten(line(3), room-6-3-23-23-1)
	if !strings.HasSuffix(third, "…") || len(third) < 40 {
		t.Fatalf("third line %q: the case wants a shortened line", third)
	}
	cut := Tokens(line(3)) - Tokens(third) + Tokens(line(4))
	want := strings.Join([]string{"[MEMORY]", line(1), line(2), third, "[SEEDS]", "- S-1 a seed",
		fmt.Sprintf("[… cut: %d more tokens; run `vibe recall QUERY`]", cut),
	}, "\n")
	if got != want {
		t.Errorf("Build =\n%s\nwant\n%s", got, want)
	}
	if Tokens(got) > 90 {
		t.Errorf("%d tokens, budget 90", Tokens(got))
	}
}

func TestShares(t *testing.T) {
	part := func(costs ...int) Part {
		p := Part{}
		for _, c := range costs {
			p.Lines = append(p.Lines, strings.Repeat("x", 4*c-1)) // cost c with the newline
		}
		return p
	}
	tests := []struct {
		name  string
		parts []Part
		room  int
		want  []int
	}{
		{"all fit", []Part{part(5), part(10)}, 100, []int{5, 10}},
		{"small whole, big split the rest", []Part{part(50, 50), part(4), part(80)}, 100, []int{48, 4, 48}},
		{"remainder to the first", []Part{part(90), part(90), part(90)}, 100, []int{34, 33, 33}},
		{"nothing", []Part{part(3)}, 0, []int{0}},
	}
	for _, tt := range tests {
		got := shares(tt.parts, tt.room)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: shares = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBuildTotalCapsLayers(t *testing.T) {
	long := strings.Repeat("z", 400) // 100 tokens
	parts := []Part{
		{Layer: LayerState, Title: "VIBE STATE", Lines: []string{long, long}},
		{Layer: LayerRecall, Title: "MEMORY", Lines: []string{long}},
	}
	got := Build(parts, Budgets{Layer1: 200, Layer2: 500, Total: 150})
	if Tokens(got) > 150 {
		t.Errorf("%d tokens, total 150", Tokens(got))
	}
	if strings.Contains(got, "[MEMORY]") {
		t.Errorf("layer 2 got room after layer 1 used the total:\n%s", got)
	}
	if !strings.HasSuffix(got, "run `vibe recall QUERY`]") {
		t.Errorf("no cut marker:\n%s", got)
	}
	if got := Build(parts, Budgets{Layer1: 200, Layer2: 500, Total: 0}); got != "" {
		t.Errorf("zero total gave %q", got)
	}
}

// TestBuildNeverExceedsBudgets builds random parts under random budgets:
// whatever is handed in, each layer keeps to its budget and the whole to
// Total.
func TestBuildNeverExceedsBudgets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(12)) }
	for i := 0; i < 2000; i++ {
		var parts []Part
		for p := 0; p < 1+r.IntN(6); p++ {
			var lines []string
			for l := 0; l < r.IntN(8); l++ {
				var ws []string
				for w := 0; w < r.IntN(60); w++ {
					ws = append(ws, word())
				}
				lines = append(lines, strings.Join(ws, " "))
			}
			parts = append(parts, Part{Layer: 1 + r.IntN(2), Priority: r.IntN(50), Title: word(), Lines: lines, More: word()})
		}
		b := Budgets{Layer1: r.IntN(300), Layer2: r.IntN(700), Total: r.IntN(1100)}
		got := Build(parts, b)
		l1 := Build(parts, Budgets{Layer1: b.Layer1, Total: b.Total})
		if Tokens(got) > b.Total || Tokens(l1) > b.Layer1 {
			t.Fatalf("case %d: %d tokens (layer 1 %d) over %+v", i, Tokens(got), Tokens(l1), b)
		}
		if l2 := strings.TrimPrefix(strings.TrimPrefix(got, l1), "\n"); Tokens(l2) > b.Layer2 {
			t.Fatalf("case %d: layer 2 %d tokens over %d", i, Tokens(l2), b.Layer2)
		}
	}
}
