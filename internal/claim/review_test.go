package claim

import (
	"reflect"
	"testing"
)

func TestCitedClaims(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"no claims here", nil},
		{"C-001", []string{"C-001"}},
		{"See C-002, then C-001 and C-002 again.", []string{"C-001", "C-002"}},
		{"c-003 and C004", []string{"C-003", "C-004"}},
		{"C-1000 before? no: C-999 first", []string{"C-999", "C-1000"}},
		{`{"claim_id":"C-005"}`, []string{"C-005"}},
		{"- claim_id: C-006\n", []string{"C-006"}},
		{"figures/C-007.png and [C-008] and (C-009)", []string{"C-007", "C-008", "C-009"}},
		{"C-010-rev2", []string{"C-010"}},
		{"ABC-001 xC-002 C-0012f C_001 c001 c0012fa SEED-20260101-001", nil},
		{"C-12 C12 C- C", nil},
		{"_C-001 9C-002", nil},
		{"C-0001 is not C-001", []string{"C-0001", "C-001"}},
		{"ends with C-011", []string{"C-011"}},
		{"Ç-001 C-013", []string{"C-013"}},
	}
	for _, tt := range tests {
		if got := CitedClaims([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CitedClaims(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
