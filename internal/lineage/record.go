package lineage

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"time"
)

// Writer says who wrote a version of a result file.
type Writer string

// The writers.
const (
	// Computation: a script, a module, inline code or a pipeline ran and
	// wrote it.
	Computation Writer = "computation"
	// Hand: the agent's Write or Edit, or a shell command that only
	// echoes, edits text or spells out the values it writes.
	Hand Writer = "hand"
	// Unknown: a copy, a program vibe cannot tell apart from an analysis,
	// a change made outside the call. Never a reason to block.
	Unknown Writer = "unknown"
)

// Record is the lineage of one version of a result file: the row the
// hooks keep and the line of the project's mirror.
type Record struct {
	// Path is the file, project-relative with forward slashes.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Writer Writer `json:"writer"`
	// By says in a few words what wrote it: "Write", "Bash: sed",
	// "python3 analysis/train.py".
	By        string    `json:"by"`
	Tool      string    `json:"tool"`
	At        time.Time `json:"at"`
	Session   string    `json:"session,omitempty"`
	ToolUseID string    `json:"tool_use_id,omitempty"`
	// Command is the shell command of the call (secrets scrubbed).
	Command string `json:"command,omitempty"`
	// Cwd is the folder the command ran from, project-relative ("." for
	// the root).
	Cwd string `json:"cwd,omitempty"`
	// Program, Argv, Script, Module and Inline are the computation's run
	// (a command may run several; this one wrote the result).
	Program string   `json:"program,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	Script  *File    `json:"script,omitempty"`
	Module  string   `json:"module,omitempty"`
	// Inline is the hash of inline code (-c, -e, a heredoc) the step ran.
	Inline string   `json:"inline_sha256,omitempty"`
	Inputs []File   `json:"inputs,omitempty"`
	Seeds  []string `json:"seeds,omitempty"`
	Env    *Env     `json:"env,omitempty"`
	Git    *Git     `json:"git,omitempty"`
	// Captured says Capture ran (the fields above the writer are filled
	// in as far as they could be).
	Captured bool `json:"captured,omitempty"`
}

// File is a file a record names, with its hash when it was hashed.
type File struct {
	// Path is project-relative with forward slashes, or absolute for a
	// file outside the project.
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"` // "" when it was too large to hash
	Size   int64  `json:"size"`
}

// Env is the environment a computation ran in.
type Env struct {
	// Files are the lock and environment files of the project
	// (requirements*.txt, uv.lock, environment.yml, renv.lock …).
	Files []File `json:"files,omitempty"`
	// Interpreter is the program that ran the step, as found on PATH or
	// in the project's virtual environment, and Version what it says of
	// itself.
	Interpreter string `json:"interpreter,omitempty"`
	Version     string `json:"version,omitempty"`
	// Freeze is the hash of the package list of the interpreter's
	// environment (pip freeze, R's installed packages), taken once per
	// environment; the list itself is in the mirror.
	Freeze string `json:"freeze_sha256,omitempty"`
	// Packages counts the packages in the freeze.
	Packages int `json:"packages,omitempty"`
}

// Git is the commit the project was at.
type Git struct {
	Commit string `json:"commit"`
	Branch string `json:"branch,omitempty"`
	// Dirty says the tree had uncommitted changes; nil when not known
	// (git could not be run).
	Dirty *bool `json:"dirty,omitempty"`
	// Changed lists the first uncommitted paths.
	Changed []string `json:"changed,omitempty"`
}

// Row is what the gates need of a record: whose, which content, when.
type Row struct {
	Path   string
	SHA256 string
	Writer Writer
	By     string
	At     time.Time
}

// Origin is how a content came to be, from the records of its hash.
type Origin struct {
	Writer Writer
	// Row is the record that decided it: the newest computation that
	// produced the content, else the newest hand write of it.
	Row Row
}

// Decide says how a content was written from the rows recorded for its
// hash (any path: a copy keeps its content's origin). A content any
// computation produced is computed — a version written by hand and later
// produced again by a script is fine again; a content only hands wrote is
// hand-written; anything else is unknown.
func Decide(rows []Row) Origin {
	var comp, hand *Row
	for i := range rows {
		r := &rows[i]
		switch r.Writer {
		case Computation:
			if comp == nil || r.At.After(comp.At) {
				comp = r
			}
		case Hand:
			if hand == nil || r.At.After(hand.At) {
				hand = r
			}
		}
	}
	switch {
	case comp != nil:
		return Origin{Writer: Computation, Row: *comp}
	case hand != nil:
		return Origin{Writer: Hand, Row: *hand}
	}
	return Origin{Writer: Unknown}
}

// MaxHashBytes bounds the size of a file Capture hashes; a larger one is
// recorded by its size.
const MaxHashBytes = 64 << 20

// HashFile hashes a regular file of at most limit bytes; a larger one gets
// its size and no hash. ok is false when it is not a regular file.
func HashFile(path string, limit int64) (sum string, size int64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "", 0, false
	}
	if info.Size() > limit {
		return "", info.Size(), true
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, false
	}
	return hex.EncodeToString(h.Sum(nil)), n, true
}

// Sum is the SHA-256 of b in hex.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
