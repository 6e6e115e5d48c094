package disclosure

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"éèêë", 1}, // runes, not bytes (8 bytes)
		{"漢字漢字漢", 2},
		{strings.Repeat("x", 4000), 1000},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); got != tt.want {
			t.Errorf("Tokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		in     string
		budget int
		want   string
	}{
		{"short", 5, "short"},
		{"exactly8", 2, "exactly8"},
		{"the quick brown fox jumps", 3, "the quick…"},             // 11 runes kept max, space at 9
		{"abcdefghijklmnopqrstuvwxyz", 3, "abcdefghijk…"},          // no space: hard cut
		{"word " + strings.Repeat("y", 30), 4, "word yyyyyyyyyy…"}, // space too far back
		{"anything", 0, ""},
	}
	for _, tt := range tests {
		got := Shorten(tt.in, tt.budget)
		if got != tt.want || Tokens(got) > tt.budget {
			t.Errorf("Shorten(%q, %d) = %q (%d tokens), want %q", tt.in, tt.budget, got, Tokens(got), tt.want)
		}
	}
}
