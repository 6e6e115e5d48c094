package permission

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// maxPatch bounds the diff read to find the files a patch changes.
const maxPatch = 1 << 20

// patch changes the files its diff names (relative to -d, with -p leading
// folders cut). The diff comes from -i, the second operand, a heredoc or
// a file redirected to stdin; when it cannot be read, anything under the
// folder may change.
func (a *shellAnalyzer) patch(argv []word, st *shellState, in stdinSrc, raw string) {
	p := parseArgs(argv, "oidDpBFgrVYzF", "output", "input", "directory", "strip", "reject-file", "prefix", "suffix", "backup-if-mismatch")
	for _, w := range p.value('o', "output") {
		a.target(w, st, kindFile, "patch -o")
	}
	for _, w := range p.value('r', "reject-file") {
		a.target(w, st, kindFile, "patch -r")
	}
	if p.has(0, "dry-run") {
		return
	}
	strip := -1
	if s := p.value('p', "strip"); len(s) > 0 {
		if v, ok := s[len(s)-1].single(); ok {
			if n, err := strconv.Atoi(v); err == nil {
				strip = n
			}
		}
	}
	dir := lit(".")
	if d := p.value('d', "directory"); len(d) > 0 {
		dir = d[len(d)-1]
	}
	dst := st.clone()
	if v, ok := dir.single(); ok {
		a.chdir(dst, v)
	} else {
		dst.cwd = ""
	}
	if len(p.ops) > 0 && len(p.value('o', "output")) == 0 {
		a.target(p.ops[0], dst, kindFile, "patch") // the file named is the one patched
		return
	}
	if len(p.value('o', "output")) > 0 {
		return
	}
	var diff string
	var ok bool
	switch {
	case len(p.value('i', "input")) > 0:
		diff, ok = a.readDiff(p.value('i', "input")[0], st)
	case len(p.ops) > 1:
		diff, ok = a.readDiff(p.ops[1], st)
	case in.known:
		diff, ok = in.text, true
	case in.file != "":
		diff, ok = a.readDiff(lit(in.file), st)
	}
	a.diffTargets(diff, ok, strip, dst, "patch", raw)
}

// gitApply is git apply (and git am): the diff's files, -p1 by default,
// under --directory.
func (a *shellAnalyzer) gitApply(argv []word, st *shellState, in stdinSrc, raw string) {
	p := parseArgs(argv, "pC", "directory", "exclude", "include", "whitespace", "build-fake-ancestor")
	if p.has(0, "check", "stat", "numstat", "summary", "cached") {
		return
	}
	strip := 1
	if s := p.value('p'); len(s) > 0 {
		if v, ok := s[len(s)-1].single(); ok {
			if n, err := strconv.Atoi(v); err == nil {
				strip = n
			}
		}
	}
	dst := st.clone()
	if d := p.value(0, "directory"); len(d) > 0 {
		if v, ok := d[len(d)-1].single(); ok {
			a.chdir(dst, v)
		} else {
			dst.cwd = ""
		}
	}
	var diff string
	ok := false
	switch {
	case len(p.ops) > 0:
		var sb strings.Builder
		ok = true
		for _, op := range p.ops {
			d, good := a.readDiff(op, st)
			ok = ok && good
			sb.WriteString(d)
			sb.WriteByte('\n')
		}
		diff = sb.String()
	case in.known:
		diff, ok = in.text, true
	case in.file != "":
		diff, ok = a.readDiff(lit(in.file), st)
	}
	a.diffTargets(diff, ok, strip, dst, "git apply", raw)
}

func (a *shellAnalyzer) readDiff(w word, st *shellState) (string, bool) {
	v, ok := w.single()
	if !ok {
		return "", false
	}
	p, ok := a.abs(v, st)
	if !ok || !hostPath(p) {
		return "", false
	}
	f, err := os.Open(filepath.FromSlash(resolve(p, a.eff.links)))
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, maxPatch)
	n, _ := f.Read(buf)
	if n == maxPatch {
		return "", false
	}
	return string(buf[:n]), true
}

// diffTargets records the files a unified, context or git diff names. A
// diff that could not be read means anything under the folder may change.
func (a *shellAnalyzer) diffTargets(diff string, ok bool, strip int, st *shellState, via, raw string) {
	if !ok {
		if st.cwd == "" {
			a.unknownEffect(raw, via+" changes the files its diff names")
			return
		}
		a.targetValue(st.cwd, st, kindTree, via+" (the diff could not be read)")
		return
	}
	seen := map[string]bool{}
	add := func(name string) {
		name = strings.TrimSpace(name)
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			name = name[:i]
		}
		name = strings.Trim(name, `"`)
		if name == "" || name == "/dev/null" {
			return
		}
		var cands []string
		if strip < 0 {
			cands = []string{name, path.Base(name)} // without -p, patch may use either
		} else {
			parts := strings.Split(name, "/")
			if strip < len(parts) {
				cands = []string{strings.Join(parts[strip:], "/")}
			}
		}
		for _, c := range cands {
			if !seen[c] {
				seen[c] = true
				a.targetValue(c, st, kindFile, via)
			}
		}
	}
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "*** "):
			add(line[4:])
		case strings.HasPrefix(line, "Index: "):
			add(line[7:])
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "),
			strings.HasPrefix(line, "rename from "):
			name := line
			for _, pre := range []string{"rename to ", "copy to ", "rename from "} {
				name = strings.TrimPrefix(name, pre)
			}
			// git prints these without the a/ b/ prefixes.
			saved := strip
			if strip > 0 {
				strip = 0
			}
			add(name)
			strip = saved
		case strings.HasPrefix(line, "diff --git "):
			f := strings.Fields(line[len("diff --git "):])
			for _, x := range f {
				add(x)
			}
		}
	}
}
