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
