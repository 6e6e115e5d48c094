package permission

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gobwas/glob"
)

// maxFindMatches bounds the files one find action is judged on one by one;
// past it (or past maxWalk entries walked) the action is judged as a write
// to anything under its start folders.
const maxFindMatches = 2048

// find: -delete removes what it matches, -exec runs a command on it,
// -fprint writes a file. The expression is read as find reads it (tests,
// actions, !, -a, -o, parentheses, commas) and evaluated on every entry
// under the start folders with three values: a test vibe cannot evaluate
// here (-mtime, -size, -perm, -newer, ...) may be true, so an action after
// it may run. Each action is judged on the entries it may reach: -delete
// on each, -exec by analysing its command once with "{}" standing for the
// file and then putting each entry in its place, so `-exec mv {} {}.bak`
// costs one analysis and a write per file, not a product of the two.
func (a *shellAnalyzer) find(argv []word, st *shellState, raw string) {
	q := a.findQuery(argv, st)
	if q.unknown || !q.writes() {
		if q.unknown && q.writes() {
			a.unknownEffect(raw, "find with an expression that cannot be read")
		}
		return
	}
	var starts []string
	for _, sw := range q.starts {
		sv, ok := sw.single()
		if !ok {
			a.unknownEffect(raw, "find over folders known only when it runs")
			return
		}
		starts = append(starts, sv)
	}
	complete := a.findWalk(q, starts, st)
	saved := a.computed
	a.computed = true
	defer func() { a.computed = saved }()
	for _, act := range q.actions {
		if !complete || len(act.matches) > maxFindMatches {
			a.findScope(act, starts, st)
			continue
		}
		if act.name == "-delete" {
			for _, m := range act.matches {
				k := kindFile
				if m.dir {
					k = kindDir
				}
				a.targetValue(m.abs, st, k, "find -delete")
			}
			continue
		}
		if len(act.matches) > 0 {
			a.findExec(act, st, func(rt rawTarget, put func(findMatch)) {
				for _, m := range act.matches {
					put(m)
				}
			})
		}
	}
}

// findScope judges an action whose entries are too many to list: -delete,
// and what -exec's command writes where "{}" stands, become writes to
// anything under the start folders.
func (a *shellAnalyzer) findScope(act *findAction, starts []string, st *shellState) {
	if act.name == "-delete" {
		a.computedTrees(starts, st, "find -delete")
		return
	}
	a.findExec(act, st, func(rawTarget, func(findMatch)) {
		a.computedTrees(starts, st, "find "+act.name)
	})
}

// findExec analyses an -exec/-execdir/-ok/-okdir command once, with "{}"
// standing for the file, then hands each write that depends on the file to
// each, which puts one entry in its place. Writes that do not depend on
// the file (-exec cp {} backup/ writes under backup/) stay as named.
func (a *shellAnalyzer) findExec(act *findAction, st *shellState, each func(rawTarget, func(findMatch))) {
	if len(act.cmd) == 0 {
		return
	}
	dir := act.name == "-execdir" || act.name == "-okdir"
	cst := st.clone()
	mark := findMark
	if dir {
		cst.cwd = findDirMark
		mark = findBaseByte
	}
	bound := make([]word, len(act.cmd))
	for k, w := range act.cmd {
		v, ok := w.single()
		if ok && strings.Contains(v, "{}") {
			bound[k] = word{vals: []string{strings.ReplaceAll(v, "{}", mark)}, raw: v}
			continue
		}
		bound[k] = w
	}
	nt, nu, nc, nh := len(a.eff.targets), len(a.eff.unknown), len(a.eff.calls), len(a.eff.hits)
	saved := a.computed
	a.computed = false // what the command writes is named unless it holds the file
	a.run(bound, cst, stdinSrc{}, "")
	a.computed = saved
	added := append([]rawTarget(nil), a.eff.targets[nt:]...)
	a.eff.targets = a.eff.targets[:nt]
	for _, rt := range added {
		if !strings.ContainsAny(rt.path, findMarkByte+findDirByte+findBaseByte) {
			a.eff.targets = append(a.eff.targets, rt)
			continue
		}
		rt := rt
		each(rt, func(m findMatch) {
			p := rt.path
			if strings.HasPrefix(p, findMark) {
				p = m.abs + p[len(findMark):]
			}
			p = strings.Replace(p, findDirMark, path.Dir(m.abs), 1)
			p = strings.ReplaceAll(p, findMarkByte+"/"+findBaseByte, m.shown)
			p = strings.ReplaceAll(p, findBaseByte, path.Base(m.abs))
			p = strings.ReplaceAll(p, findMarkByte, path.Dir(m.shown))
			t := rt
			t.path, t.computed = cleanAbs(p), true
			a.eff.targets = append(a.eff.targets, t)
		})
	}
	// What cannot be placed keeps "{}" in its text, for the messages.
	unmark := strings.NewReplacer(findMark, "{}", findDirMark+"/"+findBaseByte, "{}", findBaseByte, "{}", findMarkByte, "{}", findDirByte, "{}")
	for i := nu; i < len(a.eff.unknown); i++ {
		a.eff.unknown[i].text = unmark.Replace(a.eff.unknown[i].text)
	}
	for i := nc; i < len(a.eff.calls); i++ {
		for j, w := range a.eff.calls[i] {
			a.eff.calls[i][j] = unmark.Replace(w)
		}
	}
	for i := nh; i < len(a.eff.hits); i++ {
		a.eff.hits[i].text = unmark.Replace(a.eff.hits[i].text)
	}
}

