package permission

import "strings"

// sedEffects is what a sed script does besides printing: the files its w
// commands and s///w flags write, the commands its e command runs, and
// whether it runs a command it builds (s///e, a bare e).
type sedEffects struct {
	writes   []string
	commands []string
	computed bool
}

// sedScanner reads a sed script; i is the position in s.
type sedScanner struct {
	s   string
	i   int
	out sedEffects
}

// parseSed walks a sed script command by command (GNU syntax: addresses,
// s and y with any delimiter, a/i/c text, labels, braces), so a w or e
// after any address form is found, not only after a line start.
func parseSed(script string) sedEffects {
	sc := &sedScanner{s: script}
	n := len(script)
	for steps := 0; sc.i < n && steps < 10000; steps++ {
		sc.skipBlank()
		if sc.i >= n {
			break
		}
		switch script[sc.i] {
		case '\n', ';', '{', '}':
			sc.i++
			continue
		case '#':
			sc.restOfLine()
			continue
		}
		sc.addresses()
		if sc.i >= n {
			break
		}
		c := script[sc.i]
		sc.i++
		if !sc.command(c) {
			break
		}
	}
	return sc.out
}

func (sc *sedScanner) skipBlank() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *sedScanner) restOfLine() string {
	j := strings.IndexByte(sc.s[sc.i:], '\n')
	if j < 0 {
		j = len(sc.s) - sc.i
	}
	v := sc.s[sc.i : sc.i+j]
	sc.i += j
	return v
}

// delimited reads up to the unescaped delimiter d, and past it.
func (sc *sedScanner) delimited(d byte) {
	for sc.i < len(sc.s) && sc.s[sc.i] != d {
		if sc.s[sc.i] == '\\' {
			sc.i++
		}
		sc.i++
	}
	sc.i++
}

// address reads one address: a line number (first~step), $, /regex/ or
// \cregexc with its I and M flags.
func (sc *sedScanner) address() {
	s, n := sc.s, len(sc.s)
	switch {
	case sc.i < n && s[sc.i] >= '0' && s[sc.i] <= '9':
		for sc.i < n && (s[sc.i] >= '0' && s[sc.i] <= '9' || s[sc.i] == '~') {
			sc.i++
		}
		return
	case sc.i < n && s[sc.i] == '$':
		sc.i++
		return
	case sc.i < n && s[sc.i] == '/':
		sc.i++
		sc.delimited('/')
	case sc.i+1 < n && s[sc.i] == '\\':
		d := s[sc.i+1]
		sc.i += 2
		sc.delimited(d)
	default:
		return
	}
	for sc.i < n && (s[sc.i] == 'I' || s[sc.i] == 'M') {
		sc.i++
	}
}

// addresses reads a command's address range (a,b a,+n a,~n) and its
// negations.
func (sc *sedScanner) addresses() {
	s, n := sc.s, len(sc.s)
	sc.address()
	sc.skipBlank()
	if sc.i < n && s[sc.i] == ',' {
		sc.i++
		sc.skipBlank()
		if sc.i < n && (s[sc.i] == '+' || s[sc.i] == '~') {
			sc.i++
		}
		sc.address()
	}
	sc.skipBlank()
	for sc.i < n && s[sc.i] == '!' {
		sc.i++
		sc.skipBlank()
	}
}

// command reads the command c and its arguments, recording what it
// writes or runs. It reports false when the script ends inside it.
func (sc *sedScanner) command(c byte) bool {
	s, n := sc.s, len(sc.s)
	switch c {
	case 's':
		if sc.i >= n {
			return false
		}
		d := s[sc.i]
		sc.i++
		sc.delimited(d) // regex
		sc.delimited(d) // replacement
		sc.substituteFlags()
	case 'y':
		if sc.i >= n {
			return false
		}
		d := s[sc.i]
		sc.i++
		sc.delimited(d)
		sc.delimited(d)
	case 'w', 'W':
		sc.skipBlank()
		sc.out.writes = append(sc.out.writes, strings.TrimSpace(sc.restOfLine()))
	case 'r', 'R':
		sc.skipBlank()
		sc.restOfLine()
	case 'e':
		sc.skipBlank()
		cmd := strings.TrimSpace(sc.restOfLine())
		if cmd == "" {
			sc.out.computed = true // runs the pattern space
		} else {
			sc.out.commands = append(sc.out.commands, cmd)
		}
	case 'a', 'i', 'c':
		// Text to the end of the line; a trailing backslash continues it.
		for {
			line := sc.restOfLine()
			if !strings.HasSuffix(line, "\\") || sc.i >= n {
				break
			}
			sc.i++
		}
	case ':', 'b', 't', 'T':
		for sc.i < n && s[sc.i] != ';' && s[sc.i] != '\n' && s[sc.i] != '}' {
			sc.i++
		}
	default:
		// q Q l L v: an optional argument up to the end of the command.
		for sc.i < n && strings.IndexByte(";\n}", s[sc.i]) < 0 && strings.IndexByte("qQlLv", c) >= 0 {
			sc.i++
		}
	}
	return true
}

// substituteFlags reads the flags of s///: w FILE writes, e runs the
// result as a command.
func (sc *sedScanner) substituteFlags() {
	for sc.i < len(sc.s) {
		f := sc.s[sc.i]
		switch {
		case f == 'w' || f == 'W':
			sc.i++
			sc.skipBlank()
			sc.out.writes = append(sc.out.writes, strings.TrimSpace(sc.restOfLine()))
			return
		case f == 'e':
			sc.out.computed = true
			sc.i++
		case strings.IndexByte("gpiImM0123456789", f) >= 0:
			sc.i++
		default:
			return
		}
	}
}
