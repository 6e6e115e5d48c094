// Package vibehome is where vibe keeps its files: VIBE_HOME (default
// ~/.vibe-science) and the paths under it. It imports nothing but the
// runtime, so the per-event hook binaries (internal/relay),
// which must start like an empty Go program, find the worker's socket by
// the same rule as everything else; config re-exports it.
package vibehome

import "runtime"

// Paths are vibe's files under VIBE_HOME.
type Paths struct {
	Home     string
	DB       string
	Logs     string
	Models   string
	Socket   string
	PIDFile  string
	LockFile string
	Settings string
	// Spool holds records the database refused (store.Spool), replayed by
	// the next event that reaches the database.
	Spool string
}

// Resolve computes the paths from the environment: VIBE_HOME, else
// $HOME/.vibe-science (%USERPROFILE% on Windows); VIBE_DB overrides the
// database file.
func Resolve(getenv func(string) string) Paths {
	home := Home(getenv)
	db := getenv("VIBE_DB")
	if db == "" {
		db = join(home, "db", "vibe-science.db")
	}
	return Paths{
		Home:     home,
		DB:       db,
		Logs:     join(home, "logs"),
		Models:   join(home, "models"),
		Socket:   join(home, socketName),
		PIDFile:  join(home, "worker.pid"),
		LockFile: join(home, "worker.lock"),
		Settings: join(home, "config.json"),
		Spool:    join(home, "spool.jsonl"),
	}
}

// Home is VIBE_HOME, else $HOME/.vibe-science (%USERPROFILE% on Windows).
func Home(getenv func(string) string) string {
	if home := getenv("VIBE_HOME"); home != "" {
		return home
	}
	h := getenv("HOME")
	if h == "" && runtime.GOOS == "windows" {
		h = getenv("USERPROFILE")
	}
	return join(h, ".vibe-science")
}

// Socket is Resolve(getenv).Socket alone, for the hook binaries (each
// string Resolve builds is an allocation at their start-up).
func Socket(getenv func(string) string) string { return join(Home(getenv), socketName) }

const socketName = "worker.sock"

// join appends names to dir with the system's separator (path/filepath
// would link the os package, which costs a hook binary half a millisecond
// of start-up). An empty dir gives a relative path, as filepath.Join does.
func join(dir string, names ...string) string {
	sep := "/"
	if runtime.GOOS == "windows" {
		sep = `\`
	}
	out := dir
	for _, n := range names {
		switch {
		case out == "":
			out = n
		case out[len(out)-1] == sep[0] || out[len(out)-1] == '/':
			out += n
		default:
			out += sep + n
		}
	}
	return out
}

// OptedIn is the rule of where vibe acts: the project rooted at root (an
// absolute, clean path) takes part when root or a folder above it holds a
// .vibe-science folder (`vibe init` makes it), except vibe's own home
// (home, VIBE_HOME) and a .vibe-science folder holding a db folder (a home
// left behind when VIBE_HOME moved), or every project under the user's
// home folder would be enforced. isDir stats a path; project.OptedIn and
// the hook clients (internal/relay) pass their own.
func OptedIn(root, home string, isDir func(string) bool) bool {
	if root == "" {
		return false
	}
	for dir := root; ; {
		p := join(dir, ".vibe-science")
		if p != home && isDir(p) && !isDir(join(p, "db")) {
			return true
		}
		parent := parentDir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// parentDir is the folder holding dir ("/" for "/a", "C:\" for "C:\a");
// dir itself at the top.
func parentDir(dir string) string {
	i := len(dir) - 1
	for i > 0 && dir[i] != '/' && !(runtime.GOOS == "windows" && dir[i] == '\\') {
		i--
	}
	switch {
	case i <= 0:
		if len(dir) > 0 && dir[0] == '/' {
			return "/"
		}
		return dir
	case runtime.GOOS == "windows" && i == 2 && dir[1] == ':':
		return dir[:3]
	}
	return dir[:i]
}
