package recall

import (
	"reflect"
	"testing"
)

func TestCollapse(t *testing.T) {
	h := func(id int64, text string) Hit { return Hit{ID: id, Text: text} }
	tests := []struct {
		name string
		in   []Hit
		want []int64
	}{
		{"distinct stay", []Hit{h(1, "gate DQ1 failed"), h(2, "gate DQ2 failed")}, []int64{1, 2}},
		{"same words, other case and punctuation", []Hit{h(1, "Gate DQ1 failed."), h(2, "gate dq1 FAILED")}, []int64{1}},
		{"the better (first) one is kept", []Hit{h(9, "x y z"), h(3, "X, y; z!")}, []int64{9}},
		{"one word more in a long text is a near duplicate",
			[]Hit{h(1, "session summary: re-aligned the reads, rebuilt the site table, re-ran DQ1 which passes, opened C-7 on distal mismatches today"),
				h(2, "session summary: re-aligned the reads, rebuilt the site table, re-ran DQ1 which passes, opened C-7 on distal mismatches")},
			[]int64{1}},
		{"negation keeps texts apart", []Hit{h(1, "the effect is significant"), h(2, "the effect is not significant")}, []int64{1, 2}},
		{"empty text", []Hit{h(1, ""), h(2, "...")}, []int64{1}},
		{"stops at the limit", []Hit{h(1, "a b"), h(2, "c d"), h(3, "e f"), h(4, "g h"), h(5, "i j"), h(6, "k l"),
			h(7, "m n"), h(8, "o p"), h(9, "q r"), h(10, "s t"), h(11, "u v")}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	}
	for _, tt := range tests {
		var got []int64
		for _, x := range collapse(tt.in, 10) {
			got = append(got, x.ID)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: kept %v, want %v", tt.name, got, tt.want)
		}
	}
}
