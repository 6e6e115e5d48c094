package permission

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobwas/glob"
	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep the analysis of one command bounded, whatever it holds.
const (
	maxShellDepth  = 6       // nested bash -c, eval, heredoc shells
	maxCalls       = 512     // simple commands analysed per tool call
	maxAlts        = 64      // values one word may expand to
	maxGlobMatches = 256     // files one glob may expand to
	maxScript      = 1 << 18 // bytes of shell parsed per level
	maxWalk        = 4000    // entries walked for find, cp -r and friends
)

// word is a shell word after expansion: its possible values (nil when a
// part could not be resolved), its text with unknown parts as "\x00" (for
// scanning), and whether an unquoted glob character needs expanding.
type word struct {
	vals []string
	raw  string
	glob bool
	// computed: the values were read from the file system when the
	// command is analysed (a listing fed to xargs, $(ls), find's matches),
	// not spelled by the command: what they name is known only when it
	// runs.
	computed bool
	// scope, for a word whose values are not known, holds the folders
	// they lie under when that is known (a listing of too many files).
	scope []string
}

func (w word) known() bool { return w.vals != nil }

func (w word) single() (string, bool) {
	if len(w.vals) == 1 {
		return w.vals[0], true
	}
	return "", false
}

func lit(s string) word { return word{vals: []string{s}, raw: s} }

var unknownWord = word{raw: "\x00"}

// shellState is what a shell carries from one command to the next.
type shellState struct {
	cwd  string // absolute slash path; "" when unknown
	vars map[string]word
	glob globOpts
}

// globOpts are the shopt settings that change what a glob matches.
type globOpts struct {
	nocase, dot, star bool
}

func (s *shellState) clone() *shellState {
	c := &shellState{cwd: s.cwd, glob: s.glob, vars: make(map[string]word, len(s.vars))}
	for k, v := range s.vars {
		c.vars[k] = v
	}
	return c
}

// absorb merges the states of branches that may or may not have run.
func (s *shellState) absorb(others ...*shellState) {
	for _, o := range others {
		if o.cwd != s.cwd {
			s.cwd = ""
		}
		s.glob.nocase = s.glob.nocase || o.glob.nocase
		s.glob.dot = s.glob.dot || o.glob.dot
		s.glob.star = s.glob.star || o.glob.star
		for k, v := range o.vars {
			old, ok := s.vars[k]
			if !ok {
				s.vars[k] = v
				continue
			}
			s.vars[k] = union(old, v)
		}
	}
}

func union(a, b word) word {
	if !a.known() || !b.known() {
		return word{raw: a.raw}
	}
	out := word{raw: a.raw, glob: a.glob || b.glob, computed: a.computed || b.computed, vals: append([]string(nil), a.vals...)}
	for _, v := range b.vals {
		if !slices.Contains(out.vals, v) {
			out.vals = append(out.vals, v)
		}
	}
	if len(out.vals) > maxAlts {
		return word{raw: a.raw}
	}
	return out
}

// stdinSrc says where a command's standard input comes from, which matters
// for shells and interpreters that read their program from it.
type stdinSrc struct {
	text  string // heredoc or here-string body
	known bool
	piped bool   // a pipe or a file: the program is unknown
	file  string // the file redirected to stdin (< file), when known
}

// shellAnalyzer walks a parsed command and records its effects.
type shellAnalyzer struct {
	eff  *effects
	root string
	home string
	// dl is set while the writes being recorded store a download (curl -o,
	// curl URL > file, the right side of curl URL | ...); dlURL is its URL.
	dl    bool
	dlURL string
	// computed is set while the writes being recorded have paths read from
	// the file system (rawTarget.computed).
	computed bool
	// launch says how the command being analysed is started (in the
	// background, through nohup or timeout), for compute runs.
	launch launch
	src    string
	depth  int
	calls  int
}

// analyzeShell records in eff what the shell command src writes when run in
// cwd. It never panics: a parser failure or a bug in a rare branch marks the
// command unparsed, which the policy treats as unknown writes.
func analyzeShell(eff *effects, src, cwd, root, home string) {
	a := &shellAnalyzer{eff: eff, root: root, home: home}
	defer func() {
		if r := recover(); r != nil {
			eff.unparsed = true
			eff.unknown = append(eff.unknown, unknownTarget{text: src, via: fmt.Sprintf("shell analysis failed: %v", r)})
		}
	}()
	a.script(src, &shellState{cwd: cwd, vars: map[string]word{}})
}

