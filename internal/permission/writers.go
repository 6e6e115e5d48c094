package permission

import (
	"io/fs"
	"path"
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// copyOptions are the options of the copy programs that take a value.
var copyOptions = map[string]struct {
	short string
	long  []string
}{
	"cp":      {"tS", []string{"target-directory", "suffix"}},
	"mv":      {"tS", []string{"target-directory", "suffix"}},
	"ln":      {"tS", []string{"target-directory", "suffix"}},
	"install": {"tSmogZ", []string{"target-directory", "suffix", "mode", "owner", "group"}},
	"rsync": {"eBfTM", []string{"rsh", "exclude", "include", "filter", "temp-dir", "partial-dir",
		"exclude-from", "include-from", "files-from", "block-size", "rsync-path", "log-file", "chmod",
		"chown", "compare-dest", "copy-dest", "link-dest", "backup-dir", "out-format", "password-file"}},
	"scp": {"cFiJloPSDX", nil},
}

// copyLike handles cp, mv, install, ln, rsync and scp: the destination (or
// the files that land in a destination folder) is written; mv also removes
// its sources; a hard link makes its source writable under the new name.
func (a *shellAnalyzer) copyLike(prog string, argv []word, st *shellState) {
	o := copyOptions[prog]
	p := parseArgs(argv, o.short, o.long...)
	if prog == "rsync" {
		for _, w := range p.value(0, "log-file") {
			a.target(w, st, kindFile, "rsync --log-file")
		}
	}
	ops := p.ops
	if prog == "install" && p.has('d', "directory") {
		for _, op := range ops {
			a.target(op, st, kindDir, "install -d")
		}
		return
	}
	var dest word
	sources := ops
	destIsDir := false
	if t := p.value('t', "target-directory"); len(t) > 0 && prog != "rsync" && prog != "scp" {
		dest, destIsDir = t[len(t)-1], true
	} else if len(ops) >= 2 {
		dest, sources = ops[len(ops)-1], ops[:len(ops)-1]
	} else if len(ops) == 1 && prog == "ln" {
		dest, destIsDir = lit("."), true
	} else {
		return
	}
	destVals := a.expand(dest, st)
	if destVals == nil {
		a.unknownEffect(dest.raw, prog+" destination")
		return
	}
	recursive := prog == "rsync" || prog == "mv" || p.has('r', "recursive") || p.has('R') || p.has('a', "archive")
	symbolic := prog == "ln" && p.has('s', "symbolic")
	place := prog
	if prog == "cp" && (p.has('l', "link") || p.has('s', "symbolic-link")) {
		// cp -l / cp -s make links, not copies: the source becomes
		// writable under the new name.
		place, symbolic = "ln", p.has('s', "symbolic-link")
	}
	// A backup (-b, --backup) renames the file it replaces to name+suffix.
	backup := ""
	if prog != "rsync" && prog != "scp" && (p.has('b') || p.has(0, "backup") || len(p.value('S', "suffix")) > 0) {
		backup = "~"
		if v := st.vars["SIMPLE_BACKUP_SUFFIX"]; v.known() {
			backup, _ = v.single()
		}
		if sfx := p.value('S', "suffix"); len(sfx) > 0 {
			var ok bool
			if backup, ok = sfx[len(sfx)-1].single(); !ok {
				a.unknownEffect(sfx[len(sfx)-1].raw, prog+" backup suffix")
				backup = ""
			}
		}
	}
	noTargetDir := p.has('T', "no-target-directory") && prog != "rsync"
	for _, d := range destVals {
		if prog == "rsync" || prog == "scp" {
			if remote(d) {
				continue
			}
		}
		multi := len(sources) > 1
		for _, s := range sources {
			if len(s.vals) > 1 || s.glob {
				multi = true
			}
		}
		isDir := !noTargetDir && (destIsDir || multi || strings.HasSuffix(d, "/") || a.isDir(d, st))
		if prog == "rsync" && p.has(0, "delete", "delete-before", "delete-after", "delete-during", "delete-excluded", "del") {
			a.targetValue(d, st, kindTree, "rsync --delete")
		}
		for _, s := range sources {
			vals, scope := a.expandScoped(s, st)
			if vals == nil {
				if scope != nil && prog == "mv" {
					a.computedTrees(scope, st, "mv (source)")
				}
				a.unknownEffect(strings.TrimSuffix(d, "/")+"/"+s.raw, prog)
				if !isDir {
					a.targetValue(d, st, kindFile, prog)
				}
				continue
			}
			saved := a.computed
			a.computed = saved || s.computed || s.glob
			for _, sv := range vals {
				a.placeSource(place, sv, d, isDir, recursive, symbolic, st)
				if backup != "" {
					landing := d
					if isDir {
						landing = strings.TrimSuffix(d, "/") + "/" + path.Base(strings.TrimSuffix(toSlash(sv), "/"))
					}
					a.targetValue(landing+backup, st, kindFile, prog+" backup")
				}
			}
			a.computed = saved
		}
	}
}

func remote(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	if i == 1 && len(s) > 2 && (s[2] == '/' || s[2] == '\\') {
		return false // a drive letter
	}
	return !strings.Contains(s[:i], "/")
}

// placeSource records where one source of a copy, move or link lands.
func (a *shellAnalyzer) placeSource(prog, src, dest string, isDir, recursive, symbolic bool, st *shellState) {
	if (prog == "rsync" || prog == "scp") && remote(src) {
		if isDir {
			a.unknownEffect(dest+"/\x00", prog+" from a remote host")
			a.targetValue(dest, st, kindTree, prog)
		} else {
			a.targetValue(dest, st, kindFile, prog)
		}
		return
	}
	base := path.Base(strings.TrimSuffix(toSlash(src), "/"))
	landing := dest
	if isDir {
		landing = strings.TrimSuffix(dest, "/") + "/" + base
		if prog == "rsync" && (strings.HasSuffix(src, "/") || strings.HasSuffix(src, "/.")) {
			landing = strings.TrimSuffix(dest, "/") // rsync src/ copies the contents
		}
	}
	switch {
	case prog == "ln":
		a.targetValue(landing, st, kindFile, "ln")
		if n := len(a.eff.targets); n > 0 && a.eff.targets[n-1].via == "ln" {
			a.eff.targets[n-1].noFollow = true
		}
		// The link's target is relative to the link's folder.
		linkAbs, ok := a.abs(landing, st)
		if !ok {
			return
		}
		srcAbs := toSlash(src)
		if !isAbs(srcAbs) {
			srcAbs = join(path.Dir(linkAbs), srcAbs)
		}
		if !symbolic {
			if s, ok := a.abs(src, st); ok {
				srcAbs = s // a hard link's source is relative to the shell
			}
			a.targetValue(srcAbs, st, kindFile, "ln (hard link source)")
			return
		}
		a.targetValue(srcAbs, st, kindLink, "ln -s")
		if a.eff.links == nil {
			a.eff.links = map[string]string{}
		}
		a.eff.links[cleanAbs(linkAbs)] = toSlash(src)
		return
	case prog == "mv":
		k := kindFile
		if a.isDir(src, st) {
			k = kindTree
		}
		a.targetValue(src, st, k, "mv (source)")
	}
	// A folder copied recursively lands file by file.
	if recursive && a.isDir(src, st) {
		srcAbs, ok := a.abs(src, st)
		if !ok {
			a.unknownEffect(src, prog)
			return
		}
		a.targetValue(landing, st, kindDir, prog)
		complete := walk(resolve(srcAbs, a.eff.links), func(rel string, d fs.DirEntry) {
			k := kindFile
			if d.IsDir() {
				k = kindDir
			}
			a.targetValue(strings.TrimSuffix(landing, "/")+"/"+rel, st, k, prog)
		})
		if !complete {
			a.targetValue(landing, st, kindTree, prog)
		}
		return
	}
	a.targetValue(landing, st, kindFile, prog)
}

// sed -i rewrites its files; a script's w command writes a file.
func (a *shellAnalyzer) sed(argv []word, st *shellState) {
	var scripts []word
	inplace := false
	var ops []word
	end := false
	for i := 0; i < len(argv); i++ {
		s, ok := argv[i].single()
		if end || !ok || len(s) < 2 || s[0] != '-' {
			ops = append(ops, argv[i])
			continue
		}
		if s == "--" {
			end = true
			continue
		}
		if strings.HasPrefix(s, "--") {
			name, v, eq := strings.Cut(s[2:], "=")
			switch name {
			case "in-place":
				inplace = true
			case "expression":
				if eq {
					scripts = append(scripts, lit(v))
				} else if i+1 < len(argv) {
					scripts = append(scripts, argv[i+1])
					i++
				}
			case "file":
				if !eq {
					i++
				}
				scripts = append(scripts, unknownWord)
			case "line-length":
				if !eq {
					i++
				}
			}
			continue
		}
	cluster:
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'i':
				inplace = true
				break cluster // the rest is a backup suffix
			case 'e', 'f':
				w := lit(s[j+1:])
				if j+1 >= len(s) && i+1 < len(argv) {
					w = argv[i+1]
					i++
				}
				if s[j] == 'f' {
					w = unknownWord
				}
				scripts = append(scripts, w)
				break cluster
			case 'l':
				if j+1 >= len(s) {
					i++
				}
				break cluster
			}
		}
	}
	if len(scripts) == 0 && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	for _, sc := range scripts {
		v, ok := sc.single()
		if !ok {
			a.unknownEffect(sc.raw, "sed script from a file or unknown text")
			continue
		}
		se := parseSed(v)
		for _, w := range se.writes {
			a.targetValue(w, st, kindFile, "sed w")
		}
		for _, c := range se.commands {
			a.nested(c, st.clone())
		}
		if se.computed {
			a.unknownEffect(v, "sed e runs a command it builds")
		}
	}
	if inplace {
		for _, op := range ops {
			a.target(op, st, kindFile, "sed -i")
		}
	}
}

