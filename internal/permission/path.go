package permission

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// maxLinkHops bounds symlink resolution the way the kernel does (ELOOP).
const maxLinkHops = 40

// toSlash turns Windows separators into '/', whatever the host: a hook on
// Linux may still be handed "C:\proj\CLAIM-LEDGER.md" by a Windows client,
// and a backslash is never a useful part of a protected name.
func toSlash(p string) string {
	if strings.IndexByte(p, '\\') < 0 {
		return p
	}
	return strings.ReplaceAll(p, "\\", "/")
}

// volume returns the drive prefix ("C:") of a slash path, or "".
func volume(p string) string {
	if len(p) >= 2 && p[1] == ':' && (len(p) == 2 || p[2] == '/') {
		if c := p[0] | 0x20; 'a' <= c && c <= 'z' {
			return p[:2]
		}
	}
	return ""
}

// isAbs reports whether a slash path is absolute: rooted, with a drive
// letter, or a UNC path.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || volume(p) != ""
}

// hostPath reports whether p can be looked up on this machine's file system:
// drive-letter paths only on Windows, rooted paths only elsewhere.
func hostPath(p string) bool {
	if runtime.GOOS == "windows" {
		return volume(p) != ""
	}
	return strings.HasPrefix(p, "/")
}

// join makes p absolute against dir (both slash paths). An absolute p wins.
func join(dir, p string) string {
	p = toSlash(p)
	if isAbs(p) {
		return p
	}
	if strings.HasSuffix(dir, "/") {
		return dir + p
	}
	return dir + "/" + p
}

// resolve makes an absolute slash path physical: "." and ".." are applied
// after the symlinks before them (as the kernel does), every existing symlink
// is followed (also a dangling one, because writing through it creates its
// target), and once a component does not exist the rest is taken literally.
// links holds symlinks a shell command creates before it writes, so
// `ln -s CLAIM-LEDGER.md x && echo >> x` is seen through. The result has no
// trailing slash except for the root.
func resolve(abs string, links map[string]string) string {
	return resolveUnder(abs, "", "", links)
}

// resolveUnder is resolve with a known prefix: when abs starts with the
// folder literal, whose physical path is phys (the project root, resolved
// once), the walk starts there instead of checking every component above
// it again.
func resolveUnder(abs, literal, phys string, links map[string]string) string {
	vol := volume(abs)
	rest := abs[len(vol):]
	useFS := hostPath(abs)
	out := ""
	if literal != "" && phys != "" && strings.HasPrefix(abs, literal) &&
		(len(abs) == len(literal) || abs[len(literal)] == '/') && volume(phys) == vol {
		rest = abs[len(literal):]
		out = strings.TrimSuffix(phys[len(vol):], "/")
	}
	// pending is a stack of components still to walk; the next one is last.
	pending := pushComponents(nil, rest)
	missing := !useFS
	hops := 0
	for len(pending) > 0 {
		c := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		switch c {
		case "", ".":
			continue
		case "..":
			if i := strings.LastIndexByte(out, '/'); i >= 0 {
				out = out[:i]
			}
			continue
		}
		next := out + "/" + c
		if hops < maxLinkHops {
			if target, ok := links[vol+next]; ok {
				hops++
				vol, out, pending = splice(vol, out, pending, target)
				continue
			}
		}
		if !missing {
			fi, err := os.Lstat(filepath.FromSlash(vol + next))
			switch {
			case err != nil:
				missing = true
			case fi.Mode()&os.ModeSymlink != 0 && hops < maxLinkHops:
				if target, err := os.Readlink(filepath.FromSlash(vol + next)); err == nil {
					hops++
					vol, out, pending = splice(vol, out, pending, target)
					continue
				}
			}
		}
		out = next
	}
	if out == "" {
		out = "/"
	}
	return vol + out
}

// pushComponents pushes the components of p onto the stack so that the
// first component is popped first.
func pushComponents(stack []string, p string) []string {
	parts := strings.Split(p, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		stack = append(stack, parts[i])
	}
	return stack
}

// splice replaces the symlink just reached by its target.
func splice(vol, out string, pending []string, target string) (string, string, []string) {
	target = toSlash(target)
	if isAbs(target) {
		if v := volume(target); v != "" {
			vol = v
		}
		return vol, "", pushComponents(pending, target[len(volume(target)):])
	}
	return vol, out, pushComponents(pending, target)
}

// caseInsensitiveFS reports whether paths on this host compare without case
// (macOS and Windows defaults), or the path carries a drive letter.
func caseInsensitiveFS(p string) bool {
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows" || volume(p) != ""
}

// relativeTo returns p relative to root (both resolved slash paths) and
// whether p lies inside root. The root itself is ".".
func relativeTo(root, p string) (string, bool) {
	if root == "/" {
		if p == "/" {
			return ".", true
		}
		return strings.TrimPrefix(p, "/"), true
	}
	ci := caseInsensitiveFS(root)
	if len(p) == len(root) && (p == root || ci && strings.EqualFold(p, root)) {
		return ".", true
	}
	if len(p) > len(root) && p[len(root)] == '/' {
		head := p[:len(root)]
		if head == root || ci && strings.EqualFold(head, root) {
			return p[len(root)+1:], true
		}
	}
	return p, false
}

// sinks are the targets a redirect may name without writing a file.
func isSink(abs string) bool {
	switch abs {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "NUL", "nul":
		return true
	}
	return strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/self/fd/")
}
