package lineage

import (
	"github.com/vibe-science/vibe/internal/lazyre"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Run is one simple command of a shell call, as internal/permission's Runs
// gives it: its words ("\x00" for one known only when it runs), the
// folder it runs in, the program a heredoc feeds it and the file
// redirected to its standard input.
type Run struct {
	Argv      []string
	Cwd       string
	Stdin     string
	StdinFile string
}

// Call is the tool call after which a result file was seen changed.
type Call struct {
	Tool string
	// Command is a shell call's command; Runs its simple commands and
	// Unparsed whether it could not be analysed whole.
	Command  string
	Runs     []Run
	Unparsed bool
	// Root is the project root, Cwd the call's folder (absolute).
	Root, Cwd string
	// During says the file changed during the call (the call named it,
	// or its time is the call's); false for a change made before it.
	During bool
	// Since is when the call began, as far as file times tell: a file
	// modified since is an output of the call, not an input.
	Since time.Time
}

// Step is the run that computed a result.
type Step struct {
	// Program is the program's base name: python3, Rscript, make.
	Program string
	Argv    []string
	Cwd     string // absolute
	// Script is the file it runs (absolute): a script, a notebook, a
	// Makefile or a Snakefile; "" for a module or inline code.
	Script string
	// Module is a Python module run with -m.
	Module string
	// Inline is the code given on the command line or fed on stdin.
	Inline string
}

// Class is who wrote one version of a result file, as the call tells it.
type Class struct {
	Writer Writer
	// By says in a few words what wrote it (Record.By).
	By   string
	Step *Step
}

// Classify says who wrote a result file whose content (after the call) is
// content: a hand for the agent's Write, Edit and NotebookEdit and for a
// shell command that spells out the values it writes or only runs text
// tools (echo, printf, a heredoc fed to cat, sed, awk, jq …); a
// computation for a shell command that runs a script, a module, inline
// code or a pipeline (python, Rscript, julia, make, snakemake …, through
// uv run, conda run and other wrappers); unknown for copies, programs vibe
// does not know, MCP tools and changes made before the call. A script
// that reads no file and holds every value it wrote is a hand too: it
// ran no analysis.
func Classify(c Call, content []byte) Class {
	if !c.During {
		return Class{Writer: Unknown, By: "a change made before the call"}
	}
	switch c.Tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return Class{Writer: Hand, By: c.Tool}
	case "Bash":
	default:
		return Class{Writer: Unknown, By: c.Tool}
	}
	var steps []*Step
	var text, unknown []string
	// spelled is the text the command types in: every run's words and
	// heredoc but a script's or module's arguments (train.py --alpha 0.05
	// may write its alpha back; that is no value typed as a result).
	var spelled []string
	for _, r := range c.Runs {
		k, st := c.kindOf(r)
		switch k {
		case kindStep:
			steps = append(steps, st)
			if st.Script != "" || st.Module != "" {
				continue
			}
		case kindText:
			text = appendOnce(text, progName(r.Argv))
		case kindCopy, kindUnknown:
			unknown = appendOnce(unknown, progName(r.Argv))
		}
		spelled = append(spelled, strings.Join(r.Argv, " "), r.Stdin)
	}
	if len(c.Runs) == 0 {
		spelled = []string{c.Command}
	}
	if spelledOut(content, spelled...) {
		return Class{Writer: Hand, By: "Bash: a command that spells out the values it writes"}
	}
	if len(steps) > 0 {
		st := steps[0]
		for _, s := range steps {
			if s.Script != "" || s.Module != "" {
				st = s
				break
			}
		}
		if st.Script != "" && c.typed(st, content) {
			return Class{Writer: Hand, By: "Bash: " + c.describe(st) + ", which reads no file and spells out every value it wrote"}
		}
		return Class{Writer: Computation, By: c.describe(st), Step: st}
	}
	if len(unknown) > 0 || c.Unparsed {
		by := "Bash"
		if len(unknown) > 0 {
			by += ": " + strings.Join(unknown, ", ")
		}
		return Class{Writer: Unknown, By: by}
	}
	if len(text) > 0 {
		return Class{Writer: Hand, By: "Bash: " + strings.Join(text, ", ")}
	}
	return Class{Writer: Unknown, By: "Bash"}
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// describe names a step as a recipe would: the program and what it runs,
// paths relative to the project.
func (c Call) describe(st *Step) string {
	switch {
	case st.Module != "":
		return st.Program + " -m " + st.Module
	case st.Script != "" && filepath.Base(st.Script) == st.Program:
		return relTo(c.Root, st.Script) // ./run.sh
	case st.Script != "":
		return st.Program + " " + relTo(c.Root, st.Script)
	case st.Inline != "":
		return st.Program + " with inline code"
	}
	return st.Program
}

// typed reports whether the step's script reads no file the project
// holds and spells out every significant value of content: a script that
// only prints what was typed into it.
func (c Call) typed(st *Step, content []byte) bool {
	raw, ok := readCapped(st.Script, maxScriptBytes)
	if !ok || !spelledOut(content, string(raw), c.Command) {
		return false
	}
	return len(c.namedInputs(st, string(raw))) == 0
}

// kind is what a run is for the writer's class.
type kind int

const (
	kindNeutral kind = iota // cd, mkdir, pip install: writes no result
	kindWrapper             // env, timeout, uv run: the run it wraps follows
	kindText                // echo, sed, jq: text typed or edited by hand
	kindCopy                // cp, curl, git: the content came from elsewhere
	kindStep                // a computation
	kindUnknown             // a program vibe does not know
)

var (
	wrappers = set("env", "timeout", "nohup", "setsid", "nice", "ionice", "time", "sudo", "doas", "xargs", "parallel",
		"stdbuf", "taskset", "numactl", "chronic", "exec", "command", "builtin", "eval", "watch",
		"uv", "uvx", "poetry", "conda", "mamba", "micromamba", "pipenv", "pixi", "hatch", "pdm", "rye", "direnv")
	texts  = set("echo", "printf", "sed", "gsed", "awk", "gawk", "mawk", "nawk", "jq", "yq", "tr", "ed", "ex", "envsubst")
	copies = set("cp", "mv", "ln", "install", "rsync", "scp", "sftp", "rclone", "git", "tar", "unzip", "gunzip", "gzip",
		"zcat", "bzip2", "bunzip2", "xz", "unxz", "zstd", "7z", "curl", "wget", "aria2c", "dd", "cat", "tac", "tee",
		"head", "tail", "sort", "uniq", "cut", "paste", "column", "nl", "fold", "grep", "egrep", "fgrep", "rg", "aws",
		"gsutil", "gcloud", "az", "huggingface-cli", "hf", "sponge", "iconv", "base64", "split", "csplit", "join",
		"comm", "diff", "patch", "kaggle", "datalad", "git-annex", "scp", "s3cmd")
	neutral = set("cd", "pushd", "popd", "export", "set", "unset", "true", "false", ":", "test", "[", "[[", "mkdir",
		"touch", "rm", "rmdir", "ls", "pwd", "date", "sleep", "which", "type", "wc", "chmod", "chown", "read", "mktemp",
		"basename", "dirname", "realpath", "readlink", "stat", "du", "df", "file", "nproc", "hostname", "whoami", "id",
		"uname", "source", ".", "alias", "pip", "pip3", "brew", "apt", "apt-get", "kill", "wait", "ps", "pgrep", "jobs",
		"trap", "shopt", "local", "declare", "typeset", "let", "exit", "return", "printenv", "md5sum", "sha256sum",
		"sha1sum", "shasum", "clear", "less", "more", "man", "nvidia-smi", "free", "top", "tree", "find", "lscpu",
		"activate", "deactivate", "module", "ml", "wc", "sync", "umask", "ulimit", "hash", "shift", "getopts")
	// launchers run a script given as one of their operands.
	launchers = set("torchrun", "accelerate", "deepspeed", "horovodrun", "mpirun", "mpiexec", "srun", "python-m-torch")
	// pythonTools are modules that run no analysis of their own.
	pythonTools = set("pip", "venv", "virtualenv", "ensurepip", "http.server", "pydoc", "site", "build", "twine", "black",
		"ruff", "isort", "mypy", "flake8", "pylint", "pip_audit", "pipx", "zipfile", "tarfile", "compileall", "py_compile",
		"timeit", "cProfile", "pstats", "this", "webbrowser", "pre_commit", "pytest", "unittest", "doctest", "tox", "nox")
	// pythonCopies rewrite a file's text without computing (json.tool).
	pythonCopies = set("json.tool", "gzip", "base64", "shutil")
	scriptExt    = lazyre.New(`(?i)\.(py|r|jl|sh|bash|zsh|js|mjs|ts|pl|rb|m|do|sas|ipynb|rmd|qmd|nf|smk)$`)
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// progName is a run's program as a message names it.
func progName(argv []string) string {
	if len(argv) == 0 || argv[0] == "\x00" {
		return "a program known only when it runs"
	}
	return filepath.Base(argv[0])
}

var pythonName = lazyre.New(`^(python|python[23](\.[0-9]+)?|pypy3?|ipython3?)$`)

// kindOf says what one run is and, for a computation, its step.
func (c Call) kindOf(r Run) (kind, *Step) {
	if len(r.Argv) == 0 {
		return kindNeutral, nil
	}
	if r.Argv[0] == "\x00" {
		return kindUnknown, nil
	}
	name := filepath.Base(r.Argv[0])
	lower := strings.ToLower(name)
	cwd := r.Cwd
	if cwd == "" {
		cwd = c.Cwd
	}
	st := &Step{Program: name, Argv: r.Argv, Cwd: cwd}
	args := r.Argv[1:]
	switch {
	case pythonName.MatchString(lower):
		return c.python(st, r, args)
	case lower == "rscript":
		return c.interp(st, r, args, set("-e"), set("--default-packages"))
	case lower == "r":
		return c.rCommand(st, r, args)
	case lower == "julia":
		return c.interp(st, r, args, set("-e", "-E", "--eval", "--print"), set("-t", "--threads", "-p", "--procs", "-J", "--sysimage", "-O", "--project", "-C", "--cpu-target"))
	case lower == "node" || lower == "deno" || lower == "bun":
		return c.interp(st, r, args, set("-e", "--eval", "-p", "--print"), set("-r", "--require"))
	case lower == "perl":
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "pi") {
				return kindText, nil // perl -pi -e 's/…/…/': a text edit
			}
		}
		return c.interp(st, r, args, set("-e", "-E"), set("-I", "-M"))
	case lower == "ruby":
		return c.interp(st, r, args, set("-e"), set("-I", "-r"))
	case lower == "octave":
		return c.interp(st, r, args, set("--eval"), nil)
	case lower == "matlab":
		return c.interp(st, r, args, set("-batch", "-r"), set("-sd", "-logfile"))
	case lower == "bash" || lower == "sh" || lower == "zsh" || lower == "dash" || lower == "ksh":
		for _, a := range args {
			if a == "-c" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
				return kindWrapper, nil // the script it runs is analysed as runs of its own
			}
		}
		return c.interp(st, r, args, nil, set("-o", "-O", "--rcfile", "--init-file"))
	case lower == "make" || lower == "gmake":
		return c.makeStep(st, args)
	case lower == "snakemake":
		st.Script = firstExisting(optValue(args, "-s", "--snakefile"), cwd, filepath.Join(cwd, "Snakefile"), filepath.Join(cwd, "workflow", "Snakefile"))
		return kindStep, st
	case lower == "nextflow":
		if ops := operands(args, nil); len(ops) >= 2 && ops[0] == "run" {
			st.Script = firstExisting(ops[1], cwd)
			return kindStep, st
		}
		return kindUnknown, nil
	case lower == "dvc":
		if ops := operands(args, nil); len(ops) > 0 && (ops[0] == "repro" || len(ops) > 1 && ops[0] == "exp" && ops[1] == "run") {
			st.Script = firstExisting("", cwd, filepath.Join(cwd, "dvc.yaml"))
			return kindStep, st
		}
		return kindCopy, nil
	case lower == "papermill":
		if ops := operands(args, set("-p", "--parameters", "-k", "--kernel", "--cwd")); len(ops) > 0 {
			st.Script = firstExisting(ops[0], cwd)
		}
		return kindStep, st
	case lower == "jupyter":
		return c.jupyter(st, args)
	case lower == "quarto":
		if ops := operands(args, nil); len(ops) >= 2 && ops[0] == "render" {
			st.Script = firstExisting(ops[1], cwd)
			return kindStep, st
		}
		return kindUnknown, nil
	case launchers[lower]:
		if lower == "accelerate" && (len(args) == 0 || args[0] != "launch") {
			return kindNeutral, nil // accelerate config, env
		}
		for i, a := range args {
			if pythonName.MatchString(strings.ToLower(filepath.Base(a))) {
				// mpirun -n 4 python train.py: the interpreter's words follow.
				st.Program = filepath.Base(a)
				return c.python(st, Run{}, args[i+1:])
			}
			if scriptExt.MatchString(a) {
				if p := firstExisting(a, cwd); p != "" {
					st.Script = p
					return kindStep, st
				}
			}
		}
		return kindStep, st
	case wrappers[lower]:
		return kindWrapper, nil
	case lower == "cat" || lower == "tee":
		if r.Stdin != "" && len(operands(args, nil)) == 0 || lower == "tee" && r.Stdin != "" {
			return kindText, nil // cat <<EOF > file: text typed into the command
		}
		return kindCopy, nil
	case texts[lower]:
		return kindText, nil
	case copies[lower]:
		return kindCopy, nil
	case neutral[lower]:
		return kindNeutral, nil
	}
	if strings.Contains(r.Argv[0], "/") {
		// A program of the project's own (./run.sh, bin/fit): its code ran.
		if p := firstExisting(r.Argv[0], cwd); p != "" && c.inProject(p) {
			st.Script = p
			return kindStep, st
		}
	}
	return kindUnknown, nil
}

