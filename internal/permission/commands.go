package permission

import (
	"slices"
	"strings"
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// args is a command's arguments split into options and operands.
type args struct {
	ops   []word
	short map[byte]bool
	long  map[string]bool
	vals  map[string][]word // option -> values; short options keyed by their letter
}

func (p *args) has(short byte, long ...string) bool {
	if short != 0 && p.short[short] {
		return true
	}
	for _, l := range long {
		if p.long[l] {
			return true
		}
	}
	return false
}

func (p *args) value(short byte, long ...string) []word {
	var out []word
	if short != 0 {
		out = append(out, p.vals[string(short)]...)
	}
	for _, l := range long {
		out = append(out, p.vals[l]...)
	}
	return out
}

// parseArgs splits argv into options and operands. shortVal lists the short
// options that take a value, longVal the long ones. A word that is not known
// is an operand: guessing it is an option would hide a target.
func parseArgs(argv []word, shortVal string, longVal ...string) *args {
	p := &args{short: map[byte]bool{}, long: map[string]bool{}, vals: map[string][]word{}}
	end := false
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		s, ok := w.single()
		if end || !ok || len(s) < 2 || s[0] != '-' {
			p.ops = append(p.ops, w)
			continue
		}
		if s == "--" {
			end = true
			continue
		}
		if strings.HasPrefix(s, "--") {
			name, val, eq := strings.Cut(s[2:], "=")
			p.long[name] = true
			if eq {
				p.vals[name] = append(p.vals[name], lit(val))
				continue
			}
			if slices.Contains(longVal, name) && i+1 < len(argv) {
				p.vals[name] = append(p.vals[name], argv[i+1])
				i++
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			p.short[c] = true
			if strings.IndexByte(shortVal, c) >= 0 {
				if j+1 < len(s) {
					p.vals[string(c)] = append(p.vals[string(c)], lit(s[j+1:]))
				} else if i+1 < len(argv) {
					p.vals[string(c)] = append(p.vals[string(c)], argv[i+1])
					i++
				}
				break
			}
		}
	}
	return p
}

func wordsText(argv []word) string {
	parts := make([]string, len(argv))
	for i, w := range argv {
		if v, ok := w.single(); ok {
			parts[i] = v
		} else {
			parts[i] = w.raw
		}
	}
	return strings.Join(parts, " ")
}

// run analyses one simple command with its words expanded.
func (a *shellAnalyzer) run(argv []word, st *shellState, in stdinSrc, raw string) {
	if len(argv) == 0 {
		return
	}
	a.calls++
	if a.calls > maxCalls {
		if a.calls == maxCalls+1 {
			a.eff.unparsed = true
			a.unknownEffect(raw, "too many commands to analyse")
		}
		return
	}
	call := strs(argv)
	name, ok := argv[0].single()
	if !ok {
		a.eff.programs = append(a.eff.programs, "")
		a.eff.calls = append(a.eff.calls, call)
		a.eff.runs = append(a.eff.runs, runOf(call, st, in))
		a.unknownEffect(raw, "a command whose name is not known")
		return
	}
	prog := programName(name)
	a.eff.programs = append(a.eff.programs, prog)
	for _, w := range argv[1:] {
		if w.glob {
			a.expand(w, st) // records what the command's globs reach
		}
	}
	a.eff.calls = append(a.eff.calls, call)
	a.eff.runs = append(a.eff.runs, runOf(call, st, in))
	rest := argv[1:]
	if raw == "" {
		raw = wordsText(argv)
	}

	a.compute(prog, rest, st, in, raw)
	if undo := a.launcher(prog, rest, raw); undo != nil {
		defer undo()
	}
	if a.builtin(prog, rest, st, in, raw) {
		return
	}
	if w := programs[prog]; w != nil {
		a.writes(w, invocation{prog: prog, args: rest, st: st, in: in, raw: raw})
		return
	}
	if lang := interpreterOf(prog); lang != "" {
		a.interpreter(lang, prog, rest, st, in, raw)
		return
	}
	a.opaque(prog, raw)
}

// cutSuffix removes the first compression suffix v ends with; .tgz and
// friends become .tar.
func cutSuffix(v string, sfx []string) string {
	for _, x := range sfx {
		if x != "" && strings.HasSuffix(strings.ToLower(v), strings.ToLower(x)) && len(v) > len(x) {
			base := v[:len(v)-len(x)]
			if x == ".tgz" || x == ".taz" || x == ".tbz2" || x == ".txz" {
				return base + ".tar"
			}
			return base
		}
	}
	return v
}

func (a *shellAnalyzer) opaque(prog, raw string) {
	a.eff.opaque = append(a.eff.opaque, prog)
}

func allKnown(ws []word) bool {
	for _, w := range ws {
		if _, ok := w.single(); !ok {
			return false
		}
	}
	return true
}

func mapVals(vals []string, f func(string) string) []string {
	if vals == nil {
		return nil
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = f(v)
	}
	return out
}

// shellCmd handles bash/sh/zsh: -c runs its argument as a script, a script
// file is opaque, and with neither the shell reads its program from stdin.
func (a *shellAnalyzer) shellCmd(prog string, argv []word, st *shellState, in stdinSrc, raw string) {
	if prog == "busybox" {
		if len(argv) > 0 {
			a.run(argv, st, in, raw)
		}
		return
	}
	cflag := false
	i := 0
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok {
			break
		}
		if s == "--" || s == "-" {
			i++
			break
		}
		if s == "-o" || s == "+o" || s == "-O" || s == "+O" || s == "--rcfile" || s == "--init-file" {
			i++
			continue
		}
		if strings.HasPrefix(s, "--") {
			continue
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			if s[0] == '-' && strings.IndexByte(s, 'c') > 0 {
				cflag = true
			}
			continue
		}
		break
	}
	switch {
	case cflag:
		if i >= len(argv) {
			return
		}
		if script, ok := argv[i].single(); ok {
			a.nested(script, st.clone())
		} else if argv[i].known() {
			for _, script := range argv[i].vals {
				a.nested(script, st.clone()) // xargs -I{} sh -c '... {}'
			}
		} else {
			a.unknownEffect(argv[i].raw, prog+" -c with unknown text")
		}
	case i < len(argv):
		a.opaque(prog, raw)
	case in.known:
		a.nested(in.text, st.clone())
	case in.piped:
		if a.dl {
			a.hit("remote-code", false, in.text+" | "+prog)
		}
		a.unknownEffect(in.text+"\n"+raw, prog+" reads its commands from a pipe or file")
	}
}