func (a *shellAnalyzer) script(src string, st *shellState) {
	if a.depth > maxShellDepth || len(src) > maxScript {
		a.eff.unparsed = true
		a.eff.unknown = append(a.eff.unknown, unknownTarget{text: src, via: "shell nested too deep or too long"})
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.eff.unparsed = true
		a.eff.unknown = append(a.eff.unknown, unknownTarget{text: src, via: "unparsable shell"})
		return
	}
	saved := a.src
	a.src = src
	a.stmts(f.Stmts, st)
	a.src = saved
}

// nested analyses a script a command runs (bash -c, eval, a heredoc fed to
// a shell) one level deeper.
func (a *shellAnalyzer) nested(src string, st *shellState) {
	a.depth++
	a.script(src, st)
	a.depth--
}

// text returns the source text of a node of the script being analysed.
func (a *shellAnalyzer) text(n syntax.Node) string {
	if n == nil {
		return ""
	}
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(a.src) || s > e {
		return ""
	}
	return a.src[s:e]
}

func (a *shellAnalyzer) stmts(list []*syntax.Stmt, st *shellState) {
	for _, s := range list {
		a.stmt(s, st, stdinSrc{})
	}
}

func (a *shellAnalyzer) stmt(s *syntax.Stmt, st *shellState, in stdinSrc) {
	if s == nil {
		return
	}
	saved, savedURL := a.dl, a.dlURL
	if url, ok := a.fetchesToStdout(s.Cmd, st); ok && len(s.Redirs) > 0 {
		a.dl, a.dlURL = true, url
	}
	for _, r := range s.Redirs {
		a.redirect(r, st, &in)
	}
	a.dl, a.dlURL = saved, savedURL
	if s.Background && a.launch.bg == "" {
		a.launch.bg = a.text(s)
		defer func() { a.launch.bg = "" }()
	}
	a.command(s.Cmd, st, in)
}

// fetchesToStdout reports whether cmd is curl or wget printing what it
// fetches, and the URL.
func (a *shellAnalyzer) fetchesToStdout(cmd syntax.Command, st *shellState) (string, bool) {
	call, ok := cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	// Most commands are not downloads: look at the literal name first,
	// without expanding (and re-analysing) the words.
	name := call.Args[0].Lit()
	if name == "" {
		v, ok := a.eval(call.Args[0], st, false).single()
		if !ok {
			return "", false
		}
		name = v
	} else if !strings.Contains(strings.ToLower(name), "curl") && !strings.Contains(strings.ToLower(name), "wget") {
		return "", false
	}
	prog := programName(name)
	if prog != "curl" && prog != "wget" {
		return "", false
	}
	url := ""
	stdout := prog == "curl"
	for k, w := range call.Args[1:] {
		v, ok := a.eval(w, st, false).single()
		if !ok {
			continue
		}
		if url == "" && strings.Contains(v, "://") {
			url = v
		}
		switch {
		case prog == "curl" && (v == "-o" || v == "-O" || strings.HasPrefix(v, "--output") || strings.HasPrefix(v, "--remote-name") ||
			len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v, "oO")):
			stdout = false
		case prog == "wget" && (v == "-O-" || v == "-qO-" || strings.HasSuffix(v, "O") && k+2 < len(call.Args) && a.eval(call.Args[k+2], st, false).raw == "-" || v == "--output-document=-"):
			stdout = true
		}
	}
	return url, stdout
}