// python reads a Python interpreter's words: -c code, -m module, a script
// or the program on stdin.
func (c Call) python(st *Step, r Run, args []string) (kind, *Step) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" && i+1 < len(args):
			st.Inline = args[i+1]
			return kindStep, st
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			st.Inline = a[2:]
			return kindStep, st
		case a == "-m" && i+1 < len(args):
			mod := args[i+1]
			rest := args[i+2:]
			switch {
			case pythonTools[mod] || strings.HasPrefix(mod, "pip"):
				return kindNeutral, nil
			case pythonCopies[mod]:
				return kindCopy, nil
			case mod == "jupyter" || mod == "nbconvert":
				return c.jupyter(st, append([]string{"nbconvert"}, rest...))
			case mod == "papermill":
				if ops := operands(rest, set("-p", "--parameters", "-k", "--kernel", "--cwd")); len(ops) > 0 {
					st.Script = firstExisting(ops[0], st.Cwd)
				}
				return kindStep, st
			case mod == "torch.distributed.run" || mod == "torch.distributed.launch":
				for _, x := range rest {
					if strings.HasSuffix(strings.ToLower(x), ".py") {
						st.Script = firstExisting(x, st.Cwd)
						break
					}
				}
				return kindStep, st
			}
			st.Module = mod
			st.Script = c.moduleFile(mod, st.Cwd)
			return kindStep, st
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++
		case a == "-":
			return c.stdinStep(st, r)
		case strings.HasPrefix(a, "-"):
		default:
			st.Script = firstExisting(a, st.Cwd)
			if st.Script == "" {
				return kindUnknown, nil // a script vibe cannot find
			}
			return kindStep, st
		}
	}
	if a := strings.Join(args, " "); strings.Contains(a, "--version") || a == "-V" {
		return kindNeutral, nil
	}
	return c.stdinStep(st, r)
}