// awk writes with print > "file"; gawk -i inplace rewrites its files.
func (a *shellAnalyzer) awk(argv []word, st *shellState) {
	p := parseArgs(argv, "Ffvi", "file", "field-separator", "assign", "include")
	ops := p.ops
	if p.vals["f"] == nil && p.vals["file"] == nil {
		if len(ops) == 0 {
			return
		}
		prog := ops[0]
		ops = ops[1:]
		v, ok := prog.single()
		if !ok {
			a.unknownEffect(prog.raw, "awk program with unknown text")
		} else {
			for _, m := range awkWrite.FindAllStringSubmatch(v, -1) {
				if m[2] != "" || m[1] == "" {
					a.unknownEffect(v, "awk print to a computed file")
					continue
				}
				a.targetValue(m[1], st, kindFile, "awk print >")
			}
			a.awkCommands(v, st)
		}
	} else {
		a.unknownEffect(wordsText(argv), "awk program from a file")
	}
	for _, inc := range p.value('i', "include") {
		if v, _ := inc.single(); v == "inplace" {
			for _, op := range ops {
				if s, ok := op.single(); ok && strings.Contains(s, "=") {
					continue
				}
				a.target(op, st, kindFile, "awk -i inplace")
			}
		}
	}
}

// awkCommands analyses the commands an awk program runs: system("..."),
// "..." | getline, print | "...". A command it builds is unknown.
func (a *shellAnalyzer) awkCommands(prog string, st *shellState) {
	rest := prog
	for _, re := range []*lazyre.Regexp{awkSystem, awkGetline, awkPipeOut} {
		for _, m := range re.FindAllStringSubmatchIndex(rest, -1) {
			a.nested(ansiC(rest[m[2]:m[3]]), st.clone())
		}
		rest = re.Re().ReplaceAllString(rest, " ")
	}
	if awkCmd.MatchString(rest) {
		a.unknownEffect(prog, "awk runs a command it builds")
	}
}

