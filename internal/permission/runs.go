package permission

import (
	"path/filepath"
	"slices"
)

// Run is one simple command a shell call runs, as the analysis sees it
// before it runs: what reproducibility capture (internal/lineage) reads to
// tell a script run from a command that only echoes, copies or catenates.
type Run struct {
	// Argv is the command's words after expansion, "\x00" for a word known
	// only when it runs. Wrappers (env, timeout, nohup, uv run, conda run,
	// xargs …) appear as runs of their own, followed by the command they run.
	Argv []string
	// Cwd is the folder it runs in (absolute, the platform's separators),
	// "" when a cd the analysis could not follow came before it.
	Cwd string
	// Stdin is the program text it reads on standard input when the
	// command spells it (a heredoc or a here-string), "" otherwise.
	Stdin string
	// StdinFile is the file redirected to its standard input (< FILE),
	// as written, "" for none.
	StdinFile string
}

func runOf(call []string, st *shellState, in stdinSrc) Run {
	r := Run{Argv: slices.Clone(call)}
	if st.cwd != "" {
		r.Cwd = filepath.FromSlash(st.cwd)
	}
	if in.known {
		r.Stdin = in.text
	}
	r.StdinFile = in.file
	return r
}

// Runs lists the simple commands a Bash call runs, in the order the
// analysis met them (nested shells, heredoc shells, wrappers, find -exec
// and function bodies included), and whether the command could not be
// analysed whole (it did not parse, or it was too long or too deep). Other
// tools run no shell: nil.
func Runs(req Request) (runs []Run, unparsed bool) {
	if req.ToolName != "Bash" {
		return nil, false
	}
	root := resolvedRoot(req.ProjectRoot)
	cwd := requestCwd(req, root)
	eff := collect(req, root, cwd, homeDir())
	return eff.runs, eff.unparsed
}
