package permission

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// LiteralWrite is what a shell command writes to one file when the text is
// spelled out in the command itself: `echo "AUC 0.9" >> FINDINGS.md`,
// `printf 'x\n' > f`, `cat > f <<'EOF' … EOF`. Known is false when the
// command writes the file but its text is not literal (a variable, a
// program's output).
type LiteralWrite struct {
	// Path is absolute, cleaned (symlinks are not resolved).
	Path   string
	Append bool
	Known  bool
	Text   []byte
}

// LiteralWrites returns the files a shell command redirects output to,
// with the text when it is literal, so the gates that judge proposed
// content (DQ4, L-1) can judge a shell write as they judge a Write. Files
// written otherwise (by a program, a script) are not listed: WrittenPaths
// names those, and PostToolUse judges what they became. cwd resolves
// relative targets; a `cd` in the command makes later targets unknown.
func LiteralWrites(command, cwd string) []LiteralWrite {
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	var out []LiteralWrite
	moved := false
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, _ := st.Cmd.(*syntax.CallExpr)
		name := ""
		if call != nil && len(call.Args) > 0 {
			name, _ = literalWord(call.Args[0])
		}
		if name == "cd" || name == "pushd" {
			moved = true
		}
		for _, r := range st.Redirs {
			if r.Op != syntax.RdrOut && r.Op != syntax.AppOut && r.Op != syntax.RdrClob && r.Op != syntax.RdrAll && r.Op != syntax.AppAll {
				continue
			}
			if r.N != nil && r.N.Value != "1" {
				continue // 2> writes errors, not the command's text
			}
			target, ok := literalWord(r.Word)
			if !ok || moved {
				continue
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(cwd, target)
			}
			w := LiteralWrite{Path: filepath.Clean(target), Append: r.Op == syntax.AppOut || r.Op == syntax.AppAll}
			if call != nil && r.Op != syntax.RdrAll && r.Op != syntax.AppAll {
				w.Text, w.Known = literalOutput(name, call.Args[1:], st.Redirs)
			}
			out = append(out, w)
		}
		return true
	})
	return out
}

// literalOutput is what echo, printf or cat print when every argument is
// literal.
func literalOutput(name string, args []*syntax.Word, redirs []*syntax.Redirect) ([]byte, bool) {
	var vals []string
	for _, a := range args {
		v, ok := literalWord(a)
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	switch name {
	case "echo":
		newline := true
		for len(vals) > 0 && (vals[0] == "-n" || vals[0] == "-e" || vals[0] == "-E") {
			if vals[0] == "-n" {
				newline = false
			}
			if vals[0] == "-e" {
				for i := range vals[1:] {
					vals[i+1] = printfEscapes(vals[i+1])
				}
			}
			vals = vals[1:]
		}
		s := strings.Join(vals, " ")
		if newline {
			s += "\n"
		}
		return []byte(s), true
	case "printf":
		if len(vals) != 1 || strings.Contains(strings.ReplaceAll(vals[0], "%%", ""), "%") {
			return nil, false
		}
		return []byte(strings.ReplaceAll(printfEscapes(vals[0]), "%%", "%")), true
	case "cat":
		if len(vals) > 0 {
			return nil, false // cat of files: their text is not in the command
		}
		for _, r := range redirs {
			if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
				continue
			}
			if r.Hdoc == nil {
				return []byte{}, true
			}
			quoted := false
			for _, p := range r.Word.Parts {
				if _, ok := p.(*syntax.SglQuoted); ok {
					quoted = true
				}
				if _, ok := p.(*syntax.DblQuoted); ok {
					quoted = true
				}
			}
			text, ok := literalWord(r.Hdoc)
			if !ok && !quoted {
				return nil, false
			}
			if !ok {
				var b strings.Builder
				syntax.NewPrinter().Print(&b, r.Hdoc)
				text = b.String()
			}
			return []byte(text), true
		}
	}
	return nil, false
}

// literalWord is a word's value when it has no expansion.
func literalWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, false))
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// printfEscapes applies the backslash escapes of printf's format and echo -e.
func printfEscapes(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\"`, `"`)
	return r.Replace(s)
}