func (a *shellAnalyzer) redirect(r *syntax.Redirect, st *shellState, in *stdinSrc) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		a.target(a.eval(r.Word, st, true), st, kindFile, "redirect "+r.Op.String())
	case syntax.DplOut:
		w := a.eval(r.Word, st, true)
		if v, ok := w.single(); ok && (v == "-" || isDigits(v)) {
			return
		}
		a.target(w, st, kindFile, "redirect >&")
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			a.scanSubst(r.Hdoc, st)
			*in = stdinSrc{text: a.text(r.Hdoc), known: true}
		}
	case syntax.WordHdoc:
		w := a.eval(r.Word, st, false)
		if v, ok := w.single(); ok {
			*in = stdinSrc{text: v, known: true}
		} else {
			*in = stdinSrc{text: w.raw, piped: true}
		}
	case syntax.RdrIn:
		w := a.eval(r.Word, st, false)
		*in = stdinSrc{text: a.text(r.Word), piped: true}
		if v, ok := w.single(); ok {
			in.file = v
		}
	default:
		if r.Word != nil {
			a.scanSubst(r.Word, st)
		}
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (a *shellAnalyzer) command(cmd syntax.Command, st *shellState, in stdinSrc) {
	switch c := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		a.callExpr(c, st, in)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Each side of a pipe runs in its own subshell.
			a.stmt(c.X, st.clone(), in)
			saved, savedURL := a.dl, a.dlURL
			if url, ok := a.fetchesToStdout(c.X.Cmd, st); ok {
				// What the right side writes is the download.
				a.dl, a.dlURL = true, url
			}
			a.stmt(c.Y, st.clone(), stdinSrc{text: a.text(c.X), piped: true})
			a.dl, a.dlURL = saved, savedURL
			return
		}
		a.stmt(c.X, st, in)
		a.stmt(c.Y, st, stdinSrc{})
	case *syntax.Subshell:
		a.stmts(c.Stmts, st.clone())
	case *syntax.Block:
		a.stmts(c.Stmts, st)
	case *syntax.IfClause:
		a.ifClause(c, st)
	case *syntax.WhileClause:
		for _, s := range c.Cond {
			a.stmt(s, st, in) // `ls | while read f` reads the pipe
		}
		body := st.clone()
		a.stmts(c.Do, body)
		st.absorb(body)
	case *syntax.ForClause:
		body := st.clone()
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			v := unknownWord
			if l.InPos.IsValid() {
				v = word{raw: "\x00"}
				first := true
				for _, item := range l.Items {
					w := a.eval(item, st, true)
					vals := a.expand(w, st)
					if vals == nil {
						v = unknownWord
						break
					}
					iw := word{vals: vals, raw: w.raw}
					if first {
						v, first = iw, false
					} else {
						v = union(v, iw)
					}
				}
				if first {
					v = word{vals: []string{}, raw: ""}
				}
			}
			if l.Name != nil {
				body.vars[l.Name.Value] = v
			}
		case *syntax.CStyleLoop:
			a.scanSubst(l, st)
		}
		a.stmts(c.Do, body)
		st.absorb(body)
	case *syntax.CaseClause:
		a.scanSubst(c.Word, st)
		var branches []*shellState
		for _, item := range c.Items {
			b := st.clone()
			a.stmts(item.Stmts, b)
			branches = append(branches, b)
		}
		st.absorb(branches...)
	case *syntax.FuncDecl:
		// A function body runs when called; analyse it as if it were.
		a.stmt(c.Body, st.clone(), stdinSrc{})
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		a.scanSubst(c, st)
	case *syntax.DeclClause:
		nameref := false
		for _, as := range c.Args {
			if as != nil && as.Naked && as.Name == nil && as.Value != nil {
				if v := as.Value.Lit(); strings.HasPrefix(v, "-") && strings.Contains(v, "n") {
					nameref = true // declare -n: the name stands for another variable
				}
			}
		}
		for _, as := range c.Args {
			a.assign(as, st)
			if nameref && as != nil && as.Name != nil {
				st.vars[as.Name.Value] = word{raw: "\x00" + a.text(as)}
			}
		}
	case *syntax.TimeClause:
		a.stmt(c.Stmt, st, in)
	case *syntax.CoprocClause:
		a.stmt(c.Stmt, st.clone(), in)
	case *syntax.TestDecl:
		a.stmt(c.Body, st.clone(), in)
	default:
		a.scanSubst(c, st)
	}
}

func (a *shellAnalyzer) ifClause(c *syntax.IfClause, st *shellState) {
	a.stmts(c.Cond, st)
	var branches []*shellState
	hasElse := false
	for cl := c; cl != nil; cl = cl.Else {
		if cl != c && !cl.ThenPos.IsValid() {
			hasElse = true // a plain "else"
		} else if cl != c {
			a.stmts(cl.Cond, st)
		}
		b := st.clone()
		a.stmts(cl.Then, b)
		branches = append(branches, b)
	}
	if !hasElse {
		branches = append(branches, st.clone())
	}
	st.absorb(branches...)
}

func (a *shellAnalyzer) assign(as *syntax.Assign, st *shellState) {
	if as == nil {
		return
	}
	if as.Name == nil {
		if as.Value != nil {
			a.scanSubst(as.Value, st)
		}
		return
	}
	name := as.Name.Value
	if name == "GLOBIGNORE" {
		st.glob.dot = true // a set GLOBIGNORE turns dotglob on
	}
	a.codeVar(name, as, st)
	switch {
	case as.Array != nil || as.Index != nil:
		a.scanSubst(as, st)
		st.vars[name] = unknownWord
	case as.Naked:
		// "export X" keeps X as it is.
	case as.Value == nil:
		st.vars[name] = lit("")
	default:
		w := a.eval(as.Value, st, false)
		if as.Append {
			w = concat(st.vars[name], w)
		}
		w.glob = false // assignments do not expand globs
		st.vars[name] = w
	}
}