// envRunner handles "uv run", "poetry run", "conda run -n env" and the
// like: the command after "run" and its options is analysed as if typed.
func (a *shellAnalyzer) envRunner(prog string, argv []word, st *shellState, in stdinSrc, raw string) {
	if len(argv) == 0 {
		return
	}
	if sub, _ := argv[0].single(); sub != "run" {
		a.opaque(prog, raw)
		return
	}
	valued := setOf("--with", "--python", "-p", "--project", "--directory", "--env-file", "--group",
		"--extra", "-n", "--name", "--prefix", "-e", "--environment", "--cwd", "--index", "--from")
	i := 1
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok || !strings.HasPrefix(s, "-") {
			break
		}
		if s == "--" {
			i++
			break
		}
		if valued[s] {
			i++
		}
	}
	if i < len(argv) {
		a.run(argv[i:], st.clone(), in, "")
	}
}

func (a *shellAnalyzer) nestedWord(w word, st *shellState, via string) {
	if v, ok := w.single(); ok {
		a.nested(v, st.clone())
		return
	}
	a.unknownEffect(w.raw, via+" with unknown text")
}

func (a *shellAnalyzer) chdir(st *shellState, v string) {
	if v == "" {
		st.cwd = ""
		return
	}
	if p, ok := a.abs(v, st); ok {
		st.cwd = cleanAbs(p)
	} else {
		st.cwd = ""
	}
}
