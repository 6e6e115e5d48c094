package permission

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// listing returns the names a command that feeds a pipe prints when it
// lists files (ls, find, echo, printf), so `ls | xargs rm` or `ls | while
// read f; do ...` is judged against the files it would name. The first
// command of the feeding pipeline decides, read with its filters (find's
// expression, ls -a); the grep filters after it narrow the list (a grep
// vibe cannot read leaves it whole: it only ever narrows). nil when the
// list cannot be told; then scope, when known, holds the folders the
// names lie under (a listing of too many files). fromFS says the names
// were read from the file system (ls, find) rather than spelled by the
// command (echo, printf).
func (a *shellAnalyzer) listing(src string, st *shellState) (names, scope []string, fromFS bool) {
	if src == "" || len(src) > 4096 {
		return nil, nil, false
	}
	all := pipeline(src)
	if all == nil {
		return nil, nil, false
	}
	stmt, stages := all[0], all[1:]
	call, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil, nil, false
	}
	// A throwaway analyser: evaluating the words must not record effects
	// twice.
	b := &shellAnalyzer{eff: &effects{links: a.eff.links}, root: a.root, home: a.home, src: src}
	argv := make([]word, 0, len(call.Args))
	for _, w := range call.Args {
		argv = append(argv, b.eval(w, st, true))
	}
	name, ok := argv[0].single()
	if !ok {
		return nil, nil, false
	}
	var out []string
	add := func(s string) bool {
		out = append(out, s)
		return len(out) <= maxGlobMatches
	}
	switch programName(name) {
	case "echo", "printf":
		for _, w := range argv[1:] {
			vals := b.expand(w, st)
			if vals == nil {
				return nil, nil, false
			}
			for _, v := range vals {
				if strings.ContainsAny(v, "\\%") {
					return nil, nil, false // escapes and formats: the output is not the text
				}
				for _, f := range strings.Fields(v) {
					if !strings.HasPrefix(f, "-") && !add(f) {
						return nil, nil, false
					}
				}
			}
		}
	case "ls":
		p := parseArgs(argv[1:], "")
		hidden := p.has('a') || p.has('A')
		ops := p.ops
		if len(ops) == 0 {
			ops = []word{lit(".")}
		}
		for _, op := range ops {
			vals, globScope := b.expandScoped(op, st)
			if vals == nil {
				return nil, globScope, true
			}
			for _, v := range vals {
				abs, ok := b.abs(v, st)
				if !ok {
					return nil, nil, false
				}
				entries, err := os.ReadDir(filepath.FromSlash(resolve(abs, a.eff.links)))
				if err != nil {
					if !add(v) {
						return nil, []string{abs}, true
					}
					continue
				}
				scope = append(scope, abs)
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), ".") && !hidden {
						continue
					}
					if len(out) > maxWalk {
						return nil, scope, true
					}
					out = append(out, e.Name())
				}
			}
		}
	case "find":
		q := b.findQuery(argv[1:], st)
		if q.unknown {
			return nil, nil, false
		}
		var starts []string
		for _, sw := range q.starts {
			sv, ok := sw.single()
			if !ok {
				return nil, nil, false
			}
			starts = append(starts, sv)
			if abs, ok := b.abs(sv, st); ok {
				scope = append(scope, abs)
			}
		}
		q.printed = &out
		if !b.findWalk(q, starts, st) {
			return nil, scope, true
		}
	default:
		return nil, nil, false
	}
	out = grepFilter(out, stages, b, st)
	fromFS = programName(name) == "ls" || programName(name) == "find"
	if len(out) > maxGlobMatches {
		return nil, scope, fromFS
	}
	return out, nil, fromFS
}

// pipeline parses src, one command or one pipeline, into its stages, first
// to last; nil when src is anything else or does not parse.
func pipeline(src string) []*syntax.Stmt {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	var stages []*syntax.Stmt
	stmt := f.Stmts[0]
	for {
		b, ok := stmt.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		stages = append([]*syntax.Stmt{b.Y}, stages...)
		stmt = b.X
	}
	return append([]*syntax.Stmt{stmt}, stages...)
}

// grepFilter keeps the names the grep stages of a pipeline let through:
// grep PATTERN, -v, -i, -E, -F, -w, -x with one literal pattern Go's
// regexp reads like grep does. Any other stage (sort, head, sed) leaves the
// list as it is: it never names a file the list does not hold, except sed
// and the like, which are not filters and end the reading.
func grepFilter(names []string, stages []*syntax.Stmt, b *shellAnalyzer, st *shellState) []string {
	for _, stage := range stages {
		call, ok := stage.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return names
		}
		argv := make([]word, 0, len(call.Args))
		for _, w := range call.Args {
			argv = append(argv, b.eval(w, st, false))
		}
		prog, _ := argv[0].single()
		switch programName(prog) {
		case "grep", "egrep", "fgrep":
		case "sort", "uniq", "head", "tail", "cat":
			continue // these only reorder or narrow
		default:
			return names
		}
		p := parseArgs(argv[1:], "efmABCd", "regexp", "file", "max-count")
		pats := p.value('e', "regexp")
		if len(pats) == 0 && len(p.ops) > 0 {
			pats = p.ops[:1]
		}
		if len(pats) != 1 || len(p.value('f', "file")) > 0 {
			continue // several patterns or a file of them: left whole
		}
		pat, ok := pats[0].single()
		if !ok {
			continue
		}
		switch {
		case programName(prog) == "fgrep" || p.has('F', "fixed-strings"):
			pat = regexp.QuoteMeta(pat)
		case programName(prog) == "egrep" || p.has('E', "extended-regexp"):
		default:
			pat = basicToExtended(pat)
		}
		if p.has('w', "word-regexp") {
			pat = `\b(?:` + pat + `)\b`
		}
		if p.has('x', "line-regexp") {
			pat = `^(?:` + pat + `)$`
		}
		if p.has('i', "ignore-case") {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			continue
		}
		invert := p.has('v', "invert-match")
		kept := names[:0:0]
		for _, n := range names {
			if re.MatchString(n) != invert {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	return names
}

// basicToExtended turns a POSIX basic regular expression into the
// extended form Go reads: \( \) \{ \} \| \+ \? are the operators, their
// bare forms literal.
func basicToExtended(bre string) string {
	var out strings.Builder
	for i := 0; i < len(bre); i++ {
		c := bre[i]
		if c == '\\' && i+1 < len(bre) {
			n := bre[i+1]
			i++
			switch n {
			case '(', ')', '{', '}', '|', '+', '?':
				out.WriteByte(n)
			default:
				out.WriteByte('\\')
				out.WriteByte(n)
			}
			continue
		}
		switch c {
		case '(', ')', '{', '}', '|', '+', '?':
			out.WriteByte('\\')
		}
		out.WriteByte(c)
	}
	return out.String()
}
