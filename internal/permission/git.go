package permission

import "strings"

// git: the options before the subcommand (-C, -c, --work-tree) set where
// and how it runs; gitTable then says what each subcommand writes. Paths
// named by rm, mv, checkout and restore are written; whole-tree operations
// (reset --hard, stash, clean) are judged against every protected file
// under the work tree; a subcommand missing from the table rewrites the
// repository (kindRepo), which a role confined to one area may not do.

// gitCommandKeys are the configuration keys whose value git runs as a
// command (a pager, an editor, a filter, a hook folder...).
var gitCommandKeys = []string{"pager", "editor", "fsmonitor", "sshcommand", "askpass", "textconv",
	"command", "cmd", "clean", "smudge", "process", "program", "helper", "external", "hookspath",
	"gitproxy", "proxycommand", "tool", "receivepack", "uploadpack"}

// gitReadOnly subcommands write nothing (their --output aside).
var gitReadOnly = setOf("status", "log", "show", "diff", "blame", "ls-files", "ls-tree", "rev-parse", "describe",
	"shortlog", "grep", "cat-file", "rev-list", "show-ref", "for-each-ref", "name-rev",
	"count-objects", "help", "version", "whatchanged", "cherry", "var", "check-ignore",
	"check-attr", "merge-base", "ls-remote", "annotate", "range-diff", "show-branch", "verify-commit")

// gitTable says what the git subcommands that are neither read-only nor a
// plain repository rewrite write.
var gitTable map[string]func(g *gitCall)

func init() {
	gitTable = map[string]func(g *gitCall){
		"branch": (*gitCall).refs, "tag": (*gitCall).refs, "remote": (*gitCall).refs, "config": (*gitCall).refs,
		"worktree": (*gitCall).refs, "notes": (*gitCall).refs, "submodule": (*gitCall).refs,
		"reset":    (*gitCall).reset,
		"clean":    (*gitCall).clean,
		"stash":    (*gitCall).stash,
		"apply":    (*gitCall).apply,
		"am":       (*gitCall).apply,
		"init":     (*gitCall).init,
		"archive":  (*gitCall).archive,
		"rm":       (*gitCall).rm,
		"mv":       (*gitCall).mv,
		"checkout": (*gitCall).checkout,
		"restore":  (*gitCall).checkout,
		"clone":    (*gitCall).clone,
	}
}

// gitCall is one git subcommand being analysed.
type gitCall struct {
	a    *shellAnalyzer
	sub  string
	rest []word      // the subcommand's arguments
	st   *shellState // the calling shell
	gst  *shellState // where git runs (-C, --work-tree)
	in   stdinSrc
	raw  string
}

func (a *shellAnalyzer) gitIn(argv []word, st *shellState, in stdinSrc, raw string, depth int) {
	gst, aliases, i, ok := a.gitOptions(argv, st, raw)
	if !ok || i >= len(argv) {
		return
	}
	sub, _ := argv[i].single()
	rest := argv[i+1:]
	if exp, ok := aliases[sub]; ok && depth < 3 {
		if strings.HasPrefix(exp, "!") {
			a.nested(exp[1:]+" "+wordsText(rest), gst.clone())
			return
		}
		words := []word{}
		for _, f := range strings.Fields(exp) {
			words = append(words, lit(f))
		}
		a.gitIn(append(words, rest...), gst, in, raw, depth+1)
		return
	}
	// --output=<file> writes the command's output to a file (diff, log,
	// show, format-patch...).
	for _, w := range parseArgs(rest, "", "output").value(0, "output") {
		a.target(w, gst, kindFile, "git "+sub+" --output")
	}
	g := &gitCall{a: a, sub: sub, rest: rest, st: st, gst: gst, in: in, raw: raw}
	switch f := gitTable[sub]; {
	case gitReadOnly[sub]:
	case f != nil:
		f(g)
	default:
		g.repo()
	}
}

