package permission

import (
	"reflect"
	"testing"
)

// TestParseSed pins what a sed script writes and runs, after every
// address form.
func TestParseSed(t *testing.T) {
	tests := []struct {
		script string
		want   sedEffects
	}{
		{"s/a/b/g", sedEffects{}},
		{"w out", sedEffects{writes: []string{"out"}}},
		{"1,$w out\np", sedEffects{writes: []string{"out"}}},
		{"/x/I,+2!w a.txt", sedEffects{writes: []string{"a.txt"}}},
		{`\,a/b,w c`, sedEffects{writes: []string{"c"}}},
		{"0~3 s/a/b/gpw o1", sedEffects{writes: []string{"o1"}}},
		{"s|a|b|e", sedEffects{computed: true}},
		{"1e rm x\n$e", sedEffects{commands: []string{"rm x"}, computed: true}},
		{"y/abc/xyz/;w y", sedEffects{writes: []string{"y"}}},
		{"a\\\nw not-a-command\nw real", sedEffects{writes: []string{"real"}}},
		{"r in; w out", sedEffects{}}, // r's file name runs to the end of the line
		{":l;b l;{w in-braces\n}", sedEffects{writes: []string{"in-braces"}}},
		{"# w comment\nq5;w q", sedEffects{writes: []string{"q"}}},
		{"s", sedEffects{}},
	}
	for _, tc := range tests {
		if got := parseSed(tc.script); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %+v, want %+v", tc.script, got, tc.want)
		}
	}
}
