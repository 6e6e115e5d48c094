package permission

import "strings"

// gitCommandKeys are the configuration keys whose value git runs as a
// command (a pager, an editor, a filter, a hook folder...).
var gitCommandKeys = []string{"pager", "editor", "fsmonitor", "sshcommand", "askpass", "textconv",
	"command", "cmd", "clean", "smudge", "process", "program", "helper", "external", "hookspath",
	"gitproxy", "proxycommand", "tool", "receivepack", "uploadpack"}

func (a *shellAnalyzer) gitIn(argv []word, st *shellState, in stdinSrc, raw string, depth int) {
	gst := st
	i := 0
	aliases := map[string]string{}
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok {
			a.unknownEffect(raw, "git with unknown options")
			return
		}
		if s == "-C" && i+1 < len(argv) {
			if gst == st {
				gst = st.clone()
			}
			v, ok := argv[i+1].single()
			if !ok {
				v = ""
			}
			a.chdir(gst, v)
			i++
			continue
		}
		if s == "-c" || strings.HasPrefix(s, "--config-env") {
			if s == "-c" && i+1 < len(argv) {
				kv, ok := argv[i+1].single()
				if !ok {
					a.unknownEffect(argv[i+1].raw, "git -c with unknown text")
				} else {
					a.gitConfig(kv, gst, aliases)
				}
			}
			i++
			continue
		}
		if strings.HasPrefix(s, "--work-tree") || strings.HasPrefix(s, "--git-dir") {
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
			continue
		}
		if s == "--namespace" || s == "--exec-path" {
			i++
			continue
		}
		if !strings.HasPrefix(s, "-") {
			break
		}
	}
	if i >= len(argv) {
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
	repo := func() {
		dir := gst.cwd
		if dir == "" {
			a.unknownEffect(raw, "git "+sub+" in an unknown folder")
			return
		}
		a.eff.targets = append(a.eff.targets, rawTarget{path: dir, kind: kindRepo, via: "git " + sub})
	}
	// tree: a command that may rewrite or remove any file of the work tree
	// is judged against every protected file under it.
	tree := func(what string) {
		dir := gst.cwd
		if dir == "" {
			a.unknownEffect(raw, "git "+what+" in an unknown folder")
			return
		}
		if a.root != "" {
			if _, inside := relativeTo(a.root, resolve(dir, a.eff.links)); inside {
				dir = a.root // the work tree is the project's
			}
		}
		a.targetValue(dir, gst, kindTree, "git "+what)
	}
	switch sub {
	case "status", "log", "show", "diff", "blame", "ls-files", "ls-tree", "rev-parse", "describe",
		"shortlog", "grep", "cat-file", "rev-list", "show-ref", "for-each-ref", "name-rev",
		"count-objects", "help", "version", "whatchanged", "cherry", "var", "check-ignore",
		"check-attr", "merge-base", "ls-remote", "annotate", "range-diff", "show-branch", "verify-commit":
		return
	case "branch", "tag", "remote", "config", "worktree", "notes", "submodule":
		p := parseArgs(rest, "")
		if len(p.ops) == 0 && !p.has('d', "delete") && !p.has('D') && !p.has('m', "move") && !p.has('M') &&
			!p.has(0, "unset", "unset-all", "add", "replace-all", "edit", "remove-section", "rename-section") {
			return // listing
		}
		if sub == "config" && p.has(0, "get", "get-all", "get-regexp", "list", "show-origin") || sub == "config" && p.has('l') {
			return
		}
		if len(p.ops) > 0 && (sub == "remote" || sub == "worktree" || sub == "submodule" || sub == "notes") {
			if v, ok := p.ops[0].single(); ok && (v == "show" || v == "list" || v == "-v" || v == "status" || v == "get-url") {
				return
			}
		}
		repo()
	case "reset":
		p := parseArgs(rest, "", "pathspec-from-file")
		if p.has(0, "hard", "merge", "keep") {
			tree("reset --" + firstOf(p, "hard", "merge", "keep"))
			return
		}
		repo()
	case "clean":
		p := parseArgs(rest, "eE", "exclude")
		if p.has('n', "dry-run") || !p.has('f', "force") && !p.has('i', "interactive") {
			return // refuses to run without -f (clean.requireForce)
		}
		if len(p.ops) == 0 {
			tree("clean")
			return
		}
		for _, op := range p.ops {
			a.target(op, gst, kindTree, "git clean")
		}
	case "stash":
		args := rest
		if len(rest) > 0 {
			v, _ := rest[0].single()
			switch v {
			case "list", "show", "create", "branch":
				return
			case "push", "save":
				args = rest[1:]
			}
		}
		// git stash push -- <paths> touches only those paths.
		if p := parseArgs(args, "m", "message", "pathspec-from-file"); len(p.ops) > 0 && len(args) > 0 {
			if v, _ := rest[0].single(); v == "push" || strings.HasPrefix(v, "-") {
				for _, op := range p.ops {
					k := kindFile
					if s, ok := op.single(); ok && a.isDir(s, gst) {
						k = kindTree
					}
					a.target(op, gst, k, "git stash")
				}
				return
			}
		}
		tree("stash")
	case "apply", "am":
		a.gitApply(rest, gst, in, raw)
		repo()
	case "init":
		p := parseArgs(rest, "", "template", "separate-git-dir", "object-format", "initial-branch", "shared", "ref-format")
		dir := lit(".")
		if len(p.ops) > 0 {
			dir = p.ops[0]
		}
		if v, ok := dir.single(); ok {
			a.targetValue(strings.TrimSuffix(v, "/")+"/.git", gst, kindTree, "git init")
		} else {
			a.unknownEffect(raw, "git init")
		}
	case "lfs":
		repo()
	case "archive":
		for _, w := range parseArgs(rest, "o", "output", "format", "prefix", "remote").value('o', "output") {
			a.target(w, st, kindFile, "git archive")
		}
	case "rm":
		p := parseArgs(rest, "", "pathspec-from-file")
		if !p.has(0, "cached") {
			k := kindFile
			if p.has('r') {
				k = kindTree
			}
			for _, op := range p.ops {
				a.target(op, gst, k, "git rm")
			}
		}
		repo()
	case "mv":
		p := parseArgs(rest, "")
		if len(p.ops) >= 2 {
			a.copyLike("mv", p.ops, gst)
		}
		repo()
	case "checkout", "restore":
		p := parseArgs(rest, "bBs", "source", "orphan", "conflict", "pathspec-from-file")
		staged := sub == "restore" && p.has('S', "staged") && !p.has('W', "worktree")
		if !staged {
			for _, op := range p.ops {
				k := kindFile
				if v, ok := op.single(); ok && a.isDir(v, gst) {
					k = kindTree
				}
				a.target(op, gst, k, "git "+sub)
			}
		}
		repo()
	case "clone":
		p := parseArgs(rest, "bcoju", "branch", "config", "origin", "depth", "jobs", "upload-pack", "reference", "separate-git-dir", "template", "filter")
		switch len(p.ops) {
		case 0:
		case 1:
			if v, ok := p.ops[0].single(); ok {
				a.targetValue(strings.TrimSuffix(urlBase(strings.TrimSuffix(v, "/")), ".git"), gst, kindTree, "git clone")
			} else {
				a.unknownEffect(raw, "git clone")
			}
		default:
			a.target(p.ops[1], gst, kindTree, "git clone")
		}
	default:
		repo()
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
