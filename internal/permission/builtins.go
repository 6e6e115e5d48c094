package permission

import (
	"os"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hit is an operation the analysis found that a configured command group
// decides: an approval to ask ("download", "install") or a forbidden one
// to refuse ("daemon").
type hit struct {
	group  string
	forbid bool
	text   string
	job    *jobAsk // a compute run: what it asks for (compute.go)
}

func (a *shellAnalyzer) hit(group string, forbid bool, text string) {
	a.eff.hits = append(a.eff.hits, hit{group: group, forbid: forbid, text: shorten(text)})
}

// builtin handles the commands that change the shell's own state (glob
// options, variables, traps) or that are judged by what they do rather
// than by the files they write (signals). It reports whether the command
// needs no further analysis.
func (a *shellAnalyzer) builtin(prog string, argv []word, st *shellState, in stdinSrc, raw string) bool {
	switch prog {
	case "shopt":
		p := parseArgs(argv, "")
		on := p.has('s')
		for _, op := range p.ops {
			v, ok := op.single()
			if !ok {
				// An option named at run time: assume the widest globs.
				st.glob = globOpts{nocase: true, dot: true, star: true}
				continue
			}
			switch v {
			case "nocaseglob", "nocasematch":
				st.glob.nocase = on
			case "dotglob":
				st.glob.dot = on
			case "globstar":
				st.glob.star = on
			}
		}
		return true
	case "read", "mapfile", "readarray", "getopts":
		a.readVars(prog, argv, st, in)
		return true
	case "printf":
		p := parseArgs(argv, "v")
		for _, name := range p.value('v') {
			n, ok := name.single()
			if !ok {
				continue
			}
			st.vars[n] = a.printfValue(p.ops)
		}
		return true
	case "trap":
		p := parseArgs(argv, "")
		if p.has('p') || p.has('l') || len(p.ops) < 2 {
			return true
		}
		if v, ok := p.ops[0].single(); ok {
			if v != "-" && v != "" {
				a.nested(v, st.clone())
			}
		} else {
			a.unknownEffect(p.ops[0].raw, "trap with unknown text")
		}
		return true
	case "kill", "pkill", "killall", "skill":
		a.signal(prog, argv, raw)
		return true
	case "shuf":
		for _, w := range parseArgs(argv, "oinr", "output", "input-range", "head-count", "random-source").value('o', "output") {
			a.target(w, st, kindFile, "shuf -o")
		}
		return true
	case "iconv":
		for _, w := range parseArgs(argv, "ftoc", "from-code", "to-code", "output").value('o', "output") {
			a.target(w, st, kindFile, "iconv -o")
		}
		return true
	case "script":
		a.script1(argv, st, in, raw)
		return true
	case "hash", "enable":
		if p := parseArgs(argv, "pf"); len(p.value('p')) > 0 || len(p.value('f')) > 0 {
			// hash -p makes a name run another program; enable -f loads one.
			a.unknownEffect(raw, prog+" makes a command name run another program")
		}
		return true
	}
	return false
}

// readVars gives the variables read, mapfile and getopts set the text
// that feeds them: known for a here-string or heredoc read into one name,
// else unknown but carrying the feeding command for the protected-name
// scan and for listings (ls | while read f).
func (a *shellAnalyzer) readVars(prog string, argv []word, st *shellState, in stdinSrc) {
	p := parseArgs(argv, "adnNptuCcs", "")
	names := p.ops
	if prog == "getopts" && len(names) > 0 {
		names = names[1:]
	}
	if arr := p.value('a'); prog == "read" && len(arr) > 0 {
		names = append(names, arr...)
	}
	if len(names) == 0 && prog == "read" {
		names = []word{lit("REPLY")}
	}
	if len(names) == 0 && prog != "getopts" {
		names = []word{lit("MAPFILE")}
	}
	for i, nw := range names {
		n, ok := nw.single()
		if !ok {
			continue
		}
		v := word{raw: "\x00" + in.text}
		switch {
		case prog == "read" && len(names) == 1 && in.known:
			line, _, _ := strings.Cut(in.text, "\n")
			v = lit(strings.TrimSpace(line))
		case prog == "read" && in.piped && len(names) == 1 && i == 0:
			if c, scope, fromFS := a.listing(in.text, st); c != nil {
				v = word{vals: c, raw: "\x00" + in.text, computed: fromFS}
			} else if scope != nil {
				v = word{raw: "\x00" + in.text, computed: true, scope: scope}
			}
		}
		st.vars[n] = v
	}
}

// printfValue is what printf -v stores: the format with %s filled from
// the arguments when all are known, else unknown.
func (a *shellAnalyzer) printfValue(ops []word) word {
	raw := wordsText(ops)
	if len(ops) == 0 || !allKnown(ops) {
		return word{raw: "\x00" + raw}
	}
	format, _ := ops[0].single()
	args := make([]string, 0, len(ops)-1)
	for _, o := range ops[1:] {
		v, _ := o.single()
		args = append(args, v)
	}
	var b strings.Builder
	k := 0
	format = ansiC(format)
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case '%':
			b.WriteByte('%')
		case 's', 'b', 'd', 'i', 'q':
			if k < len(args) {
				b.WriteString(args[k])
				k++
			}
		default:
			return word{raw: "\x00" + raw} // widths, floats: not worth modelling
		}
	}
	return lit(b.String())
}