// The markers that stand for the file find passes to -exec ("{}"): an
// absolute path of a folder part and a base name, so a command's relative
// path with it stays with it and a copy into a folder keeps the base name;
// for -execdir, "{}" is the base name and the entry's folder is the
// command's folder.
const (
	findMarkByte = "\x01"
	findDirByte  = "\x02"
	findBaseByte = "\x03"
	findMark     = "/" + findMarkByte + "/" + findBaseByte
	findDirMark  = "/" + findDirByte
)

// findMatch is one entry an action may reach.
type findMatch struct {
	abs   string // absolute slash path
	shown string // the path as find prints it (start + "/" + relative)
	dir   bool
}

// findAction is one action of the expression and the entries it may reach.
type findAction struct {
	name    string // "-delete", "-exec", "-execdir", "-ok", "-okdir"
	cmd     []word // the command, without ";" or "+"
	matches []findMatch
}

// findQuery is a find command line read: where it starts, its expression
// and its actions.
type findQuery struct {
	starts   []word
	follow   bool // -L, -follow: symlinked folders are entered
	maxDepth int  // -1: none
	minDepth int
	expr     findNode
	actions  []*findAction
	unknown  bool // the expression could not be read
	// printed, when set, collects what find may print (a listing): the
	// entries the expression does not rule out.
	printed *[]string
}

func (q *findQuery) writes() bool { return len(q.actions) > 0 }

// tri is a three-valued truth: a test vibe cannot evaluate may be either.
type tri uint8

const (
	triFalse tri = iota
	triTrue
	triMaybe
)

