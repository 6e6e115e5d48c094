package claim

import (
	"reflect"
	"testing"
)

// TestPromotionShortfall: a promotion needs its tier's gates, D1 and a
// review, whatever the domain's table says; the table may name D1 itself
// without it being asked twice.
func TestPromotionShortfall(t *testing.T) {
	corr := Claim{ID: "C-001", Type: TypeCorrelative, Tier: 1}
	all := map[string]bool{"DQ4": true, "DC0": true, "DQ1": true, "D1": true}
	tests := []struct {
		name     string
		table    map[int][]string
		passed   map[string]bool
		reviewed bool
		want     Shortfall
	}{
		{"everything", nil, all, true, Shortfall{Required: []string{"DQ4", "DC0", "DQ1", "D1"}}},
		{"tier gates only", nil, map[string]bool{"DQ4": true, "DC0": true, "DQ1": true}, true,
			Shortfall{Required: []string{"DQ4", "DC0", "DQ1", "D1"}, Gates: []string{"D1"}}},
		{"no review", nil, all, false, Shortfall{Required: []string{"DQ4", "DC0", "DQ1", "D1"}, Review: true}},
		{"nothing", nil, nil, false,
			Shortfall{Required: []string{"DQ4", "DC0", "DQ1", "D1"}, Gates: []string{"DQ4", "DC0", "DQ1", "D1"}, Review: true}},
		{"a table naming D1", map[int][]string{1: {"D1", "DQ4"}}, map[string]bool{"DQ4": true}, true,
			Shortfall{Required: []string{"D1", "DQ4"}, Gates: []string{"D1"}}},
		{"an empty table still needs D1", map[int][]string{}, nil, true, Shortfall{Required: []string{"D1"}, Gates: []string{"D1"}}},
	}
	for _, tt := range tests {
		got := PromotionShortfall(corr, tt.table, tt.passed, tt.reviewed)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
		if got.None() != (len(tt.want.Gates) == 0 && !tt.want.Review) {
			t.Errorf("%s: None() = %v", tt.name, got.None())
		}
	}
}

func TestShortfallMissing(t *testing.T) {
	cmd := func(g string) string { return "`vibe gate run " + g + " --claim C-002`" }
	s := Shortfall{Gates: []string{"DQ1", "DQ2", "D1"}, Review: true}
	want := "gates not passed: `vibe gate run DQ1 --claim C-002`, `vibe gate run DQ2 --claim C-002`; " +
		"no D1 evidence: write RQ-001/04-results/C-002-promotion.json (confounder harness ROBUST, 3+ falsification attempts, " +
		"a counter-evidence search; its shape: `vibe help schemas claim-promotion`), then `vibe gate run D1 --claim C-002`; " +
		"no Reviewer 2 report cites C-002: run `/vibe:review C-002`"
	if got := s.Missing("C-002", cmd, "RQ-001/04-results/C-002-promotion.json"); got != want {
		t.Errorf("Missing:\n got %s\nwant %s", got, want)
	}
	if got := (Shortfall{Review: true}).Missing("C-003", cmd, "x"); got != "no Reviewer 2 report cites C-003: run `/vibe:review C-003`" {
		t.Errorf("review only: %s", got)
	}
}