// Variables whose value makes programs run other code: a command (an
// editor, a pager, git's helpers), a file of code a shell or interpreter
// loads, or a search path that can put another program under a known name.
var (
	commandVars = setOf("EDITOR", "VISUAL", "PAGER", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR",
		"GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "PROMPT_COMMAND", "MANPAGER")
	codeVars = setOf("BASH_ENV", "ENV", "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES",
		"PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "NODE_OPTIONS", "NODE_PATH", "RUBYOPT", "RUBYLIB",
		"GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "R_PROFILE_USER", "R_ENVIRON_USER")
)

// codeVar treats an assignment to one of those variables as code the
// command may run: a command value is analysed as shell, anything else is
// a program whose writes cannot be told.
func (a *shellAnalyzer) codeVar(name string, as *syntax.Assign, st *shellState) {
	switch {
	case commandVars[name] && as.Value != nil:
		w := a.eval(as.Value, st, false)
		if v, ok := w.single(); ok {
			if v != "" && !readOnlyPrograms[programName(strings.Fields(v + " x")[0])] {
				a.nested(v, st.clone())
			}
			return
		}
		a.unknownEffect(w.raw, name+" set to a command known only at run time")
	case codeVars[name] && as.Value != nil:
		a.opaque(name, a.text(as))
	}
}

func concat(a, b word) word {
	if !a.known() || !b.known() {
		return word{raw: a.raw + b.raw}
	}
	out := word{raw: a.raw + b.raw, glob: a.glob || b.glob, computed: a.computed || b.computed}
	for _, x := range a.vals {
		for _, y := range b.vals {
			out.vals = append(out.vals, x+y)
		}
	}
	if len(out.vals) > maxAlts {
		return word{raw: out.raw}
	}
	return out
}

// scanSubst analyses the command substitutions and process substitutions
// inside any node: they run even when the word around them is discarded.
func (a *shellAnalyzer) scanSubst(n syntax.Node, st *shellState) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.CmdSubst:
			a.stmts(x.Stmts, st.clone())
			return false
		case *syntax.ProcSubst:
			a.stmts(x.Stmts, st.clone())
			return false
		}
		return true
	})
}

func (a *shellAnalyzer) callExpr(c *syntax.CallExpr, st *shellState, in stdinSrc) {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			a.assign(as, st)
		}
		return
	}
	cst := st
	if len(c.Assigns) > 0 {
		cst = st.clone()
		for _, as := range c.Assigns {
			a.assign(as, cst)
		}
	}
	argv := make([]word, 0, len(c.Args))
	for _, w := range c.Args {
		argv = append(argv, a.eval(w, cst, true))
	}
	a.run(argv, cst, in, a.text(c))
	if cst != st {
		st.cwd = cst.cwd // cd with prefix assignments still moves the shell
	}
}

// eval expands a word the way the shell would, as far as it can be known.
// arg is true for command arguments (brace expansion, tilde, globs).
func (a *shellAnalyzer) eval(w *syntax.Word, st *shellState, arg bool) word {
	if w == nil {
		return lit("")
	}
	a.scanSubst(w, st)
	if arg {
		syntax.SplitBraces(w)
	}
	acc := &wordAcc{alts: []string{""}}
	a.parts(w.Parts, st, false, acc, true)
	out := word{raw: acc.raw.String(), glob: acc.glob && arg, computed: acc.computed, scope: acc.scope}
	if !acc.unknown && len(acc.alts) <= maxAlts {
		out.vals = acc.alts
	}
	return out
}

type wordAcc struct {
	alts     []string
	raw      strings.Builder
	unknown  bool
	glob     bool
	computed bool
	scope    []string
}

func (acc *wordAcc) add(s string) {
	for i := range acc.alts {
		acc.alts[i] += s
	}
	acc.raw.WriteString(s)
}

func (acc *wordAcc) addAlts(vals []string) {
	if len(acc.alts)*len(vals) > maxAlts {
		acc.unknown = true
		return
	}
	next := make([]string, 0, len(acc.alts)*len(vals))
	for _, x := range acc.alts {
		for _, y := range vals {
			next = append(next, x+y)
		}
	}
	acc.alts = next
}

// markUnknown records a part whose value is not known; its source text
// stays in raw for messages and for the scan for protected names.
func (acc *wordAcc) markUnknown(src string) {
	acc.unknown = true
	if src == "" {
		src = "\x00"
	}
	acc.raw.WriteString(src)
}