// script runs a command (-c) or a shell reading stdin, and writes its log
// to the file operand (default "typescript") and the -O/-I/-B/-T files.
func (a *shellAnalyzer) script1(argv []word, st *shellState, in stdinSrc, raw string) {
	p := parseArgs(argv, "cEOIBTtm", "command", "echo", "log-out", "log-in", "log-io", "log-timing", "timing", "logging-format")
	for _, w := range p.value('O', "log-out") {
		a.target(w, st, kindFile, "script -O")
	}
	for _, w := range append(p.value('I', "log-in"), p.value('B', "log-io")...) {
		a.target(w, st, kindFile, "script log")
	}
	for _, w := range append(p.value('T', "log-timing"), p.value(0, "timing")...) {
		a.target(w, st, kindFile, "script timing")
	}
	if len(p.ops) > 0 {
		a.target(p.ops[0], st, kindFile, "script")
	} else if p.value('O', "log-out") == nil {
		a.targetValue("typescript", st, kindFile, "script")
	}
	cmds := p.value('c', "command")
	for _, c := range cmds {
		a.nestedWord(c, st, "script -c")
	}
	if len(cmds) == 0 {
		a.shellCmd("sh", nil, st, in, raw)
	}
}

// vibeNames are the names vibe's processes run under; a pkill or killall
// pattern that matches one of them would reach the worker.
var vibeNames = []string{"vibe", "vibe-embed-worker", "vibe-hook", "vibe-pre-tool-use", "vibe-post-tool-use",
	"/usr/local/bin/vibe-embed-worker --socket /home/u/.vibe-science/worker.sock"}

// Words that tie a signal to a computed process id to vibe: in the whole
// command, or in the word that computes the id (a process lookup).
var (
	daemonText   = []string{"vibe", "embed-worker", "worker.pid", "worker.sock"}
	daemonLookup = []string{"pgrep", "pidof", "lsof", "fuser", "ps ", "ps -", "/proc", "pid"}
)

// signal finds the signals a command sends to vibe's own processes: a
// pkill or killall pattern that matches one of their names (or a running
// one), a pkill with no pattern (every process of the user), a kill of -1,
// of a process id that is one of them, or of an id computed in a command
// that names vibe or looks processes up.
func (a *shellAnalyzer) signal(prog string, argv []word, raw string) {
	text := strings.ToLower(raw)
	if text == "" {
		text = strings.ToLower(wordsText(argv))
	}
	switch prog {
	case "pkill", "killall", "skill":
		p := parseArgs(argv, "sguUtPFcnoe", "signal", "group", "uid", "euid", "terminal", "parent", "pidfile", "older-than", "younger-than", "ns", "nslist", "session")
		full := p.has('f', "full")
		regex := prog == "pkill" || p.has('r', "regexp")
		if len(p.ops) == 0 && (p.has('u', "uid", "euid") || p.has('U') || len(p.value('F', "pidfile")) > 0) {
			a.hit("daemon", true, raw) // every process of a user, or one named in a file
			return
		}
		for _, op := range p.ops {
			v, ok := op.single()
			if !ok {
				if containsAny(text, daemonText) || containsAny(strings.ToLower(op.raw), daemonLookup) {
					a.hit("daemon", true, raw)
					return
				}
				continue
			}
			if matchesVibeName(v, regex) || vibeProcessMatches(v, regex, full) {
				a.hit("daemon", true, raw)
				return
			}
		}
	case "kill":
		// After the signal (-9, -s KILL, -n 9), "-1" is a process id:
		// every process the user may signal.
		sig := false
		for k, w := range argv {
			v, _ := w.single()
			if (sig || k > 0 && argv[k-1].raw == "--") && v == "-1" {
				a.hit("daemon", true, raw)
				return
			}
			if strings.HasPrefix(v, "-") && v != "--" {
				sig = true
			}
		}
		p := parseArgs(argv, "sn")
		for _, op := range p.ops {
			v, ok := op.single()
			if !ok {
				switch pidSource(op.raw, text) {
				case pidsVibe:
					a.hit("daemon", true, raw)
					return
				case pidsUnknown:
					a.hit("signal", false, raw)
				}
				continue
			}
			if v == "-1" || v == "0" || isDigits(v) && vibePID(v) {
				a.hit("daemon", true, raw)
				return
			}
		}
	}
}

// The processes a computed process id may name.
const (
	pidsOthers  = iota // processes that cannot be vibe's (a TCP port's owner, a name that is not vibe's)
	pidsVibe           // possibly vibe's: refused
	pidsUnknown        // cannot be told before it runs: asked (a signal cannot be undone)
)