func triNot(v tri) tri {
	switch v {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triMaybe
}

// findEntry is what the tests see of one entry.
type findEntry struct {
	shown string // as printed: start + "/" + relative
	base  string
	typ   byte // 'f', 'd', 'l', 'p', 's', 'b', 'c'
	depth int
	abs   string
	dir   bool
	// reach is called for each action the evaluation may reach; pruned is
	// set by a -prune it surely reaches.
	reach  func(*findAction)
	pruned bool
}

// findNode is a node of the expression; sure says the evaluation surely
// gets to it (every test before it was true).
type findNode interface {
	eval(e *findEntry, sure bool) tri
}

type findAnd struct{ x, y findNode }
type findOr struct{ x, y findNode }
type findComma struct{ x, y findNode }
type findNot struct{ x findNode }
type findConst struct{ v tri }
type findTest func(e *findEntry) tri
type findActNode struct{ act *findAction }
type findPrune struct{}

func (n findAnd) eval(e *findEntry, sure bool) tri {
	x := n.x.eval(e, sure)
	if x == triFalse {
		return triFalse
	}
	y := n.y.eval(e, sure && x == triTrue)
	switch {
	case y == triFalse:
		return triFalse
	case x == triTrue && y == triTrue:
		return triTrue
	}
	return triMaybe
}

func (n findOr) eval(e *findEntry, sure bool) tri {
	x := n.x.eval(e, sure)
	if x == triTrue {
		return triTrue
	}
	y := n.y.eval(e, sure && x == triFalse)
	switch {
	case y == triTrue && x == triFalse:
		return triTrue
	case y == triFalse && x == triFalse:
		return triFalse
	}
	return triMaybe
}

func (n findComma) eval(e *findEntry, sure bool) tri {
	n.x.eval(e, sure)
	return n.y.eval(e, sure)
}

func (n findNot) eval(e *findEntry, sure bool) tri { return triNot(n.x.eval(e, sure)) }

func (n findConst) eval(*findEntry, bool) tri { return n.v }

func (n findTest) eval(e *findEntry, _ bool) tri { return n(e) }

func (n findActNode) eval(e *findEntry, _ bool) tri {
	e.reach(n.act)
	if n.act.name == "-delete" {
		return triTrue
	}
	return triMaybe // a command's exit status
}

func (findPrune) eval(e *findEntry, sure bool) tri {
	if sure {
		e.pruned = true
	}
	return triTrue
}

// findValued are the tests whose value is the next word, judged maybe.
var findValued = setOf("-xtype", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size",
	"-newer", "-user", "-group", "-perm", "-links", "-inum", "-samefile", "-uid", "-gid",
	"-context", "-fstype", "-used", "-lname", "-ilname", "-newermt", "-anewer", "-cnewer", "-regextype")

// findFlags are the tests and options that take no value.
var findFlags = map[string]tri{
	"-true": triTrue, "-false": triFalse, "-empty": triMaybe, "-executable": triMaybe, "-readable": triMaybe,
	"-writable": triMaybe, "-nouser": triMaybe, "-nogroup": triMaybe, "-depth": triTrue, "-d": triTrue,
	"-xdev": triTrue, "-mount": triTrue, "-noleaf": triTrue, "-ignore_readdir_race": triTrue,
	"-noignore_readdir_race": triTrue, "-warn": triTrue, "-nowarn": triTrue, "-daystart": triTrue,
	"-print": triTrue, "-print0": triTrue, "-ls": triTrue, "-quit": triTrue, "-help": triTrue, "-version": triTrue,
}

// findQuery reads find's arguments; the files -fprint and friends write
// are recorded on the way.
func (a *shellAnalyzer) findQuery(argv []word, st *shellState) findQuery {
	q := findQuery{maxDepth: -1}
	i := 0
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok || !(s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O") || s == "-D") {
			break
		}
		q.follow = q.follow || s == "-L"
		if s == "-D" {
			i++
		}
	}
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if ok && (strings.HasPrefix(s, "-") && len(s) > 1 || s == "(" || s == "!" || s == ",") {
			break
		}
		q.starts = append(q.starts, argv[i])
	}
	if len(q.starts) == 0 {
		q.starts = []word{lit(".")}
	}
	p := findParser{a: a, st: st, q: &q, args: argv[i:]}
	if len(p.args) > 0 {
		q.expr = p.comma()
		if p.bad || p.i < len(p.args) {
			q.unknown = true
		}
	}
	if q.expr == nil {
		q.expr = findConst{triTrue}
	}
	return q
}

// findParser reads the expression by find's grammar: comma lists of -o
// lists of (implicitly) -a lists of unary expressions.
type findParser struct {
	a    *shellAnalyzer
	st   *shellState
	q    *findQuery
	args []word
	i    int
	bad  bool
}

func (p *findParser) peek() (string, bool) {
	if p.i >= len(p.args) {
		return "", false
	}
	s, ok := p.args[p.i].single()
	if !ok {
		return "\x00", true // an unknown word: a test judged maybe
	}
	return s, true
}

func (p *findParser) comma() findNode {
	x := p.or()
	for {
		s, ok := p.peek()
		if !ok || s != "," {
			return x
		}
		p.i++
		x = findComma{x, p.or()}
	}
}

