package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTableOnATerminalAndInAPipe(t *testing.T) {
	rows := [][]string{
		{"1", "short", "a value that is much too long to fit the terminal's width"},
		{"22", "tab\there", "x"},
	}
	var pipe bytes.Buffer
	Table(IO{Out: &pipe}, "ID\tNAME\tDETAIL", rows)
	wantPipe := "ID\tNAME\tDETAIL\n" +
		"1\tshort\ta value that is much too long to fit the terminal's width\n" +
		"22\ttab here\tx\n"
	if pipe.String() != wantPipe {
		t.Errorf("pipe:\n%q\nwant\n%q", pipe.String(), wantPipe)
	}

	var term bytes.Buffer
	Table(IO{Out: &term, TTY: true, Width: 40}, "ID\tNAME\tDETAIL", rows)
	wantTerm := "ID  NAME      DETAIL\n" +
		"1   short     a value that is much too …\n" +
		"22  tab here  x\n"
	if term.String() != wantTerm {
		t.Errorf("terminal:\n%s\nwant\n%s", term.String(), wantTerm)
	}
	for _, line := range strings.Split(strings.TrimSuffix(term.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 40 {
			t.Errorf("line %q is %d columns wide, the terminal 40", line, n)
		}
	}
}
