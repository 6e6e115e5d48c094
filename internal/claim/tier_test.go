package claim

import (
	"reflect"
	"testing"
)

func TestRequiredGates(t *testing.T) {
	domain := map[int][]string{0: {"DQ4"}, 2: {"DQ4", "DQ2"}}
	onlyLow := map[int][]string{0: {"DQ4"}, 1: {"DQ4", "DQ1"}}
	tests := []struct {
		name  string
		claim Claim
		table map[int][]string
		want  []string
	}{
		{"descriptive", Claim{Type: TypeDescriptive, Tier: 0}, nil, []string{"DQ4", "DC0"}},
		{"correlative", Claim{Type: TypeCorrelative, Tier: 1}, nil, []string{"DQ4", "DC0", "DQ1"}},
		{"predictive", Claim{Type: TypePredictive, Tier: 2}, nil, []string{"DQ4", "DC0", "DQ1", "DQ2"}},
		{"causal", Claim{Type: TypeCausal, Tier: 3}, nil, []string{"DQ4", "DC0", "DQ1", "DQ2", "DQ3"}},
		{"tier raised above the type", Claim{Type: TypeDescriptive, Tier: 2}, nil, []string{"DQ4", "DC0", "DQ1", "DQ2"}},
		{"tier below the type does not lower the gates", Claim{Type: TypeCausal, Tier: 0}, nil, []string{"DQ4", "DC0", "DQ1", "DQ2", "DQ3"}},
		{"untyped claim built by hand keeps its tier", Claim{Tier: 1}, nil, []string{"DQ4", "DC0", "DQ1"}},
		{"tier out of range is clamped", Claim{Tier: 9}, nil, []string{"DQ4", "DC0", "DQ1", "DQ2", "DQ3"}},
		{"negative tier is clamped", Claim{Tier: -2}, nil, []string{"DQ4", "DC0"}},
		{"domain table", Claim{Type: TypePredictive, Tier: 2}, domain, []string{"DQ4", "DQ2"}},
		{"missing tier takes the next higher row", Claim{Type: TypeCorrelative, Tier: 1}, domain, []string{"DQ4", "DQ2"}},
		{"no higher row: the nearest lower one", Claim{Type: TypeCausal, Tier: 3}, onlyLow, []string{"DQ4", "DQ1"}},
		{"empty table", Claim{Tier: 1}, map[int][]string{}, nil},
	}
	for _, tt := range tests {
		if got := RequiredGates(tt.claim, tt.table); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: RequiredGates = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRequiredGatesReturnsACopy(t *testing.T) {
	got := RequiredGates(Claim{Type: TypeDescriptive}, nil)
	got[0] = "changed"
	if DefaultPromotionGates[0][0] != "DQ4" {
		t.Fatalf("RequiredGates handed out the table's own slice: %q", DefaultPromotionGates[0])
	}
}

func TestDefaultTier(t *testing.T) {
	tests := map[string]int{TypeDescriptive: 0, TypeCorrelative: 1, TypePredictive: 2, TypeCausal: 3, "": 3, "anecdotal": 3}
	for typ, want := range tests {
		if got := DefaultTier(typ); got != want {
			t.Errorf("DefaultTier(%q) = %d, want %d", typ, got, want)
		}
	}
}

func TestMissingSalvage(t *testing.T) {
	tests := []struct {
		c    Claim
		want bool
	}{
		{Claim{Status: StatusKilled, KillReason: KillInsufficientEvidence}, true},
		{Claim{Status: StatusKilled, KillReason: KillConfounded}, true},
		{Claim{Status: StatusKilled, KillReason: KillPremature}, true},
		{Claim{Status: StatusKilled, KillReason: KillConfounded, SalvagedSeed: "SEED-20260101-001"}, false},
		{Claim{Status: StatusKilled, KillReason: KillArtifact}, false},
		{Claim{Status: StatusKilled, KillReason: KillLogicallyFalse}, false},
		{Claim{Status: StatusKilled}, false},
		{Claim{Status: StatusDisputed, KillReason: KillConfounded}, false},
	}
	for _, tt := range tests {
		if got := MissingSalvage(tt.c); got != tt.want {
			t.Errorf("MissingSalvage(%+v) = %v, want %v", tt.c, got, tt.want)
		}
	}
}
