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

// parseSed walks a sed script command by command (GNU syntax: addresses,
// s and y with any delimiter, a/i/c text, labels, braces), so a w or e
// after any address form is found, not only after a line start.
func parseSed(script string) sedEffects {
	var out sedEffects
	s := script
	i := 0
	n := len(s)
	skipBlank := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	restOfLine := func() string {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = n - i
		}
		v := s[i : i+j]
		i += j
		return v
	}
	// delimited reads up to the unescaped delimiter d.
	delimited := func(d byte) {
		for i < n && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		i++ // the delimiter
	}
	address := func() {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < n && s[i] == '$':
			i++
		case i < n && s[i] == '/':
			i++
			delimited('/')
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < n && s[i] == '\\':
			d := s[i+1]
			i += 2
			delimited(d)
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
	}
	for steps := 0; i < n && steps < 10000; steps++ {
		skipBlank()
		if i >= n {
			break
		}
		switch s[i] {
		case '\n', ';', '{', '}':
			i++
			continue
		case '#':
			restOfLine()
			continue
		}
		address()
		skipBlank()
		if i < n && s[i] == ',' {
			i++
			skipBlank()
			if i < n && (s[i] == '+' || s[i] == '~') {
				i++
			}
			address()
		}
		skipBlank()
		for i < n && s[i] == '!' {
			i++
			skipBlank()
		}
		if i >= n {
			break
		}
		c := s[i]
		i++
		switch c {
		case 's':
			if i >= n {
				return out
			}
			d := s[i]
			i++
			delimited(d) // regex
			delimited(d) // replacement
			for i < n {
				f := s[i]
				switch {
				case f == 'w' || f == 'W':
					i++
					skipBlank()
					out.writes = append(out.writes, strings.TrimSpace(restOfLine()))
					f = 0
				case f == 'e':
					out.computed = true
					i++
					continue
				case strings.IndexByte("gpiImM0123456789", f) >= 0:
					i++
					continue
				}
				break
			}
		case 'y':
			if i >= n {
				return out
			}
			d := s[i]
			i++
			delimited(d)
			delimited(d)
		case 'w', 'W':
			skipBlank()
			out.writes = append(out.writes, strings.TrimSpace(restOfLine()))
		case 'r', 'R':
			skipBlank()
			restOfLine()
		case 'e':
			skipBlank()
			cmd := strings.TrimSpace(restOfLine())
			if cmd == "" {
				out.computed = true // runs the pattern space
			} else {
				out.commands = append(out.commands, cmd)
			}
		case 'a', 'i', 'c':
			// Text to the end of the line; a trailing backslash continues it.
			for {
				line := restOfLine()
				if !strings.HasSuffix(line, "\\") || i >= n {
					break
				}
				i++
			}
		case ':', 'b', 't', 'T':
			for i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				i++
			}
		default:
			// q Q l L v: an optional argument up to the end of the command.
			for i < n && strings.IndexByte(";\n}", s[i]) < 0 && strings.IndexByte("qQlLv", c) >= 0 {
				i++
			}
		}
	}
	return out
}
