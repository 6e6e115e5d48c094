package permission

import "strings"

// This file is the one place that says what vibe considers a write by a
// program run through Bash. Each entry of writerTable names programs and
// what they write: which operands, which option values, of which kind, and
// which flags make the write recursive or make it happen at all. A program
// whose behaviour does not fit those fields has a small named function
// (run) instead. A program in no entry, and not an interpreter
// (interpreterOf), is opaque: it may write anything (see doc.go for how the
// policy treats that). Shell builtins that change the shell's own state
// (read, printf -v, declare, shopt, hash, ...) are analysed before this
// table, in builtins.go.

// program says what one program writes.
type program struct {
	names []string

	// Parsing: the short options (letters) and long options that take a
	// value, so their values are not mistaken for operands.
	shortVal string
	longVal  []string

	operands operands // which operands are written
	// allOperandsWith: with this long option set, the first operand is a
	// file too (chmod --reference=f OTHER).
	allOperandsWith string
	// skipPrefix: operands with this prefix are not files (vim +42 f).
	skipPrefix string
	// options whose values are written ("o", "output"): a single letter is
	// a short option, a longer name a long one.
	options []string

	kind kind // of what is written
	// treeWith: flags that make the write recursive (rm -r): kindTree.
	treeWith []string
	// onlyWith: the program writes only with one of these flags (yq -i).
	onlyWith []string
	// via names the write in messages; the program's name when empty.
	via string

	// run replaces the fields above for programs with special behaviour.
	run func(a *shellAnalyzer, c invocation)
	// opaque: what the program writes cannot be told (source, a script).
	opaque bool
}

// operands says which operands of a program it writes.
type operands uint8

const (
	noOperands operands = iota
	allOperands
	firstOperand
	secondOperand
	operandsAfterFirst // the first is a mode, an owner or an expression
)

// invocation is one simple command as the table's functions see it.
type invocation struct {
	prog string
	args []word // the arguments, the program name left out
	st   *shellState
	in   stdinSrc
	raw  string // the command's text
}

// readOnlyNames never write files on their own (their redirections are
// handled separately).
var readOnlyNames = []string{
	"ls", "dir", "cat", "head", "tail", "less", "more", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack",
	"file", "stat", "du", "df", "diff", "cmp", "comm", "cut", "tr", "paste", "column", "jq", "echo",
	"printf", "pwd", "true", "false", "test", "[", "[[", "basename", "dirname", "realpath", "readlink",
	"date", "which", "type", "whereis", "hash", "id", "whoami", "uname", "hostname", "printenv", "tree",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum", "b2sum", "cksum", "nl", "fold", "fmt",
	"expand", "unexpand", "rev", "tac", "seq", "sleep", "yes", "zcat", "bzcat", "xzcat", "zgrep", "od",
	"hexdump", "strings", "ps", "free", "uptime", "nproc", "getconf", "locale", "tput", "clear", "set",
	"unset", "exit", "return", "shift", "wait", ":", "read", "trap", "ulimit", "umask", "shopt",
	"getopts", "kill", "jobs", "fg", "bg", "disown", "dirs", "break", "continue", "man", "help", "expr",
	"bc", "numfmt", "cal", "tty", "groups", "pgrep", "alias", "unalias", "history", "mapfile",
	"readarray", "local", "export", "declare", "typeset", "readonly", "let", "join", "look",
	"sum", "lsof",
}

var readOnlyPrograms = setOf(readOnlyNames...)

var shellNames = []string{"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish", "busybox"}

// wrapperNames run another command given as their arguments (wrappers).
var wrapperNames = []string{"exec", "command", "builtin", "nohup", "nice", "time", "timeout", "stdbuf",
	"ionice", "sudo", "doas", "env", "xargs", "chronic", "unbuffer", "caffeinate", "nocorrect", "noglob",
	"watch", "flock", "setsid", "taskset", "strace", "ltrace", "valgrind", "parallel", "screen", "tmux"}