func (a *shellAnalyzer) parts(parts []syntax.WordPart, st *shellState, quoted bool, acc *wordAcc, first bool) {
	for i, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if !quoted {
				if i == 0 && first && strings.HasPrefix(v, "~") {
					j := strings.IndexByte(v, '/')
					if a.home == "" || (v != "~" && j != 1) {
						// Another user's home, or no home known.
						acc.markUnknown("~")
						if j >= 0 {
							acc.add(unescape(v[j:], false))
						}
						continue
					}
					acc.raw.WriteString("~")
					for k := range acc.alts {
						acc.alts[k] += a.home
					}
					v = v[1:]
				}
				if hasGlobMeta(v) {
					acc.glob = true
				}
			}
			acc.add(unescape(v, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				acc.add(ansiC(p.Value))
			} else {
				acc.add(p.Value)
			}
		case *syntax.DblQuoted:
			a.parts(p.Parts, st, true, acc, false)
		case *syntax.ParamExp:
			vals, ok := a.param(p, st)
			if p.Param != nil {
				if v, set := st.vars[p.Param.Value]; set && v.computed {
					acc.computed = true
					if !ok && len(parts) == 1 && v.scope != nil {
						acc.scope = v.scope
					}
				}
			}
			if !ok || !quoted && anyHasSpace(vals) {
				acc.markUnknown(a.text(p))
				continue
			}
			acc.raw.WriteString(a.text(p))
			if !quoted {
				for _, v := range vals {
					if hasGlobMeta(v) {
						acc.glob = true
					}
				}
			}
			acc.addAltsKeepRaw(vals)
		case *syntax.ProcSubst:
			acc.add("/dev/fd/63")
		case *syntax.BraceExp:
			vals, ok := a.brace(p, st)
			if !ok {
				acc.markUnknown("")
				continue
			}
			acc.raw.WriteString(strings.Join(vals, ","))
			acc.addAltsKeepRaw(vals)
		case *syntax.CmdSubst:
			// $(ls ...) or `find ...`: the names a listing prints.
			if len(p.Stmts) == 1 && !quoted {
				c, scope, fromFS := a.listing(a.text(p.Stmts[0]), st)
				if c != nil {
					acc.raw.WriteString(a.text(p))
					acc.addAlts(c)
					acc.computed = acc.computed || fromFS
					continue
				}
				if scope != nil && len(parts) == 1 {
					acc.scope, acc.computed = scope, true
				}
			}
			acc.markUnknown(a.text(part))
		default: // ArithmExp, ExtGlob
			acc.markUnknown(a.text(part))
		}
	}
}

func (acc *wordAcc) addAltsKeepRaw(vals []string) {
	if len(vals) == 1 {
		for i := range acc.alts {
			acc.alts[i] += vals[0]
		}
		return
	}
	acc.addAlts(vals)
}

func anyHasSpace(vals []string) bool {
	for _, v := range vals {
		if strings.ContainsAny(v, " \t\n") {
			return true
		}
	}
	return false
}

func (a *shellAnalyzer) brace(b *syntax.BraceExp, st *shellState) ([]string, bool) {
	if b.Sequence {
		if len(b.Elems) < 2 {
			return nil, false
		}
		from, ok1 := a.eval(b.Elems[0], st, false).single()
		to, ok2 := a.eval(b.Elems[1], st, false).single()
		if !ok1 || !ok2 {
			return nil, false
		}
		return sequence(from, to)
	}
	var out []string
	for _, e := range b.Elems {
		acc := &wordAcc{alts: []string{""}}
		a.parts(e.Parts, st, false, acc, false)
		if acc.unknown {
			return nil, false
		}
		out = append(out, acc.alts...)
		if len(out) > maxAlts {
			return nil, false
		}
	}
	return out, true
}

func sequence(from, to string) ([]string, bool) {
	if x, err := strconv.Atoi(from); err == nil {
		y, err := strconv.Atoi(to)
		if err != nil {
			return nil, false
		}
		step := 1
		if y < x {
			step = -1
		}
		var out []string
		for i := x; ; i += step {
			out = append(out, strconv.Itoa(i))
			if i == y || len(out) > maxAlts {
				break
			}
		}
		return out, len(out) <= maxAlts
	}
	if len(from) == 1 && len(to) == 1 {
		var out []string
		step := 1
		if to[0] < from[0] {
			step = -1
		}
		for c := int(from[0]); ; c += step {
			out = append(out, string(rune(c)))
			if c == int(to[0]) {
				break
			}
		}
		return out, true
	}
	return nil, false
}