// gitOptions reads git's options before the subcommand: the folder it runs
// in, -c settings (aliases, and commands it would run), and where the
// subcommand starts. ok is false when an option cannot be read.
func (a *shellAnalyzer) gitOptions(argv []word, st *shellState, raw string) (gst *shellState, aliases map[string]string, i int, ok bool) {
	gst = st
	aliases = map[string]string{}
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok {
			a.unknownEffect(raw, "git with unknown options")
			return gst, aliases, i, false
		}
		switch {
		case s == "-C" && i+1 < len(argv):
			if gst == st {
				gst = st.clone()
			}
			v, _ := argv[i+1].single()
			a.chdir(gst, v)
			i++
		case s == "-c" || strings.HasPrefix(s, "--config-env"):
			if s == "-c" && i+1 < len(argv) {
				if kv, ok := argv[i+1].single(); ok {
					a.gitConfig(kv, gst, aliases)
				} else {
					a.unknownEffect(argv[i+1].raw, "git -c with unknown text")
				}
			}
			i++
		case strings.HasPrefix(s, "--work-tree") || strings.HasPrefix(s, "--git-dir"):
			v, eq := "", false
			if _, v, eq = strings.Cut(s, "="); !eq && i+1 < len(argv) {
				v, _ = argv[i+1].single()
				i++
			}
			if strings.HasPrefix(s, "--work-tree") {
				if gst == st {
					gst = st.clone()
				}
				a.chdir(gst, v)
			}
		case s == "--namespace" || s == "--exec-path":
			i++
		case !strings.HasPrefix(s, "-"):
			return gst, aliases, i, true
		}
	}
	return gst, aliases, i, true
}

// repo records a rewrite of the repository in git's folder.
func (g *gitCall) repo() {
	dir := g.gst.cwd
	if dir == "" {
		g.a.unknownEffect(g.raw, "git "+g.sub+" in an unknown folder")
		return
	}
	g.a.eff.targets = append(g.a.eff.targets, rawTarget{path: dir, kind: kindRepo, via: "git " + g.sub})
}

// tree records a command that may rewrite or remove any file of the work
// tree: it is judged against every protected file under it.
func (g *gitCall) tree(what string) {
	dir := g.gst.cwd
	if dir == "" {
		g.a.unknownEffect(g.raw, "git "+what+" in an unknown folder")
		return
	}
	if g.a.root != "" {
		if _, inside := relativeTo(g.a.root, resolve(dir, g.a.eff.links)); inside {
			dir = g.a.root // the work tree is the project's
		}
	}
	g.a.targetValue(dir, g.gst, kindTree, "git "+what)
}

// refs: branch, tag, remote, config, worktree, notes and submodule list
// when given nothing to change, and rewrite the repository otherwise.
func (g *gitCall) refs() {
	p := parseArgs(g.rest, "")
	if len(p.ops) == 0 && !p.has('d', "delete") && !p.has('D') && !p.has('m', "move") && !p.has('M') &&
		!p.has(0, "unset", "unset-all", "add", "replace-all", "edit", "remove-section", "rename-section") {
		return // listing
	}
	if g.sub == "config" && (p.has(0, "get", "get-all", "get-regexp", "list", "show-origin") || p.has('l')) {
		return
	}
	if len(p.ops) > 0 && (g.sub == "remote" || g.sub == "worktree" || g.sub == "submodule" || g.sub == "notes") {
		if v, ok := p.ops[0].single(); ok && (v == "show" || v == "list" || v == "-v" || v == "status" || v == "get-url") {
			return
		}
	}
	g.repo()
}

// reset --hard/--merge/--keep rewrites the work tree.
func (g *gitCall) reset() {
	p := parseArgs(g.rest, "", "pathspec-from-file")
	if p.has(0, "hard", "merge", "keep") {
		g.tree("reset --" + firstOf(p, "hard", "merge", "keep"))
		return
	}
	g.repo()
}

// clean -f removes untracked files: the paths named, or the whole tree.
func (g *gitCall) clean() {
	p := parseArgs(g.rest, "eE", "exclude")
	if p.has('n', "dry-run") || !p.has('f', "force") && !p.has('i', "interactive") {
		return // refuses to run without -f (clean.requireForce)
	}
	if len(p.ops) == 0 {
		g.tree("clean")
		return
	}
	for _, op := range p.ops {
		g.a.target(op, g.gst, kindTree, "git clean")
	}
}

