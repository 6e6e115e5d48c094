package research

import (
	"bufio"
	"bytes"
	"path"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file (gitignore(5)).
type ignoreRule struct {
	segs    []string // the pattern's segments, "**" for any number of them
	negate  bool     // "!pattern": re-include
	dirOnly bool     // "pattern/": folders only
	// anchored patterns (a slash at the start or in the middle) match
	// from the .gitignore's folder; the others match a name at any depth.
	anchored bool
}

// parseIgnore reads the rules of a .gitignore file in order.
func parseIgnore(content []byte) []ignoreRule {
	var out []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(content))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// Trailing spaces are dropped unless escaped with a backslash.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		r.segs = strings.Split(line, "/")
		out = append(out, r)
	}
	return out
}

// match reports whether the rule matches rel, a path relative to the
// .gitignore's folder (forward slashes); isDir says rel is a folder.
func (r ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if !r.anchored {
		return globSeg(r.segs[0], path.Base(rel))
	}
	return globSegs(r.segs, strings.Split(rel, "/"))
}

// globSegs matches path segments against pattern segments, "**" standing
// for any number of segments (none included).
func globSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				// "dir/**" matches what is inside dir, not dir itself.
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if globSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !globSeg(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func globSeg(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}