// param resolves a parameter expansion: plain $NAME and ${NAME} whose value
// the command itself set, $PWD and $CLAUDE_PROJECT_DIR. Anything else is
// unknown.
func (a *shellAnalyzer) param(p *syntax.ParamExp, st *shellState) ([]string, bool) {
	if p.Param == nil || p.Excl || p.Width || p.IsSet || p.Index != nil ||
		p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return nil, false
	}
	name := p.Param.Value
	w, ok := st.vars[name]
	if !ok {
		switch name {
		case "HOME":
			if a.home == "" {
				return nil, false
			}
			w = lit(a.home)
		case "PWD":
			if st.cwd == "" {
				return nil, false
			}
			w = lit(st.cwd)
		case "CLAUDE_PROJECT_DIR":
			if a.root == "" {
				return nil, false
			}
			w = lit(a.root)
		default:
			return nil, false
		}
	}
	if !w.known() {
		return nil, false
	}
	if p.Length || p.Slice != nil || p.Repl != nil || p.Exp != nil && transformOp(p.Exp.Op) {
		return a.transform(p, w.vals, st)
	}
	if p.Exp != nil {
		// ${x:-default} and friends: known only when x is set and non-empty
		// for the operators that would otherwise substitute.
		switch p.Exp.Op {
		case syntax.DefaultUnsetOrNull, syntax.DefaultUnset:
			for _, v := range w.vals {
				if v == "" {
					return nil, false
				}
			}
		default:
			return nil, false
		}
	}
	return w.vals, true
}

func transformOp(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll,
		syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		return true
	}
	return false
}

// transform applies the case changes, prefix and suffix removal,
// replacement, slicing and length of a parameter expansion to known
// values, so ${F^^} or ${F/x/y} is as known as $F. A pattern or offset
// that is not a literal leaves the value unknown.
func (a *shellAnalyzer) transform(p *syntax.ParamExp, vals []string, st *shellState) ([]string, bool) {
	litOf := func(w *syntax.Word) (string, bool) {
		if w == nil {
			return "", true
		}
		return a.eval(w, st, false).single()
	}
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if strings.ContainsAny(v, findMarkByte+findDirByte+findBaseByte) {
			return nil, false // the file find passes, changed: known only when it runs
		}
		switch {
		case p.Length:
			v = strconv.Itoa(utf8.RuneCountInString(v))
		case p.Slice != nil:
			off, ok1 := arithLiteral(p.Slice.Offset)
			n, ok2 := len(v), true
			if p.Slice.Length != nil {
				n, ok2 = arithLiteral(p.Slice.Length)
			}
			if !ok1 || !ok2 || n < 0 {
				return nil, false
			}
			if off < 0 {
				off += len(v)
			}
			if off < 0 || off > len(v) {
				v = ""
				break
			}
			if off+n > len(v) {
				n = len(v) - off
			}
			v = v[off : off+n]
		case p.Repl != nil:
			from, ok1 := litOf(p.Repl.Orig)
			to, ok2 := litOf(p.Repl.With)
			if !ok1 || !ok2 || hasGlobMeta(from) || from == "" {
				return nil, false
			}
			if p.Repl.All {
				v = strings.ReplaceAll(v, from, to)
			} else {
				v = strings.Replace(v, from, to, 1)
			}
		default:
			pat, ok := litOf(p.Exp.Word)
			if !ok {
				return nil, false
			}
			v, ok = applyExp(p.Exp.Op, v, pat)
			if !ok {
				return nil, false
			}
		}
		out = append(out, v)
	}
	return out, true
}

func applyExp(op syntax.ParExpOperator, v, pat string) (string, bool) {
	g, err := glob.Compile(pat) // no separators: * also matches '/', as in bash
	if err != nil {
		return "", false
	}
	match := g.Match
	switch op {
	case syntax.UpperAll:
		return strings.ToUpper(v), pat == ""
	case syntax.LowerAll:
		return strings.ToLower(v), pat == ""
	case syntax.UpperFirst, syntax.LowerFirst:
		if v == "" || pat != "" {
			return v, pat == ""
		}
		r, n := utf8.DecodeRuneInString(v)
		f := strings.ToUpper
		if op == syntax.LowerFirst {
			f = strings.ToLower
		}
		return f(string(r)) + v[n:], true
	case syntax.RemSmallPrefix:
		for i := 0; i <= len(v); i++ {
			if match(v[:i]) {
				return v[i:], true
			}
		}
	case syntax.RemLargePrefix:
		for i := len(v); i >= 0; i-- {
			if match(v[:i]) {
				return v[i:], true
			}
		}
	case syntax.RemSmallSuffix:
		for i := len(v); i >= 0; i-- {
			if match(v[i:]) {
				return v[:i], true
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= len(v); i++ {
			if match(v[i:]) {
				return v[:i], true
			}
		}
	default:
		return "", false
	}
	return v, true
}

// arithLiteral reads a literal (optionally negative) number of a slice.
func arithLiteral(e syntax.ArithmExpr) (int, bool) {
	switch x := e.(type) {
	case *syntax.Word:
		if len(x.Parts) == 1 {
			if l, ok := x.Parts[0].(*syntax.Lit); ok {
				n, err := strconv.Atoi(strings.TrimSpace(l.Value))
				return n, err == nil
			}
		}
	case *syntax.UnaryArithm:
		if x.Op == syntax.Minus {
			n, ok := arithLiteral(x.X)
			return -n, ok
		}
	case *syntax.ParenArithm:
		return arithLiteral(x.X)
	}
	return 0, false
}

// hasGlobMeta reports an unescaped *, ? or [ in an unquoted literal.
func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescape removes the backslashes the shell removes: all of them outside
// quotes, only those before $ ` " \ and newline inside double quotes.
func unescape(s string, quoted bool) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		if n == '\n' {
			i++
			continue
		}
		if quoted && !strings.ContainsRune("$`\"\\", rune(n)) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(n)
		i++
	}
	return b.String()
}

