package permission

import "strings"

// git: paths named by rm, mv, checkout and restore are written; whole-tree
// operations (reset, stash, pull, clean, ...) are kindRepo; read-only
// subcommands write nothing.
func (a *shellAnalyzer) git(argv []word, st *shellState, raw string) {
	gst := st
	i := 0
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
		if s == "-c" || s == "--git-dir" || s == "--work-tree" || s == "--namespace" || s == "--exec-path" {
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
	repo := func() {
		dir := gst.cwd
		if dir == "" {
			a.unknownEffect(raw, "git "+sub+" in an unknown folder")
			return
		}
		a.eff.targets = append(a.eff.targets, rawTarget{path: dir, kind: kindRepo, via: "git " + sub})
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
