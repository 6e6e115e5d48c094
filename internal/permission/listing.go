package permission

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// listing returns the names a command that feeds a pipe prints when it
// lists files (ls, find, echo, printf), so `ls | xargs rm` or `ls | while
// read f; do ...` is judged against the files it would name. The first
// command of the feeding pipeline decides; filters after it (grep, head)
// only narrow the list, so it is kept whole. nil when the list cannot be
// told.
func (a *shellAnalyzer) listing(src string, st *shellState) []string {
	if src == "" || len(src) > 4096 {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	stmt := f.Stmts[0]
	for {
		b, ok := stmt.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		stmt = b.X
	}
	call, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	// A throwaway analyser: evaluating the words must not record effects
	// twice.
	b := &shellAnalyzer{eff: &effects{}, root: a.root, home: a.home, src: src}
	argv := make([]word, 0, len(call.Args))
	for _, w := range call.Args {
		argv = append(argv, b.eval(w, st, true))
	}
	name, ok := argv[0].single()
	if !ok {
		return nil
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
				return nil
			}
			for _, v := range vals {
				if strings.ContainsAny(v, "\\%") {
					return nil // escapes and formats: the output is not the text
				}
				for _, f := range strings.Fields(v) {
					if !strings.HasPrefix(f, "-") && !add(f) {
						return nil
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
			vals := b.expand(op, st)
			if vals == nil {
				return nil
			}
			for _, v := range vals {
				abs, ok := b.abs(v, st)
				if !ok {
					return nil
				}
				entries, err := os.ReadDir(filepath.FromSlash(resolve(abs, a.eff.links)))
				if err != nil {
					if !add(v) {
						return nil
					}
					continue
				}
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), ".") && !hidden {
						continue
					}
					if !add(e.Name()) {
						return nil
					}
				}
			}
		}
	case "find":
		starts := []string{}
		for _, w := range argv[1:] {
			v, ok := w.single()
			if !ok {
				return nil
			}
			if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
				break
			}
			starts = append(starts, v)
		}
		if len(starts) == 0 {
			starts = []string{"."}
		}
		for _, s := range starts {
			abs, ok := b.abs(s, st)
			if !ok || !add(s) {
				return nil
			}
			full := true
			complete := walk(resolve(abs, a.eff.links), func(rel string, _ fs.DirEntry) {
				if full && !add(strings.TrimSuffix(s, "/")+"/"+rel) {
					full = false
				}
			})
			if !complete || !full {
				return nil
			}
		}
	default:
		return nil
	}
	return out
}