// tar x writes under -C (or the current folder); tar c/r/u writes -f.
func (a *shellAnalyzer) tar(argv []word, st *shellState) {
	argv = append([]word(nil), argv...)
	if len(argv) > 0 {
		if s, ok := argv[0].single(); ok && s != "" && s[0] != '-' {
			argv[0] = lit("-" + s) // old-style bundled modes: "tar xzf a.tgz"
		}
	}
	p := parseArgs(argv, "fCTXbHIKLNVg", "file", "directory", "files-from", "exclude-from", "format", "use-compress-program", "newer", "transform", "exclude")
	extract := p.has('x', "extract", "get")
	create := p.has('c', "create") || p.has('r', "append") || p.has('u', "update") || p.has('A', "catenate", "concatenate")
	if extract && !p.has('O', "to-stdout") {
		dirs := p.value('C', "directory")
		if len(dirs) == 0 {
			dirs = []word{lit(".")}
		}
		for _, d := range dirs {
			a.target(d, st, kindTree, "tar extract")
		}
	}
	if create {
		for _, f := range p.value('f', "file") {
			a.target(f, st, kindFile, "tar create")
		}
	}
}

func (a *shellAnalyzer) unzip(prog string, argv []word, st *shellState) {
	if prog == "unzip" {
		p := parseArgs(argv, "dx", "exdir")
		if p.has('l') || p.has('p') || p.has('t') || p.has('v') || p.has('Z') {
			return
		}
		dirs := p.value('d', "exdir")
		if len(dirs) == 0 {
			dirs = []word{lit(".")}
		}
		for _, d := range dirs {
			a.target(d, st, kindTree, "unzip")
		}
		return
	}
	if len(argv) == 0 {
		return
	}
	sub, _ := argv[0].single()
	switch sub {
	case "x", "e":
		dir := lit(".")
		for _, w := range argv[1:] {
			if v, ok := w.single(); ok && strings.HasPrefix(v, "-o") {
				dir = lit(v[2:])
			}
		}
		a.target(dir, st, kindTree, prog+" extract")
	case "a", "u", "d", "rn":
		for _, w := range argv[1:] {
			if v, ok := w.single(); ok && strings.HasPrefix(v, "-") {
				continue
			}
			a.target(w, st, kindFile, prog+" archive")
			break
		}
	}
}