// writerTable lists what each known program writes. Read it as the policy:
// a program missing here may write anything.
func writerTable() []program {
	return []program{
		// Programs that write nothing.
		{names: readOnlyNames},
		{names: []string{"mktemp"}}, // a new file with a random name: nothing existing changes
		// vibe's own CLI writes through its own rules; stopping or replacing
		// its worker is refused as a forbidden command.
		{names: []string{"vibe"}},

		// Files named as operands.
		{names: []string{"tee"}, operands: allOperands},
		{names: []string{"rm", "unlink", "shred", "srm", "trash", "trash-put"}, operands: allOperands, treeWith: []string{"r", "R", "recursive"}},
		{names: []string{"rmdir"}, operands: allOperands, kind: kindDir},
		{names: []string{"touch"}, shortVal: "rdt", longVal: []string{"reference", "date"}, operands: allOperands},
		{names: []string{"truncate"}, shortVal: "sr", longVal: []string{"size", "reference"}, operands: allOperands},
		{names: []string{"fallocate"}, shortVal: "lo", longVal: []string{"length", "offset"}, operands: allOperands},
		{names: []string{"mkdir"}, shortVal: "m", longVal: []string{"mode"}, operands: allOperands, kind: kindDir},
		{names: []string{"mkfifo", "mknod"}, shortVal: "m", longVal: []string{"mode"}, operands: firstOperand},
		// Metadata: the first operand is the mode or owner, unless --reference.
		{names: []string{"chmod", "chown", "chgrp", "chattr", "utime"}, longVal: attrLongVal,
			operands: operandsAfterFirst, allOperandsWith: "reference", treeWith: []string{"R", "recursive"}},
		{names: []string{"chcon"}, shortVal: "urtl", longVal: attrLongVal,
			operands: operandsAfterFirst, allOperandsWith: "reference", treeWith: []string{"R", "recursive"}},
		{names: []string{"setfacl"}, shortVal: "mMxX", longVal: attrLongVal, operands: allOperands, treeWith: []string{"R", "recursive"}},
		{names: []string{"setfattr"}, shortVal: "nvx", longVal: attrLongVal, operands: allOperands, treeWith: []string{"R", "recursive"}},
		{names: []string{"xattr"}, shortVal: "wd", longVal: attrLongVal, operands: allOperands, treeWith: []string{"R", "recursive"}},
		{names: []string{"uniq"}, shortVal: "fsw", longVal: []string{"skip-fields", "skip-chars", "check-chars"}, operands: secondOperand},
		{names: []string{"sqlite3", "duckdb"}, longVal: []string{"cmd", "init", "separator", "newline", "nullvalue"}, operands: firstOperand},
		{names: []string{"zip"}, shortVal: "btnxiO", longVal: []string{"temp-path", "suffixes", "exclude", "include", "output-file"}, operands: firstOperand},
		{names: []string{"vi", "vim", "nvim", "nano", "ed", "ex", "emacs", "pico", "micro", "joe", "mcedit", "red"},
			shortVal: "cSuUiTwWs", operands: allOperands, skipPrefix: "+"},
		{names: []string{"yq"}, longVal: []string{"from-file"}, onlyWith: []string{"i", "inplace"},
			operands: operandsAfterFirst, via: "yq -i"},

		// Files named by an option.
		{names: []string{"sort"}, shortVal: "oSTtk", longVal: []string{"output", "buffer-size", "temporary-directory", "field-separator", "key"},
			options: []string{"o", "output"}, via: "sort -o"},

		// Programs with special behaviour.
		{names: []string{"dd"}, run: (*shellAnalyzer).ddOutput},
		{names: []string{"split", "csplit"}, run: (*shellAnalyzer).splitOutput},
		{names: []string{"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "compress", "uncompress", "pigz"},
			run: (*shellAnalyzer).compress},
		{names: []string{"cp", "mv", "install", "ln", "rsync", "scp"}, run: func(a *shellAnalyzer, c invocation) { a.copyLike(c.prog, c.args, c.st) }},
		{names: []string{"sed", "gsed"}, run: func(a *shellAnalyzer, c invocation) { a.sed(c.args, c.st) }},
		{names: []string{"awk", "gawk", "mawk", "nawk"}, run: func(a *shellAnalyzer, c invocation) { a.awk(c.args, c.st) }},
		{names: []string{"tar", "bsdtar", "gtar"}, run: func(a *shellAnalyzer, c invocation) { a.tar(c.args, c.st) }},
		{names: []string{"unzip", "7z", "7za", "7zr", "unrar"}, run: func(a *shellAnalyzer, c invocation) { a.unzip(c.prog, c.args, c.st) }},
		{names: []string{"curl"}, run: func(a *shellAnalyzer, c invocation) { a.curl(c.args, c.st) }},
		{names: []string{"wget"}, run: func(a *shellAnalyzer, c invocation) { a.wget(c.args, c.st) }},
		{names: []string{"git"}, run: func(a *shellAnalyzer, c invocation) { a.gitIn(c.args, c.st, c.in, c.raw, 0) }},
		{names: []string{"find"}, run: func(a *shellAnalyzer, c invocation) { a.find(c.args, c.st, c.raw) }},
		{names: []string{"patch"}, run: func(a *shellAnalyzer, c invocation) { a.patch(c.args, c.st, c.in, c.raw) }},
		{names: []string{"jupyter"}, run: (*shellAnalyzer).jupyter},

		// Programs that run other code.
		{names: shellNames, run: func(a *shellAnalyzer, c invocation) { a.shellCmd(c.prog, c.args, c.st, c.in, c.raw) }},
		{names: wrapperNames, run: (*shellAnalyzer).wrapper}, // wrappers.go says how each reads its options
		{names: []string{"uv", "poetry", "pipenv", "pixi", "hatch", "pdm", "rye", "conda", "mamba", "micromamba"},
			run: func(a *shellAnalyzer, c invocation) { a.envRunner(c.prog, c.args, c.st, c.in, c.raw) }},
		{names: []string{"eval"}, run: (*shellAnalyzer).evalCmd},
		{names: []string{"source", "."}, opaque: true},

		// Programs that move the shell.
		{names: []string{"cd", "pushd"}, run: (*shellAnalyzer).cd},
		{names: []string{"popd"}, run: func(_ *shellAnalyzer, c invocation) { c.st.cwd = "" }},
	}
}

// attrLongVal are the long options of the metadata programs that take a
// value.
var attrLongVal = []string{"reference", "modify", "remove", "set", "name", "value", "from"}

// programs indexes writerTable by program name.
var programs map[string]*program

func init() {
	// Built here, not in a variable's initialiser: the table's functions
	// reach run, which reads the table.
	table := writerTable()
	programs = make(map[string]*program, 300)
	for i := range table {
		for _, n := range table[i].names {
			// run looks a program up by programName, which drops a
			// version: bzip2 is "bzip", sqlite3 "sqlite".
			n = programName(n)
			if programs[n] != nil && programs[n] != &table[i] {
				panic("permission: " + n + " is listed twice in writerTable")
			}
			programs[n] = &table[i]
		}
	}
}

// writes records what one call of a table program writes.
func (a *shellAnalyzer) writes(w *program, c invocation) {
	if w.run != nil {
		w.run(a, c)
		return
	}
	if w.opaque {
		a.opaque(c.prog, c.raw)
		return
	}
	if w.operands == noOperands && w.options == nil {
		return
	}
	p := parseArgs(c.args, w.shortVal, w.longVal...)
	if w.onlyWith != nil && !p.any(w.onlyWith) {
		return
	}
	k := w.kind
	if p.any(w.treeWith) {
		k = kindTree
	}
	via := w.via
	if via == "" {
		via = c.prog
	}
	for _, o := range w.options {
		for _, v := range p.vals[o] {
			a.target(v, c.st, k, via)
		}
	}
	for _, op := range w.operands.pick(p, w.allOperandsWith) {
		if w.skipPrefix != "" {
			if v, ok := op.single(); ok && strings.HasPrefix(v, w.skipPrefix) {
				continue
			}
		}
		a.target(op, c.st, k, via)
	}
}

// pick returns the operands o selects.
func (o operands) pick(p *args, allWith string) []word {
	ops := p.ops
	switch o {
	case allOperands:
		return ops
	case firstOperand:
		if len(ops) > 0 {
			return ops[:1]
		}
	case secondOperand:
		if len(ops) > 1 {
			return ops[1:2]
		}
	case operandsAfterFirst:
		if allWith != "" && p.vals[allWith] != nil {
			return ops
		}
		if len(ops) > 0 {
			return ops[1:]
		}
	}
	return nil
}

// any reports whether one of the flags is set: a single letter is a short
// option, a longer name a long one.
func (p *args) any(flags []string) bool {
	for _, f := range flags {
		if len(f) == 1 && p.short[f[0]] || len(f) > 1 && p.long[f] {
			return true
		}
	}
	return false
}

// ddOutput: dd writes its of= operand.
func (a *shellAnalyzer) ddOutput(c invocation) {
	for _, w := range c.args {
		if v, ok := w.single(); ok && strings.HasPrefix(v, "of=") {
			a.target(lit(v[3:]), c.st, kindFile, "dd of=")
		} else if !ok && strings.HasPrefix(w.raw, "of=") {
			a.unknownEffect(w.raw, "dd of=")
		}
	}
}

// splitOutput: split and csplit write PREFIXaa, ... (xaa by default).
func (a *shellAnalyzer) splitOutput(c invocation) {
	p := parseArgs(c.args, "abClnt", "suffix-length", "bytes", "line-bytes", "lines", "number", "prefix")
	if len(p.ops) > 1 {
		last := p.ops[len(p.ops)-1]
		a.target(word{vals: mapVals(last.vals, func(s string) string { return s + "aa" }), raw: last.raw}, c.st, kindFile, c.prog)
	} else {
		a.targetValue("xaa", c.st, kindFile, c.prog)
	}
}

// compressSuffixes are cut from a compressed file's name on decompression.
var compressSuffixes = []string{".gz", ".z", "-gz", "-z", "_z", ".bz2", ".bz", ".xz", ".lzma", ".zst", ".lz4", ".tgz", ".taz", ".tbz2", ".txz"}

// compress: gzip and friends replace each operand by its (de)compressed
// form, unless they write to stdout, list or test; -N restores a name
// stored in the archive, which cannot be told.
func (a *shellAnalyzer) compress(c invocation) {
	prog := c.prog
	p := parseArgs(c.args, "SbTo", "suffix", "threads", "output")
	if p.has('c', "stdout", "to-stdout") || p.has('l', "list") || p.has('t', "test") {
		return
	}
	for _, w := range p.value('o', "output") {
		a.target(w, c.st, kindFile, prog)
	}
	decompress := p.has('d', "decompress", "uncompress") || strings.HasPrefix(prog, "un") || prog == "gunzip"
	if decompress && p.has('N', "name") {
		a.unknownEffect(c.raw, prog+" -N restores the name stored in the archive")
	}
	var sfx []string
	if decompress {
		for _, w := range p.value('S', "suffix") {
			if v, ok := w.single(); ok {
				sfx = append(sfx, v)
			}
		}
		sfx = append(sfx, compressSuffixes...)
	}
	for _, op := range p.ops {
		a.target(op, c.st, kindFile, prog)
		if decompress {
			// x.gz decompresses to x (and a custom -S suffix is cut).
			a.target(word{vals: mapVals(op.vals, func(v string) string { return cutSuffix(v, sfx) }), raw: op.raw}, c.st, kindFile, prog)
		}
	}
}

// jupyter nbconvert --inplace rewrites its notebooks; anything else jupyter
// runs is opaque.
func (a *shellAnalyzer) jupyter(c invocation) {
	if len(c.args) > 0 {
		if sub, _ := c.args[0].single(); sub == "nbconvert" {
			p := parseArgs(c.args[1:], "", "to", "output", "output-dir", "template", "execute-timeout")
			if p.has(0, "inplace") {
				for _, op := range p.ops {
					a.target(op, c.st, kindFile, "jupyter nbconvert --inplace")
				}
				return
			}
		}
	}
	a.opaque(c.prog, c.raw)
}

// evalCmd: eval runs its arguments as a script: analysed when the text is known.
func (a *shellAnalyzer) evalCmd(c invocation) {
	if !allKnown(c.args) {
		a.unknownEffect(c.raw, "eval of unknown text")
		return
	}
	a.nested(wordsText(c.args), c.st)
}

// cd and pushd move the shell: later relative paths start there. A folder
// that cannot be told (a glob with several matches, "-", CDPATH) makes the
// folder unknown.
func (a *shellAnalyzer) cd(c invocation) {
	st := c.st
	ops := parseArgs(c.args, "").ops
	if len(ops) == 0 {
		st.cwd = a.home
		return
	}
	vals := a.expand(ops[0], st)
	if len(vals) != 1 || vals[0] == "-" {
		st.cwd = "" // unknown, or a glob that matched several folders
		return
	}
	v := vals[0]
	if _, set := st.vars["CDPATH"]; set && !isAbs(toSlash(v)) && !strings.HasPrefix(v, "./") && !strings.HasPrefix(v, "../") && v != "." && v != ".." {
		st.cwd = "" // CDPATH decides which folder a relative name means
		return
	}
	if p, ok := a.abs(v, st); ok {
		st.cwd = cleanAbs(p)
	} else {
		st.cwd = ""
	}
}
