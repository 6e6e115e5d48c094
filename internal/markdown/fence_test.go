package markdown

import (
	"strings"
	"testing"
)

func TestFences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		code string // one letter a line: c code, t text
	}{
		{"plain", "a\nb", "tt"},
		{"backticks", "```go\nx\n```\ny", "ccct"},
		{"tildes", "~~~\nx\n~~~\ny", "ccct"},
		{"nested: a shorter fence inside is content", "````md\n```\nx\n```\n````\ny", "ccccct"},
		{"the other character does not close", "~~~\n```\nx\n~~~\ny", "cccct"},
		{"a longer closing fence closes", "```\nx\n`````\ny", "ccct"},
		{"a closing fence takes no info string", "```\n``` go\nx\n```\ny", "cccct"},
		{"three spaces in is a fence", "   ```\nx\n   ```\ny", "ccct"},
		{"four spaces in is not", "    ```\nx", "tt"},
		{"two backticks are not", "``\nx", "tt"},
		{"inline code is not a fence", "```x``` and\ny", "tt"},
		{"a tilde fence may hold backticks in its info", "~~~ `a`\nx\n~~~\ny", "ccct"},
		{"unclosed runs to the end", "```\nx\ny", "ccc"},
		{"CRLF", "```\r\nx\r\n```\r\ny\r", "ccct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Fences
			var got strings.Builder
			for _, l := range strings.Split(tt.in, "\n") {
				if f.Step(l) {
					got.WriteByte('c')
				} else {
					got.WriteByte('t')
				}
			}
			if got.String() != tt.code {
				t.Errorf("%q: got %s, want %s", tt.in, got.String(), tt.code)
			}
		})
	}
}