// ansiC decodes the escapes of a $'...' string.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch n := s[i]; n {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[n]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(n)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if n == 'x' {
				b.WriteByte(byte(v))
			} else if utf8.ValidRune(rune(v)) {
				b.WriteRune(rune(v))
			}
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			if '0' <= n && n <= '7' {
				j := i
				for j < len(s) && j-i < 3 && '0' <= s[j] && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			b.WriteByte(n) // \\ \' \" and unknown escapes
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// expand returns the values of w with globs expanded against the file
// system (relative to the shell's directory); nil when w is unknown.
func (a *shellAnalyzer) expand(w word, st *shellState) []string {
	vals, _ := a.expandScoped(w, st)
	return vals
}

// expandScoped is expand that, when a glob matches too many files to tell
// which, also returns the folders its matches lie under (the pattern's
// literal part), so the write can be judged as one on anything there.
func (a *shellAnalyzer) expandScoped(w word, st *shellState) (vals, scope []string) {
	if !w.known() {
		return nil, w.scope
	}
	if !w.glob {
		return w.vals, nil
	}
	var out []string
	for _, v := range w.vals {
		if !hasGlobMeta(v) {
			out = append(out, v)
			continue
		}
		pattern := toSlash(v)
		if !isAbs(pattern) {
			if st.cwd == "" {
				return nil, nil
			}
			pattern = join(st.cwd, pattern)
		}
		matches, ok := boundedGlob(pattern, st.glob)
		if !ok || len(out)+len(matches) > maxGlobMatches {
			// Too many files to tell which.
			for _, v := range w.vals {
				if p, ok := a.abs(globStem(v), st); ok {
					scope = append(scope, p)
				}
			}
			return nil, scope
		}
		if len(matches) == 0 {
			out = append(out, v) // bash keeps an unmatched pattern as it is
			continue
		}
		out = append(out, matches...)
		if len(a.eff.globbed) < maxGlobMatches {
			a.eff.globbed = append(a.eff.globbed, matches...)
		}
	}
	return out, nil
}

// globStem is the folder a glob pattern's matches lie under: its path up
// to the first part with a glob character ("." for a bare pattern).
func globStem(pattern string) string {
	parts := strings.Split(toSlash(pattern), "/")
	for i, part := range parts {
		if hasGlobMeta(part) {
			if i == 0 {
				return "."
			}
			if i == 1 && parts[0] == "" {
				return "/"
			}
			return strings.Join(parts[:i], "/")
		}
	}
	return pattern
}

// boundedGlob expands an absolute slash pattern the way the shell does,
// folder by folder, reading at most maxWalk entries: a pattern like
// /*/*/*/* must not make a hook read the whole disk. ok is false when the
// budget ran out.
func boundedGlob(pattern string, opts globOpts) ([]string, bool) {
	if !hostPath(pattern) {
		return nil, true
	}
	if opts.star && strings.Contains(pattern, "**") {
		return nil, false // globstar: any depth, not walked here
	}
	vol := volume(pattern)
	parts := strings.Split(strings.TrimPrefix(pattern[len(vol):], "/"), "/")
	dirs := []string{vol + "/"}
	budget := maxWalk
	for i, part := range parts {
		last := i == len(parts)-1
		var next []string
		for _, dir := range dirs {
			if part == "" {
				next = append(next, dir)
				continue
			}
			if !hasGlobMeta(part) {
				p := strings.TrimSuffix(dir, "/") + "/" + unescape(part, false)
				if _, err := os.Lstat(filepath.FromSlash(p)); err == nil {
					next = append(next, p)
				}
				continue
			}
			entries, err := os.ReadDir(filepath.FromSlash(dir))
			if err != nil {
				continue
			}
			budget -= len(entries)
			if budget < 0 {
				return nil, false
			}
			for _, e := range entries {
				name := e.Name()
				if name[0] == '.' && part[0] != '.' && (!opts.dot || name == "." || name == "..") {
					continue // globs skip hidden files unless dotglob
				}
				subject, pat := name, part
				if opts.nocase {
					subject, pat = strings.ToLower(name), strings.ToLower(part)
				}
				if ok, err := path.Match(pat, subject); err != nil || !ok {
					continue
				}
				if !last && !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
					continue
				}
				next = append(next, strings.TrimSuffix(dir, "/")+"/"+name)
			}
		}
		if len(next) > maxGlobMatches {
			return nil, false
		}
		dirs = next
		if len(dirs) == 0 {
			return nil, true
		}
	}
	return dirs, true
}