// stdinStep is an interpreter reading its program from stdin: a heredoc
// (inline code), a file (a script), or a pipe (a computation of code
// vibe cannot see).
func (c Call) stdinStep(st *Step, r Run) (kind, *Step) {
	switch {
	case r.Stdin != "":
		st.Inline = r.Stdin
	case r.StdinFile != "":
		st.Script = firstExisting(r.StdinFile, st.Cwd)
	}
	return kindStep, st
}

// interp reads an interpreter that takes inline code with one of inline's
// options and a script as its first operand; valued are its options that
// take a value.
func (c Call) interp(st *Step, r Run, args []string, inline, valued map[string]bool) (kind, *Step) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, eq := strings.Cut(a, "=")
		switch {
		case inline[a] && i+1 < len(args):
			st.Inline = args[i+1]
			return kindStep, st
		case valued[name] && !eq:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			st.Script = firstExisting(a, st.Cwd)
			if st.Script == "" {
				return kindUnknown, nil
			}
			return kindStep, st
		}
	}
	if strings.Contains(strings.Join(args, " "), "--version") {
		return kindNeutral, nil
	}
	if r.Stdin == "" && r.StdinFile == "" {
		return kindUnknown, nil // an interpreter with no program vibe can see
	}
	return c.stdinStep(st, r)
}