// stash rewrites the work tree; stash push -- <paths> only those paths.
func (g *gitCall) stash() {
	rest, args := g.rest, g.rest
	if len(rest) > 0 {
		v, _ := rest[0].single()
		switch v {
		case "list", "show", "create", "branch":
			return
		case "push", "save":
			args = rest[1:]
		}
	}
	if p := parseArgs(args, "m", "message", "pathspec-from-file"); len(p.ops) > 0 && len(args) > 0 {
		if v, _ := rest[0].single(); v == "push" || strings.HasPrefix(v, "-") {
			g.pathsNamed(p.ops)
			return
		}
	}
	g.tree("stash")
}

// pathsNamed records the paths a subcommand rewrites: a folder as a tree.
func (g *gitCall) pathsNamed(ops []word) {
	for _, op := range ops {
		k := kindFile
		if v, ok := op.single(); ok && g.a.isDir(v, g.gst) {
			k = kindTree
		}
		g.a.target(op, g.gst, k, "git "+g.sub)
	}
}

// apply and am write the files their diff names.
func (g *gitCall) apply() {
	g.a.gitApply(g.rest, g.gst, g.in, g.raw)
	g.repo()
}

// init creates DIR/.git.
func (g *gitCall) init() {
	p := parseArgs(g.rest, "", "template", "separate-git-dir", "object-format", "initial-branch", "shared", "ref-format")
	dir := lit(".")
	if len(p.ops) > 0 {
		dir = p.ops[0]
	}
	if v, ok := dir.single(); ok {
		g.a.targetValue(strings.TrimSuffix(v, "/")+"/.git", g.gst, kindTree, "git init")
	} else {
		g.a.unknownEffect(g.raw, "git init")
	}
}

// archive -o writes the archive (relative to the calling shell).
func (g *gitCall) archive() {
	for _, w := range parseArgs(g.rest, "o", "output", "format", "prefix", "remote").value('o', "output") {
		g.a.target(w, g.st, kindFile, "git archive")
	}
}

// rm removes the paths it names (-r: folders), unless --cached.
func (g *gitCall) rm() {
	p := parseArgs(g.rest, "", "pathspec-from-file")
	if !p.has(0, "cached") {
		k := kindFile
		if p.has('r') {
			k = kindTree
		}
		for _, op := range p.ops {
			g.a.target(op, g.gst, k, "git rm")
		}
	}
	g.repo()
}

// mv moves like mv.
func (g *gitCall) mv() {
	if p := parseArgs(g.rest, ""); len(p.ops) >= 2 {
		g.a.copyLike("mv", p.ops, g.gst)
	}
	g.repo()
}

// checkout and restore rewrite the paths they name (restore --staged
// only the index).
func (g *gitCall) checkout() {
	p := parseArgs(g.rest, "bBs", "source", "orphan", "conflict", "pathspec-from-file")
	if !(g.sub == "restore" && p.has('S', "staged") && !p.has('W', "worktree")) {
		g.pathsNamed(p.ops)
	}
	g.repo()
}

// clone creates the folder it is given, or one named after the URL.
func (g *gitCall) clone() {
	p := parseArgs(g.rest, "bcoju", "branch", "config", "origin", "depth", "jobs", "upload-pack", "reference", "separate-git-dir", "template", "filter")
	switch len(p.ops) {
	case 0:
	case 1:
		if v, ok := p.ops[0].single(); ok {
			g.a.targetValue(strings.TrimSuffix(urlBase(strings.TrimSuffix(v, "/")), ".git"), g.gst, kindTree, "git clone")
		} else {
			g.a.unknownEffect(g.raw, "git clone")
		}
	default:
		g.a.target(p.ops[1], g.gst, kindTree, "git clone")
	}
}

func firstOf(p *args, names ...string) string {
	for _, n := range names {
		if p.long[n] {
			return n
		}
	}
	return names[0]
}

// gitConfig handles one -c key=value: an alias is remembered for the
// subcommand, a value git runs as a command is analysed as shell.
func (a *shellAnalyzer) gitConfig(kv string, st *shellState, aliases map[string]string) {
	key, val, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	if strings.HasPrefix(key, "alias.") {
		aliases[key[len("alias."):]] = val
		return
	}
	if key == "core.hookspath" {
		a.opaque("git hooks", kv)
		return
	}
	for _, k := range gitCommandKeys {
		if strings.HasSuffix(key, "."+k) || key == k {
			a.nested(strings.TrimPrefix(val, "!"), st.clone())
			return
		}
	}
}
