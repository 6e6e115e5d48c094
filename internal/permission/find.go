package permission

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobwas/glob"
)

// find: -delete removes what it matches, -exec runs a command on it,
// -fprint writes a file. The matches are computed by walking the start
// folders with the -name/-path filters (all filters are dropped when the
// expression has -o, ! or parentheses, which only widens the set).
func (a *shellAnalyzer) find(argv []word, st *shellState, raw string) {
	q := a.findQuery(argv, st)
	if !q.del && len(q.execs) == 0 {
		return
	}
	matches, complete := a.findMatches(q, st)
	if !complete {
		a.unknownEffect(raw, "find over too many or unknown files")
		return
	}
	if q.del {
		for _, m := range matches {
			a.targetValue(m, st, kindFile, "find -delete")
		}
	}
	if len(matches) == 0 {
		return
	}
	for _, cmd := range q.execs {
		if len(cmd) == 0 {
			continue
		}
		bound := make([]word, len(cmd))
		for k, w := range cmd {
			v, ok := w.single()
			if ok && strings.Contains(v, "{}") {
				vals := make([]string, 0, len(matches))
				for _, m := range matches {
					vals = append(vals, strings.ReplaceAll(v, "{}", m))
				}
				bound[k] = word{vals: vals, raw: v}
				continue
			}
			bound[k] = w
		}
		a.run(bound, st.clone(), stdinSrc{}, "")
	}
}

// findQuery is a find command line read: where it starts, what it keeps,
// and what it does to what it keeps.
type findQuery struct {
	starts   []word
	follow   bool // -L, -follow: symlinked folders are entered
	filters  []findFilter
	maxDepth int // -1: none
	del      bool
	execs    [][]word // -exec/-execdir/-ok/-okdir commands, without ; or +
}

type findFilter struct {
	base bool // -name/-iname match the base name, -path the whole path
	g    glob.Glob
}

// findValued are the tests whose value is the next word.
var findValued = setOf("-type", "-xtype", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size",
	"-newer", "-user", "-group", "-perm", "-links", "-inum", "-samefile", "-uid", "-gid", "-printf",
	"-context", "-fstype", "-used", "-mindepth", "-lname", "-ilname", "-newermt", "-anewer", "-cnewer")

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
		if ok && (strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ",") {
			break
		}
		q.starts = append(q.starts, argv[i])
	}
	if len(q.starts) == 0 {
		q.starts = []word{lit(".")}
	}
	complex := false
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok {
			complex = true
			continue
		}
		next := func() (word, bool) {
			if i+1 >= len(argv) {
				return word{}, false
			}
			i++
			return argv[i], true
		}
		switch s {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			w, ok := next()
			v, known := w.single()
			if !ok || !known {
				complex = true
				continue
			}
			if strings.HasPrefix(s, "-i") {
				v = strings.ToLower(v)
			}
			g, err := glob.Compile(v)
			if err != nil {
				complex = true
				continue
			}
			q.filters = append(q.filters, findFilter{base: strings.HasSuffix(s, "name") && !strings.HasSuffix(s, "wholename"), g: g})
		case "-maxdepth":
			w, _ := next()
			if v, ok := w.single(); ok {
				if n, err := parseSmallInt(v); err == nil {
					q.maxDepth = n
				}
			}
		case "-o", "-or", "!", "-not", "(", ")", ",", "-a", "-and", "-regex", "-iregex":
			if s == "-regex" || s == "-iregex" {
				i++
			}
			if s != "-a" && s != "-and" {
				complex = true
			}
		case "-follow":
			q.follow = true
		case "-delete":
			q.del = true
		case "-exec", "-execdir", "-ok", "-okdir":
			var cmd []word
			for i++; i < len(argv); i++ {
				v, ok := argv[i].single()
				if ok && (v == ";" || v == "+") {
					break
				}
				cmd = append(cmd, argv[i])
			}
			q.execs = append(q.execs, cmd)
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			w, _ := next()
			a.target(w, st, kindFile, "find "+s)
			if s == "-fprintf" {
				i++
			}
		default:
			if findValued[s] {
				i++
			}
		}
	}
	if complex {
		q.filters = nil
	}
	return q
}

// keep applies -maxdepth and the name filters to one entry under start;
// rel is "" for the start folder itself.
func (q *findQuery) keep(rel, start string) bool {
	depth := 0
	if rel != "" {
		depth = strings.Count(rel, "/") + 1
	}
	if q.maxDepth >= 0 && depth > q.maxDepth {
		return false
	}
	subject := strings.TrimSuffix(start, "/")
	base := path.Base(subject)
	if rel != "" {
		subject += "/" + rel
		base = path.Base(rel)
	}
	for _, f := range q.filters {
		s := subject
		if f.base {
			s = base
		}
		if !f.g.Match(s) && !f.g.Match(strings.ToLower(s)) {
			return false
		}
	}
	return true
}

// findMatches walks the start folders for what q keeps (absolute paths).
// complete is false when a start folder is unknown or there are too many
// entries to tell.
func (a *shellAnalyzer) findMatches(q findQuery, st *shellState) (matches []string, complete bool) {
	walker := walk
	if q.follow {
		walker = walkFollow // -L: symlinked folders are entered
	}
	for _, sw := range q.starts {
		sv, ok := sw.single()
		if !ok {
			return nil, false
		}
		startAbs, ok := a.abs(sv, st)
		if !ok {
			return nil, false
		}
		if q.keep("", sv) {
			matches = append(matches, startAbs)
		}
		if !walker(resolve(startAbs, a.eff.links), func(rel string, d fs.DirEntry) {
			if q.keep(rel, sv) {
				matches = append(matches, strings.TrimSuffix(startAbs, "/")+"/"+rel)
			}
		}) || len(matches) > maxGlobMatches {
			return nil, false
		}
	}
	return matches, true
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

// walkFollow is walk entering symlinked folders (find -L), each physical
// folder once; rel stays the path through the links.
func walkFollow(dir string, fn func(rel string, d fs.DirEntry)) bool {
	n := 0
	seen := map[string]bool{}
	var visit func(phys, prefix string) bool
	visit = func(phys, prefix string) bool {
		if seen[phys] {
			return true
		}
		seen[phys] = true
		entries, err := os.ReadDir(filepath.FromSlash(phys))
		if err != nil {
			return true
		}
		for _, e := range entries {
			n++
			if n > maxWalk {
				return false
			}
			rel := e.Name()
			if prefix != "" {
				rel = prefix + "/" + e.Name()
			}
			fn(rel, e)
			child := strings.TrimSuffix(phys, "/") + "/" + e.Name()
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if fi, err := os.Stat(filepath.FromSlash(child)); err == nil && fi.IsDir() {
					isDir = true
					child = resolve(child, nil)
				}
			}
			if isDir && !visit(child, rel) {
				return false
			}
		}
		return true
	}
	return visit(resolve(dir, nil), "")
}
