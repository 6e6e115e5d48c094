// Package buildinfo holds the build's one version string, which the hook
// clients, the resident process and the CLI all report and compare, so a
// resident process of another build never runs a hook (version skew). It
// imports only the runtime (the per-event hook clients link it, and must
// not link os, fmt or reflect: see internal/relay), so the VCS stamp Go
// records in every binary is read through runtime/debug.modinfo's symbol
// rather than through package runtime/debug.
package buildinfo

import _ "unsafe" // go:linkname

// Version is this build's version. The Makefile sets it with -ldflags
// "-X github.com/vibe-science/vibe/internal/buildinfo.Version=…" to `git
// describe` plus a hash of the uncommitted changes, so every binary of one
// `make build` shares it and any change to the sources gives a new one.
// Without ldflags it falls back to the VCS stamp of the binary
// ("devel-<revision>[-dirty]", or "devel" where there is none, as in
// tests); two builds of one dirty checkout then share it, and the hook
// clients tell them apart by the daemon file's identity instead
// (internal/relay) while the resident process restarts itself when its
// executable is replaced (internal/worker).
var Version string

// Devel prefixes a version that no -ldflags set.
const Devel = "devel"

func init() {
	if Version == "" {
		Version = fromModinfo(modinfo())
	}
}

// modinfo is the build information the linker embeds, in the text form
// runtime/debug.ParseBuildInfo reads (the runtime provides the symbol).
//
//go:linkname modinfo runtime/debug.modinfo
func modinfo() string

// fromModinfo is the fallback version of the build information info.
func fromModinfo(info string) string {
	rev := setting(info, "vcs.revision")
	if rev == "" {
		return Devel
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := Devel + "-" + rev
	if setting(info, "vcs.modified") == "true" {
		v += "-dirty"
	}
	return v
}

// setting finds the value of "build\t<key>=<value>\n" in info.
func setting(info, key string) string {
	pat := "build\t" + key + "="
	for len(info) > 0 {
		line := info
		if i := indexByte(info, '\n'); i >= 0 {
			line, info = info[:i], info[i+1:]
		} else {
			info = ""
		}
		if len(line) > len(pat) && line[:len(pat)] == pat {
			return line[len(pat):]
		}
	}
	return ""
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