// pidSource tells which processes the computed process id in word (the
// command substitution or variable kill is given) names: a lookup by a
// network port (lsof -i, fuser N/tcp; the worker listens on a unix socket
// only), by a name or pattern (pgrep, pidof, ps | grep) that does not
// reach vibe's names, or the shell's own jobs ($!, jobs -p) cannot be the
// worker; a lookup that names vibe, or that lists every process, may be.
func pidSource(word, command string) int {
	lower := strings.ToLower(word)
	if containsAny(lower, daemonText) || containsAny(command, daemonText) {
		return pidsVibe
	}
	src := word
	switch {
	case strings.HasPrefix(src, "$(") && strings.HasSuffix(src, ")"):
		src = src[2 : len(src)-1]
	case strings.HasPrefix(src, "`") && strings.HasSuffix(src, "`") && len(src) > 1:
		src = src[1 : len(src)-1]
	case src == "$!" || src == "${!}":
		return pidsOthers // the last job this shell started
	default:
		return pidsUnknown // a variable, a file read at run time
	}
	stmts := pipeline(src)
	if stmts == nil {
		return pidsUnknown
	}
	stages := make([][]string, len(stmts))
	for i, st := range stmts {
		stages[i] = literalArgs(st)
	}
	first := stages[0]
	if len(first) == 0 {
		return pidsUnknown
	}
	args := first[1:]
	switch programName(first[0]) {
	case "jobs":
		return pidsOthers
	case "lsof":
		for _, a := range args {
			if strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "-ti") || strings.HasPrefix(a, "-ni") ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i:") {
				return pidsOthers
			}
		}
		return pidsUnknown
	case "fuser":
		for _, a := range args {
			if strings.HasSuffix(a, "/tcp") || strings.HasSuffix(a, "/udp") || a == "tcp" || a == "udp" {
				return pidsOthers
			}
		}
		return pidsUnknown
	case "pgrep", "pidof":
		full := false
		var pats []string
		for _, a := range args {
			switch {
			case a == "--full" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f"):
				full = true
			case strings.HasPrefix(a, "-"):
			default:
				pats = append(pats, a)
			}
		}
		if len(pats) == 0 {
			return pidsUnknown
		}
		for _, pat := range pats {
			if pat == "\x00" || matchesVibeName(pat, programName(first[0]) == "pgrep") || vibeProcessMatches(pat, programName(first[0]) == "pgrep", full) {
				return pidsVibe
			}
		}
		return pidsOthers
	case "ps":
		// ps ... | grep PATTERN ...: the pids of the lines a positive grep
		// keeps.
		for _, st := range stages[1:] {
			if len(st) == 0 || programName(st[0]) != "grep" && programName(st[0]) != "egrep" && programName(st[0]) != "fgrep" {
				continue
			}
			invert := false
			var pat string
			for _, a := range st[1:] {
				if strings.HasPrefix(a, "-") {
					invert = invert || strings.Contains(a, "v") && !strings.HasPrefix(a, "--") || a == "--invert-match"
					continue
				}
				if pat == "" {
					pat = a
				}
			}
			if invert || pat == "" || pat == "\x00" {
				continue
			}
			if matchesVibeName(pat, true) || vibeProcessMatches(pat, true, true) {
				return pidsVibe
			}
			return pidsOthers
		}
		return pidsUnknown
	}
	return pidsUnknown
}

// literalArgs returns a simple command's words as written, "\x00" for a
// word that is not a plain literal.
func literalArgs(s *syntax.Stmt) []string {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		v, ok := literalWord(w)
		if !ok {
			v = "\x00"
		}
		out = append(out, v)
	}
	return out
}

// matchesVibeName reports whether a pkill pattern (a regular expression
// matched anywhere) or a killall name reaches one of vibe's process names.
func matchesVibeName(pattern string, regex bool) bool {
	if !regex {
		for _, n := range vibeNames {
			if strings.EqualFold(pattern, n) {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return strings.Contains(strings.ToLower(pattern), "vibe")
	}
	for _, n := range vibeNames {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// vibePID reports whether the process is one of vibe's (its name starts
// with "vibe"). Only Linux has /proc; elsewhere the id is not looked up.
func vibePID(pid string) bool {
	comm, err := os.ReadFile("/proc/" + pid + "/comm")
	return err == nil && strings.HasPrefix(strings.TrimSpace(string(comm)), "vibe")
}

// vibeProcessMatches reports whether a pkill/killall pattern matches a
// running vibe process (by name, or by command line with -f).
func vibeProcessMatches(pattern string, regex, full bool) bool {
	var re *regexp.Regexp
	if regex {
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return false
		}
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !isDigits(e.Name()) {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		if !strings.HasPrefix(name, "vibe") {
			continue
		}
		subject := name
		if full {
			if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
				subject = strings.ReplaceAll(string(cl), "\x00", " ")
			}
		}
		if regex && re.MatchString(subject) || !regex && subject == pattern {
			return true
		}
	}
	return false
}