// rCommand reads R: R -f FILE, R --file=FILE, R CMD BATCH FILE, R -e
// EXPR, R < FILE.
func (c Call) rCommand(st *Step, r Run, args []string) (kind, *Step) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" && i+1 < len(args):
			st.Script = firstExisting(args[i+1], st.Cwd)
			return kindStep, st
		case strings.HasPrefix(a, "--file="):
			st.Script = firstExisting(strings.TrimPrefix(a, "--file="), st.Cwd)
			return kindStep, st
		case a == "-e" && i+1 < len(args):
			st.Inline = args[i+1]
			return kindStep, st
		case a == "CMD" && i+2 < len(args) && args[i+1] == "BATCH":
			for _, x := range args[i+2:] {
				if !strings.HasPrefix(x, "-") {
					st.Script = firstExisting(x, st.Cwd)
					return kindStep, st
				}
			}
		case a == "CMD":
			return kindNeutral, nil // R CMD INSTALL, check, build
		}
	}
	if r.Stdin == "" && r.StdinFile == "" {
		return kindUnknown, nil
	}
	return c.stdinStep(st, r)
}

func (c Call) makeStep(st *Step, args []string) (kind, *Step) {
	dir := st.Cwd
	if d := optValue(args, "-C", "--directory"); d != "" {
		dir = joinUnder(st.Cwd, d)
		st.Cwd = dir
	}
	st.Script = firstExisting(optValue(args, "-f", "--file", "--makefile"), dir,
		filepath.Join(dir, "GNUmakefile"), filepath.Join(dir, "makefile"), filepath.Join(dir, "Makefile"))
	return kindStep, st
}