func (p *findParser) or() findNode {
	x := p.and()
	for {
		s, ok := p.peek()
		if !ok || s != "-o" && s != "-or" {
			return x
		}
		p.i++
		x = findOr{x, p.and()}
	}
}

func (p *findParser) and() findNode {
	x := p.unary()
	for {
		s, ok := p.peek()
		if !ok || s == "-o" || s == "-or" || s == "," || s == ")" {
			return x
		}
		if s == "-a" || s == "-and" {
			p.i++
		}
		x = findAnd{x, p.unary()}
	}
}

func (p *findParser) unary() findNode {
	s, ok := p.peek()
	if !ok {
		p.bad = true
		return findConst{triMaybe}
	}
	switch s {
	case "!", "-not":
		p.i++
		return findNot{p.unary()}
	case "(":
		p.i++
		x := p.comma()
		if s, ok := p.peek(); ok && s == ")" {
			p.i++
		} else {
			p.bad = true
		}
		return x
	}
	return p.primary()
}

func (p *findParser) next() (word, bool) {
	if p.i >= len(p.args) {
		p.bad = true
		return word{}, false
	}
	w := p.args[p.i]
	p.i++
	return w, true
}

func (p *findParser) primary() findNode {
	s, _ := p.peek()
	p.i++
	switch s {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
		w, ok := p.next()
		v, known := w.single()
		if !ok || !known {
			return findConst{triMaybe}
		}
		fold := strings.HasPrefix(s, "-i")
		if fold {
			v = strings.ToLower(v)
		}
		g, err := glob.Compile(v)
		if err != nil {
			return findConst{triMaybe}
		}
		base := s == "-name" || s == "-iname"
		return findTest(func(e *findEntry) tri {
			subject := e.shown
			if base {
				subject = e.base
			}
			if fold {
				subject = strings.ToLower(subject)
			}
			if g.Match(subject) {
				return triTrue
			}
			return triFalse
		})
	case "-regex", "-iregex":
		w, ok := p.next()
		v, known := w.single()
		if !ok || !known {
			return findConst{triMaybe}
		}
		if s == "-iregex" {
			v = "(?i)" + v
		}
		re, err := regexp.Compile(`^(?:` + v + `)$`)
		if err != nil {
			return findConst{triMaybe}
		}
		return findTest(func(e *findEntry) tri {
			if re.MatchString(e.shown) {
				return triTrue
			}
			return triFalse
		})
	case "-type":
		w, ok := p.next()
		v, known := w.single()
		if !ok || !known {
			return findConst{triMaybe}
		}
		types := strings.ReplaceAll(v, ",", "")
		return findTest(func(e *findEntry) tri {
			if strings.IndexByte(types, e.typ) >= 0 {
				return triTrue
			}
			return triFalse
		})
	case "-maxdepth", "-mindepth":
		w, _ := p.next()
		if v, ok := w.single(); ok {
			if n, err := parseSmallInt(v); err == nil {
				if s == "-maxdepth" {
					p.q.maxDepth = n
				} else {
					p.q.minDepth = n
				}
			}
		}
		return findConst{triTrue}
	case "-follow":
		p.q.follow = true
		return findConst{triTrue}
	case "-prune":
		return findPrune{}
	case "-delete":
		act := &findAction{name: s}
		p.q.actions = append(p.q.actions, act)
		return findActNode{act}
	case "-exec", "-execdir", "-ok", "-okdir":
		act := &findAction{name: s}
		for ; p.i < len(p.args); p.i++ {
			v, ok := p.args[p.i].single()
			if ok && (v == ";" || v == "+") {
				p.i++
				break
			}
			act.cmd = append(act.cmd, p.args[p.i])
		}
		p.q.actions = append(p.q.actions, act)
		return findActNode{act}
	case "-fprint", "-fprint0", "-fls", "-fprintf":
		w, _ := p.next()
		p.a.target(w, p.st, kindFile, "find "+s)
		if s == "-fprintf" {
			p.next()
		}
		return findConst{triTrue}
	case "-printf":
		p.next()
		return findConst{triTrue}
	case "\x00":
		return findConst{triMaybe}
	}
	if findValued[s] {
		p.next()
		return findConst{triMaybe}
	}
	if v, ok := findFlags[s]; ok {
		return findConst{v}
	}
	if strings.HasPrefix(s, "-newer") {
		p.next()
		return findConst{triMaybe}
	}
	p.bad = true // a word find would refuse, or one vibe does not know
	return findConst{triMaybe}
}