// abs makes a value absolute against the shell's directory.
func (a *shellAnalyzer) abs(v string, st *shellState) (string, bool) {
	v = toSlash(v)
	if isAbs(v) {
		return v, true
	}
	if st.cwd == "" {
		return "", false
	}
	return join(st.cwd, v), true
}

// target records w as a path the command writes.
func (a *shellAnalyzer) target(w word, st *shellState, k kind, via string) {
	vals, scope := a.expandScoped(w, st)
	if vals == nil {
		if scope != nil {
			a.computedTrees(scope, st, via)
			return
		}
		a.eff.unknown = append(a.eff.unknown, unknownTarget{text: w.raw, via: via})
		return
	}
	saved := a.computed
	a.computed = saved || w.computed || w.glob
	for _, v := range vals {
		a.targetValue(v, st, k, via)
	}
	a.computed = saved
}

// computedTrees records a write to files under each folder that are known
// only when the command runs (too many to list).
func (a *shellAnalyzer) computedTrees(dirs []string, st *shellState, via string) {
	saved := a.computed
	a.computed = true
	for _, d := range dirs {
		a.targetValue(d, st, kindTree, via+" (files found when it runs)")
	}
	a.computed = saved
}

func (a *shellAnalyzer) targetValue(v string, st *shellState, k kind, via string) {
	if v == "" || v == "-" {
		return
	}
	p, ok := a.abs(v, st)
	if !ok {
		a.eff.unknown = append(a.eff.unknown, unknownTarget{text: v, via: via + " in an unknown directory"})
		return
	}
	if isSink(cleanAbs(p)) {
		return
	}
	a.eff.targets = append(a.eff.targets, rawTarget{path: p, kind: k, via: via, download: a.dl && k == kindFile, url: a.dlURL, computed: a.computed})
	if a.dl && k == kindFile {
		a.hit("download", false, via+" "+v)
	}
}

func (a *shellAnalyzer) unknownEffect(text, via string) {
	a.eff.unknown = append(a.eff.unknown, unknownTarget{text: text, via: via})
}

// isDir reports whether a value names an existing folder.
func (a *shellAnalyzer) isDir(v string, st *shellState) bool {
	p, ok := a.abs(v, st)
	if !ok || !hostPath(p) {
		return false
	}
	fi, err := os.Stat(filepath.FromSlash(resolve(p, a.eff.links)))
	return err == nil && fi.IsDir()
}

// walk calls fn with the path (relative to dir, slash-separated) of every
// entry under the absolute folder dir, without following symlinks. It
// returns false when there were more than maxWalk entries.
func walk(dir string, fn func(rel string, d fs.DirEntry)) bool {
	n := 0
	complete := true
	root := filepath.FromSlash(dir)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n++
		if n > maxWalk {
			complete = false
			return filepath.SkipAll
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil || rel == "." {
			return nil
		}
		fn(filepath.ToSlash(rel), d)
		return nil
	})
	return complete
}

// programName normalises a program name for matching: the base name, lower
// case, without ".exe" and without a trailing version ("python3.11" ->
// "python", "pip3" -> "pip").
func programName(s string) string {
	s = path.Base(toSlash(s))
	s = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(s, ".exe"), ".EXE"))
	end := len(s)
	for end > 0 && (s[end-1] >= '0' && s[end-1] <= '9' || s[end-1] == '.') {
		end--
	}
	if end > 0 && end < len(s) {
		c := s[end-1]
		if 'a' <= c && c <= 'z' {
			s = s[:end]
		}
	}
	return s
}