// jupyter: nbconvert --execute and execute run a notebook; other
// subcommands convert or serve.
func (c Call) jupyter(st *Step, args []string) (kind, *Step) {
	ops := operands(args, set("--to", "--output", "--output-dir", "--ExecutePreprocessor.timeout", "--kernel"))
	execute := false
	for _, a := range args {
		execute = execute || a == "--execute" || strings.HasPrefix(a, "--ExecutePreprocessor.enabled")
	}
	if len(ops) >= 2 && (ops[0] == "execute" || ops[0] == "nbconvert" && execute) {
		st.Script = firstExisting(ops[1], st.Cwd)
		return kindStep, st
	}
	if len(ops) > 0 && ops[0] == "nbconvert" {
		return kindCopy, nil
	}
	return kindNeutral, nil
}

// moduleFile finds a Python module's file under cwd, the root or the
// root's src/: pkg/mod.py, or pkg/mod/__main__.py.
func (c Call) moduleFile(mod, cwd string) string {
	rel := filepath.FromSlash(strings.ReplaceAll(mod, ".", "/"))
	for _, base := range []string{cwd, c.Root, filepath.Join(c.Root, "src")} {
		if base == "" {
			continue
		}
		for _, p := range []string{filepath.Join(base, rel+".py"), filepath.Join(base, rel, "__main__.py")} {
			if isFile(p) {
				return p
			}
		}
	}
	return ""
}

// operands are the words that are not options, skipping the values of
// valued options.
func operands(args []string, valued map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if valued[a] {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// optValue is the value of the first of names in args (-f FILE,
// --file=FILE, -fFILE).
func optValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			switch {
			case a == n && i+1 < len(args):
				return args[i+1]
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				return strings.TrimPrefix(a, n+"=")
			case !strings.HasPrefix(n, "--") && len(n) == 2 && strings.HasPrefix(a, n) && len(a) > 2:
				return a[2:]
			}
		}
	}
	return ""
}

// firstExisting is the first of a path named in a command (relative to
// cwd) and the defaults that is a regular file, "" for none.
func firstExisting(named, cwd string, defaults ...string) string {
	if named != "" && !strings.Contains(named, "\x00") {
		if p := joinUnder(cwd, named); isFile(p) {
			return p
		}
		return ""
	}
	for _, p := range defaults {
		if isFile(p) {
			return p
		}
	}
	return ""
}

func joinUnder(cwd, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) || cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func (c Call) inProject(p string) bool {
	return c.Root != "" && (p == c.Root || strings.HasPrefix(p, c.Root+string(filepath.Separator)))
}

// relTo is p relative to root with forward slashes, or p itself when it
// lies outside.
func relTo(root, p string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}