// findWalk walks the start folders, evaluating the expression on each
// entry and recording in each action the entries it may reach. complete
// is false when there were more than maxWalk entries.
func (a *shellAnalyzer) findWalk(q findQuery, starts []string, st *shellState) bool {
	n := 0
	for _, sv := range starts {
		startAbs, ok := a.abs(sv, st)
		if !ok {
			return false
		}
		phys := resolve(startAbs, a.eff.links)
		fi, err := os.Stat(filepath.FromSlash(phys))
		if err != nil {
			continue // find reports it and goes on
		}
		shownStart := sv
		if fi.IsDir() {
			shownStart = strings.TrimSuffix(sv, "/")
			if shownStart == "" {
				shownStart = "/"
			}
		}
		e := findEntry{shown: sv, base: path.Base(toSlash(sv)), typ: typeLetter(fi.Mode()), abs: startAbs, dir: fi.IsDir()}
		if q.visit(&e) && fi.IsDir() {
			if !a.findDescend(q, phys, startAbs, shownStart, 1, &n, map[string]bool{phys: true}) {
				return false
			}
		}
	}
	return true
}

// findDescend walks one folder; false when the walk ran out of entries.
func (a *shellAnalyzer) findDescend(q findQuery, phys, abs, shown string, depth int, n *int, seen map[string]bool) bool {
	if q.maxDepth >= 0 && depth > q.maxDepth {
		return true
	}
	entries, err := os.ReadDir(filepath.FromSlash(phys))
	if err != nil {
		return true
	}
	for _, d := range entries {
		if *n++; *n > maxWalk {
			return false
		}
		name := d.Name()
		childShown := shown + "/" + name
		if shown == "/" {
			childShown = "/" + name
		}
		childAbs := strings.TrimSuffix(abs, "/") + "/" + name
		childPhys := strings.TrimSuffix(phys, "/") + "/" + name
		mode := d.Type()
		if q.follow && mode&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.FromSlash(childPhys)); err == nil {
				mode = fi.Mode().Type()
				childPhys = resolve(childPhys, nil)
			}
		}
		e := findEntry{shown: childShown, base: name, typ: typeLetter(mode), depth: depth, abs: childAbs, dir: mode.IsDir()}
		if q.visit(&e) && mode.IsDir() && !seen[childPhys] {
			seen[childPhys] = true
			if !a.findDescend(q, childPhys, childAbs, childShown, depth+1, n, seen) {
				return false
			}
		}
	}
	return true
}

// visit evaluates the expression on one entry, records it in the actions
// it may reach (and, for a listing, whether find may print it), and
// reports whether find descends into it.
func (q *findQuery) visit(e *findEntry) bool {
	if q.maxDepth >= 0 && e.depth > q.maxDepth {
		return false
	}
	if e.depth >= q.minDepth {
		e.reach = func(act *findAction) {
			if len(act.matches) <= maxFindMatches {
				act.matches = append(act.matches, findMatch{abs: e.abs, shown: e.shown, dir: e.dir})
			}
		}
		if v := q.expr.eval(e, true); v != triFalse && q.printed != nil {
			*q.printed = append(*q.printed, e.shown)
		}
	}
	return !e.pruned
}

func typeLetter(m fs.FileMode) byte {
	switch {
	case m.IsDir():
		return 'd'
	case m&fs.ModeSymlink != 0:
		return 'l'
	case m&fs.ModeNamedPipe != 0:
		return 'p'
	case m&fs.ModeSocket != 0:
		return 's'
	case m&fs.ModeCharDevice != 0:
		return 'c'
	case m&fs.ModeDevice != 0:
		return 'b'
	}
	return 'f'
}

func parseSmallInt(s string) (int, error) {
	n := 0
	if s == "" || len(s) > 6 {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}