func (a *shellAnalyzer) curl(argv []word, st *shellState) {
	p := parseArgs(argv, "oHdXuAeEbcCDFKmrTwxyYzQU",
		"output", "data", "data-raw", "data-binary", "data-urlencode", "header", "request", "user",
		"user-agent", "referer", "cookie", "cookie-jar", "config", "dump-header", "form", "max-time",
		"range", "upload-file", "write-out", "proxy", "url", "output-dir", "trace", "trace-ascii",
		"stderr", "connect-timeout", "retry", "cert", "key", "cacert")
	url := ""
	for _, u := range append(p.value(0, "url"), p.ops...) {
		if v, ok := u.single(); ok && strings.Contains(v, "://") {
			url = v
			break
		}
	}
	saved, savedURL := a.dl, a.dlURL
	a.dl, a.dlURL = true, url
	defer func() { a.dl, a.dlURL = saved, savedURL }()
	for _, w := range p.value('o', "output") {
		a.target(a.inDir(w, p.value(0, "output-dir")), st, kindFile, "curl -o")
	}
	a.dl = false
	for _, w := range append(p.value('c', "cookie-jar"), p.value('D', "dump-header")...) {
		a.target(w, st, kindFile, "curl")
	}
	for _, w := range p.value(0, "trace", "trace-ascii", "stderr") {
		a.target(w, st, kindFile, "curl")
	}
	a.dl = true
	if p.has('O', "remote-name", "remote-name-all") {
		urls := append(p.ops, p.value(0, "url")...)
		for _, u := range urls {
			v, ok := u.single()
			if !ok {
				a.unknownEffect(u.raw, "curl -O")
				continue
			}
			a.target(a.inDir(lit(urlBase(v)), p.value(0, "output-dir")), st, kindFile, "curl -O")
		}
	}
}

func (a *shellAnalyzer) inDir(w word, dirs []word) word {
	if len(dirs) == 0 {
		return w
	}
	d, ok1 := dirs[len(dirs)-1].single()
	v, ok2 := w.single()
	if !ok1 || !ok2 {
		return word{raw: w.raw}
	}
	if isAbs(toSlash(v)) {
		return w
	}
	return lit(strings.TrimSuffix(d, "/") + "/" + v)
}

func urlBase(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	b := path.Base(u)
	if !strings.Contains(u, "/") || b == "" || b == "/" || b == "." {
		return "index.html"
	}
	return b
}

func (a *shellAnalyzer) wget(argv []word, st *shellState) {
	p := parseArgs(argv, "OoaPtTwQlUeAIXDRB",
		"output-document", "output-file", "append-output", "directory-prefix", "tries", "timeout",
		"wait", "quota", "level", "user-agent", "execute", "accept", "reject", "include-directories",
		"exclude-directories", "domains", "base", "header", "user", "password", "post-data", "post-file")
	for _, w := range append(p.value('o', "output-file"), p.value('a', "append-output")...) {
		a.target(w, st, kindFile, "wget log")
	}
	url := ""
	for _, u := range p.ops {
		if v, ok := u.single(); ok && strings.Contains(v, "://") {
			url = v
			break
		}
	}
	saved, savedURL := a.dl, a.dlURL
	a.dl, a.dlURL = true, url
	defer func() { a.dl, a.dlURL = saved, savedURL }()
	for _, w := range p.value('O', "output-document") {
		a.target(w, st, kindFile, "wget -O")
	}
	if len(p.value('O', "output-document")) > 0 {
		return
	}
	dirs := p.value('P', "directory-prefix")
	if p.has('r', "recursive") || p.has('m', "mirror") {
		d := lit(".")
		if len(dirs) > 0 {
			d = dirs[len(dirs)-1]
		}
		a.target(d, st, kindTree, "wget -r")
		return
	}
	for _, u := range p.ops {
		v, ok := u.single()
		if !ok {
			a.unknownEffect(u.raw, "wget")
			continue
		}
		a.target(a.inDir(lit(urlBase(v)), dirs), st, kindFile, "wget")
	}
}
