package permission

import (
	"strings"

	"github.com/vibe-science/vibe/internal/lazyre"
)

// Inline code (python -c, perl -e, node -e, Rscript -e, ruby -e, julia -e,
// php -r) is not parsed; it is searched for the calls that write files, best
// effort. A call whose path is a literal gives a target; a call whose path
// is computed gives an unknown write, so the code's text is scanned for
// protected names; a call that runs a shell command with a literal string
// is analysed as shell.

// interpreterOf maps a program to the language of its inline code.
func interpreterOf(prog string) string {
	switch prog {
	case "python", "pypy", "ipython":
		return "python"
	case "node", "nodejs", "bun", "deno", "tsx", "ts-node":
		return "node"
	case "perl":
		return "perl"
	case "ruby":
		return "ruby"
	case "rscript", "r":
		return "r"
	case "julia":
		return "julia"
	case "php":
		return "php"
	}
	return ""
}

// interpSpec says how one language's interpreter takes its program on the
// command line.
type interpSpec struct {
	code     string // short options whose value is inline code
	vals     string // short options that take some other value
	clusters bool   // switches cluster and -i takes an attached suffix (perl, ruby)
}

// interpreters lists, per language, the options that carry inline code.
// --eval and --print carry code in every language.
var interpreters = map[string]interpSpec{
	"python": {code: "c", vals: "WXm"},
	"node":   {code: "ep", vals: "r"},
	"perl":   {code: "eE", clusters: true},
	"ruby":   {code: "e", vals: "rIC", clusters: true},
	"r":      {code: "e", vals: "f"},
	"julia":  {code: "eE", vals: "LJ"},
	"php":    {code: "r", vals: "cdfzt"},
}

// interpArgs is an interpreter's command line read.
type interpArgs struct {
	code       []word // inline programs
	script     bool   // runs a script file
	module     bool   // python -m
	moduleName string
	inplace    bool   // perl/ruby -i: the operands are rewritten
	rest       []word // the operands after the program
}

// interpreter finds the inline code of an interpreter call and analyses it.
// A script file is opaque; no code and no script means the program comes
// from stdin.
func (a *shellAnalyzer) interpreter(lang, prog string, argv []word, st *shellState, in stdinSrc, raw string) {
	ia, ok := interpreterArgs(lang, prog, argv)
	if !ok {
		a.opaque(prog, raw)
		return
	}
	via := prog + " code"
	switch {
	case len(ia.code) > 0:
		for _, c := range ia.code {
			v, ok := c.single()
			if !ok {
				a.unknownEffect(c.raw, via+" with unknown text")
				continue
			}
			a.inlineCode(lang, v, st, via)
		}
	case ia.module:
		a.pythonModule(ia.moduleName, prog, ia.rest, st, raw)
	case ia.script:
		a.opaque(prog, raw)
	case in.known:
		a.inlineCode(lang, in.text, st, prog+" code from stdin")
	case in.piped:
		if a.dl {
			a.hit("remote-code", false, in.text+" | "+prog)
		}
		a.unknownEffect(in.text+"\n"+raw, prog+" reads its code from a pipe or file")
	}
	if ia.inplace {
		for _, f := range ia.rest {
			a.target(f, st, kindFile, prog+" -i")
		}
	}
}

// interpreterArgs reads an interpreter's command line. ok is false for a
// subcommand that runs a file or a package (deno run, bun x.ts, R CMD).
func interpreterArgs(lang, prog string, argv []word) (ia interpArgs, ok bool) {
	i := 0
	if len(argv) > 0 {
		if s, ok := argv[0].single(); ok {
			switch {
			case prog == "deno" && s == "eval", prog == "bun" && s == "eval":
				if len(argv) > 1 {
					ia.code = append(ia.code, argv[1])
				}
				i = len(argv)
			case prog == "deno" || prog == "bun" && !strings.HasPrefix(s, "-"):
				return ia, false
			case prog == "r" && s == "CMD":
				return ia, false
			}
		}
	}
	spec := interpreters[lang]
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok || s == "-" || len(s) < 2 || s[0] != '-' {
			break
		}
		if s == "--" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			name, v, eq := strings.Cut(s[2:], "=")
			switch {
			case name == "eval" || name == "print":
				if eq {
					ia.code = append(ia.code, lit(v))
				} else if i+1 < len(argv) {
					ia.code = append(ia.code, argv[i+1])
					i++
				}
			case lang == "r" && name == "file":
				ia.script = true
			}
			continue
		}
		if spec.clusters {
			ia.clusterSwitch(spec, s, argv, &i)
			continue
		}
		if ia.shortSwitch(lang, spec, s, argv, &i) {
			break
		}
	}
	if i < len(argv) {
		ia.rest = argv[i:]
	}
	if len(ia.code) == 0 && !ia.module && !ia.script && len(ia.rest) > 0 {
		if s, ok := ia.rest[0].single(); !ok || s != "-" {
			ia.script = true
		}
		ia.rest = ia.rest[1:]
	}
	return ia, true
}

// clusterSwitch reads one perl or ruby switch word (-pi -e, -Mstrict):
// -i takes an attached suffix, code may be attached or the next word.
func (ia *interpArgs) clusterSwitch(spec interpSpec, s string, argv []word, i *int) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == 'i':
			ia.inplace = true
			return
		case strings.IndexByte(spec.code, c) >= 0:
			if j+1 < len(s) {
				ia.code = append(ia.code, lit(s[j+1:]))
			} else if *i+1 < len(argv) {
				ia.code = append(ia.code, argv[*i+1])
				*i++
			}
			return
		case strings.IndexByte("IMmlx0CdD"+spec.vals, c) >= 0:
			if j+1 >= len(s) && strings.IndexByte(spec.vals, c) >= 0 {
				*i++
			}
			return
		}
	}
}

// shortSwitch reads one short-option word of the other interpreters. It
// reports true when the options end there: python's -c and -m take the
// rest of the line as the program's arguments.
func (ia *interpArgs) shortSwitch(lang string, spec interpSpec, s string, argv []word, i *int) bool {
	for j := 1; j < len(s); j++ {
		c := s[j]
		isCode := strings.IndexByte(spec.code, c) >= 0
		if !isCode && strings.IndexByte(spec.vals, c) < 0 {
			continue
		}
		v := lit(s[j+1:])
		if j+1 >= len(s) {
			if *i+1 >= len(argv) {
				return true
			}
			v = argv[*i+1]
			*i++
		}
		switch {
		case isCode:
			ia.code = append(ia.code, v)
			if lang == "python" {
				*i = len(argv) // the rest is sys.argv
				return true
			}
		case lang == "python" && c == 'm':
			ia.module = true
			ia.moduleName, _ = v.single()
			*i++
			return true
		case lang == "r" && c == 'f':
			ia.script = true
		}
		return false
	}
	return false
}

// pythonModule handles python -m for the standard modules that write
// files named on the command line; any other module is opaque.
func (a *shellAnalyzer) pythonModule(name, prog string, argv []word, st *shellState, raw string) {
	p := parseArgs(argv, "", "indent", "sort-keys")
	switch name {
	case "json.tool":
		if len(p.ops) > 1 {
			a.target(p.ops[1], st, kindFile, "python -m json.tool")
		}
	case "zipfile", "tarfile":
		if p.has('e', "extract") && len(p.ops) > 1 {
			a.target(p.ops[len(p.ops)-1], st, kindTree, "python -m "+name+" -e")
		} else if p.has('c', "create") && len(p.ops) > 0 {
			a.target(p.ops[0], st, kindFile, "python -m "+name+" -c")
		}
	case "venv", "virtualenv":
		for _, op := range p.ops {
			a.target(op, st, kindTree, "python -m venv")
		}
	case "http.server", "timeit", "this", "platform", "site", "sysconfig", "pydoc", "calendar":
	default:
		a.opaque(prog, raw)
	}
}

// inlineCode records the writes of one piece of inline code.
func (a *shellAnalyzer) inlineCode(lang, code string, st *shellState, via string) {
	if len(code) > maxScript {
		a.unknownEffect(code[:4096], via+" too long to analyse")
		return
	}
	w := inlineWrites(lang, code)
	saved, savedURL := a.dl, a.dlURL
	if containsOne(code, codeFetchesNeeds) && codeFetches.MatchString(code) {
		// Code that fetches from the network: what it writes is taken for
		// the download.
		a.dl, a.dlURL = true, codeURL.FindString(code)
		if len(w.targets) > 0 || w.unknown || codeSaves.MatchString(code) {
			// Only a fetch that stores a file is a download; reading an
			// API into memory is not.
			a.hit("download", false, code)
		}
	}
	if containsOne(code, codeInstallsNeeds) && codeInstalls.MatchString(code) {
		a.hit("install", false, code)
	}
	for _, t := range w.targets {
		a.targetValue(t, st, kindFile, via)
	}
	a.dl, a.dlURL = saved, savedURL
	for _, sh := range w.shell {
		a.nested(sh, st.clone())
	}
	if w.unknown {
		a.unknownEffect(code, via+" writes a file whose name it computes")
	}
	if w.unknownShell {
		a.unknownEffect(code, via+" runs a command it computes")
	}
}

type inlineResult struct {
	targets      []string
	shell        []string
	unknown      bool
	unknownShell bool
}

type callKind uint8

const (
	callPath    callKind = iota // the arguments at idx (or keywords) are written
	callOpen                    // written when the mode argument says so
	callShell                   // the first argument is a shell command
	callExec                    // exec/spawn: the literal arguments after the program path are the command
	callInplace                 // fileinput: the files are rewritten when inplace is set
	callEval                    // exec/eval of code: a literal is analysed, anything else is unknown
)

type callRule struct {
	re     *lazyre.Regexp // ends at the opening parenthesis (or the name, for Perl)
	kind   callKind
	idx    []int // positional arguments that are paths; -1 means all
	kws    []string
	mode   int // positional index of the mode for callOpen
	modeKw string
	// optional: a call without the path argument writes nothing
	// (df.to_json() returns a string).
	optional bool
	// literalOnly: only a literal path counts; a computed one is ignored
	// because the method name is too common to mean a file (x.save(...)).
	literalOnly bool
	// needs: the rule runs only when the code contains one of these
	// (a substring search is much cheaper than the regexp).
	needs []string
}

func needs(r callRule, subs ...string) callRule { r.needs = subs; return r }

// containsOne reports whether s holds one of subs (all of s when none).
func containsOne(s string, subs []string) bool {
	if len(subs) == 0 {
		return true
	}
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func rule(re string, k callKind, idx []int, kws ...string) callRule {
	return callRule{re: lazyre.New(re), kind: k, idx: idx, kws: kws, mode: -1}
}

func openRule(re string, mode int, modeKw string, kws ...string) callRule {
	return callRule{re: lazyre.New(re), kind: callOpen, idx: []int{0}, kws: kws, mode: mode, modeKw: modeKw}
}

func optional(r callRule) callRule { r.optional = true; return r }

func literalOnly(r callRule) callRule { r.optional, r.literalOnly = true, true; return r }

var (
	first  = []int{0}
	second = []int{1}
	both   = []int{0, 1}
)

var inlineRules = map[string][]callRule{
	"python": {
		openRule(`(?:^|[^\w.])(?:io\.|codecs\.|builtins\.|__builtins__\.|_io\.)?open\s*\(`, 1, "mode", "file"),
		needs(rule(`\bos\.open\s*\(`, callPath, first, "path"), "os.open"),
		needs(rule(`\b(?:urllib\.request\.|request\.)?urlretrieve\s*\(`, callPath, second, "filename"), "urlretrieve"),
		{re: lazyre.New(`\b(?:os\.(?:exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)|pty\.spawn)\s*\(`), kind: callExec, mode: -1, needs: []string{"exec", "spawn"}},
		{re: lazyre.New(`\bfileinput\.(?:input|FileInput)\s*\(`), kind: callInplace, idx: first, kws: []string{"files"}, mode: -1, needs: []string{"fileinput"}},
		{re: lazyre.New(`(?:^|[^\w.])(?:exec|eval|compile)\s*\(`), kind: callEval, mode: -1, needs: []string{"exec", "eval", "compile"}},
		openRule(`\bh5py\.File\s*\(`, 1, "mode", "name"),
		optional(rule(`\.\s*(?:to_csv|to_json|to_parquet|to_excel|to_pickle|to_feather|to_hdf|to_stata|to_netcdf|to_zarr|to_html|to_latex|to_markdown|to_string|to_xml|to_file|savefig|write_h5ad|write_loom|write_csv|write_parquet|write_json|write_ndjson|write_excel|write_ipc|write_avro|write_database)\s*\(`,
			callPath, first, "path_or_buf", "path", "fname", "filename", "file", "excel_writer", "buf")),
		rule(`\b(?:np|numpy)\.(?:save|savez|savez_compressed|savetxt)\s*\(`, callPath, first, "file", "fname"),
		rule(`\b(?:torch\.save|joblib\.dump|dill\.dump_session)\s*\(`, callPath, second, "f", "filename"),
		rule(`\bshutil\.(?:copy|copy2|copyfile|copytree)\s*\(`, callPath, second, "dst"),
		rule(`\bshutil\.move\s*\(`, callPath, both, "src", "dst"),
		rule(`\bshutil\.rmtree\s*\(`, callPath, first, "path"),
		rule(`\bos\.(?:remove|unlink|rmdir|removedirs|truncate|mkdir|makedirs|chmod|chown|utime|mkfifo)\s*\(`, callPath, first, "path"),
		rule(`\bos\.(?:rename|replace|link|renames)\s*\(`, callPath, both, "src", "dst"),
		rule(`\bos\.symlink\s*\(`, callPath, second, "dst"),
		rule(`\bsqlite3\.connect\s*\(`, callPath, first, "database"),
		literalOnly(rule(`\.\s*save\s*\(`, callPath, first, "fp", "filename", "filepath", "path", "fname")),
		{re: lazyre.New(`\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput))\s*\(`), kind: callShell, mode: -1},
	},
	"node": {
		rule(`\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|unlinkSync|rmSync|rmdirSync|truncateSync|mkdirSync|chmodSync|utimesSync)\s*\(`, callPath, first),
		rule(`\b(?:fs|fsp|promises)\.(?:writeFile|appendFile|unlink|rm|rmdir|truncate|mkdir|chmod|utimes)\s*\(`, callPath, first),
		rule(`\b(?:fs\.|fsp\.|promises\.)?(?:copyFileSync|cpSync|symlinkSync)\s*\(`, callPath, second),
		rule(`\b(?:fs|fsp|promises)\.(?:copyFile|cp|symlink)\s*\(`, callPath, second),
		rule(`\b(?:fs\.|fsp\.|promises\.)?(?:renameSync|linkSync)\s*\(`, callPath, both),
		rule(`\b(?:fs|fsp|promises)\.(?:rename|link)\s*\(`, callPath, both),
		openRule(`\b(?:fs\.|fsp\.|promises\.)?openSync\s*\(`, 1, ""),
		openRule(`\b(?:fs|fsp|promises)\.open\s*\(`, 1, ""),
		rule(`\b(?:Bun\.write|Deno\.writeTextFile|Deno\.writeFile|Deno\.remove|Deno\.truncate|Deno\.mkdir)\s*\(`, callPath, first),
		{re: lazyre.New(`\b(?:execSync|exec|spawnSync|spawn|execFileSync|execFile)\s*\(`), kind: callShell, mode: -1},
		{re: lazyre.New(`(?:^|[^\w.])(?:eval|Function)\s*\(`), kind: callEval, mode: -1, needs: []string{"eval", "Function"}},
	},
	"perl": {
		{re: lazyre.New(`\bopen\s*\(?\s*(?:my\s+|our\s+|local\s+)?[\$\w:]+\s*,`), kind: callOpen, idx: []int{1}, mode: 0},
		rule(`\b(?:unlink|mkdir|rmdir|truncate)\b\s*\(?`, callPath, first),
		rule(`\b(?:rename|link|move)\b\s*\(?`, callPath, both),
		rule(`\b(?:symlink|copy)\b\s*\(?`, callPath, second),
		rule(`\bchmod\b\s*\(?`, callPath, []int{1, 2, 3}),
		{re: lazyre.New(`\b(?:system|exec)\b\s*\(?`), kind: callShell, mode: -1},
		needs(rule(`\bsysopen\b\s*\(?`, callPath, second), "sysopen"),
	},
	"ruby": {
		rule(`\b(?:File|IO)\.(?:write|binwrite|delete|unlink|truncate)\s*\(?`, callPath, first),
		openRule(`\bFile\.open\s*\(?`, 1, ""),
		rule(`\bFile\.rename\s*\(?`, callPath, both),
		rule(`\bFileUtils\.(?:rm|rm_f|rm_r|rm_rf|touch|mkdir_p|mkdir|rmdir|remove)\s*\(?`, callPath, first),
		rule(`\bFileUtils\.(?:cp|cp_r|ln|ln_s|install)\s*\(?`, callPath, second),
		rule(`\bFileUtils\.(?:mv|move)\s*\(?`, callPath, both),
		{re: lazyre.New(`\b(?:system|exec|spawn)\s*\(?`), kind: callShell, mode: -1},
	},
	"r": {
		optional(rule(`\b(?:write\.csv2?|write\.table|write\.delim|write_csv|write_tsv|write_delim|fwrite|write_json)\s*\(`, callPath, second, "file", "path", "con", "sink")),
		rule(`\b(?:saveRDS|write_rds|write_xlsx|write\.xlsx|write_parquet|write_feather|writeRDS)\s*\(`, callPath, second, "file", "path", "con", "sink"),
		optional(rule(`\bwriteLines\s*\(`, callPath, second, "con")),
		optional(rule(`\b(?:save|cat|write|save\.image|capture\.output)\s*\(`, callPath, nil, "file")),
		rule(`\b(?:ggsave|png|pdf|svg|jpeg|tiff|bmp|sink|file\.create|dir\.create|Sys\.chmod|file\.remove|unlink)\s*\(`, callPath, first, "filename", "file", "path", "x"),
		rule(`\bfile\.rename\s*\(`, callPath, both, "from", "to"),
		rule(`\bfile\.copy\s*\(`, callPath, second, "to"),
		rule(`\bdownload\.file\s*\(`, callPath, second, "destfile"),
		{re: lazyre.New(`\b(?:system|system2|shell)\s*\(`), kind: callShell, mode: -1},
	},
	"julia": {
		openRule(`(?:^|[^\w.])open\s*\(`, 1, ""),
		rule(`\b(?:rm|touch|mkdir|mkpath|CSV\.write)\s*\(`, callPath, first),
		rule(`\b(?:mv)\s*\(`, callPath, both),
		rule(`\b(?:cp|symlink)\s*\(`, callPath, second),
		{re: lazyre.New(`\b(?:run)\s*\(`), kind: callShell, mode: -1},
	},
	"php": {
		rule(`\b(?:file_put_contents|unlink|mkdir|touch|rmdir|chmod)\s*\(`, callPath, first),
		openRule(`\bfopen\s*\(`, 1, ""),
		rule(`\brename\s*\(`, callPath, both),
		rule(`\bcopy\s*\(`, callPath, second),
		{re: lazyre.New(`\b(?:system|exec|shell_exec|passthru|proc_open|popen)\s*\(`), kind: callShell, mode: -1},
	},
}

// Python's Path('x').write_text(...) names the file before the method; a
// method on anything else has a computed path.
var (
	pyPathMethod = lazyre.New(`\b(?:Path|PurePath|PosixPath|WindowsPath|pathlib\.Path)\s*\(\s*(?:[rRbBuU]{0,2})(?:'([^'\n]*)'|"([^"\n]*)")\s*\)\s*\.\s*(write_text|write_bytes|touch|unlink|rmdir|mkdir|rename|replace|symlink_to|hardlink_to|chmod|open)\s*\(`)
	pyAnyMethod  = lazyre.New(`(\w*)\.\s*(?:write_text|write_bytes|touch|unlink|rmdir|symlink_to|hardlink_to)\s*\(`)
	backticks    = lazyre.New("`([^`]*)`")
	perlQx       = lazyre.New(`\bqx\s*[({/|]`)
)

// awk's print > "file" / print >> "file" writes a file; print > name
// writes one it computes; print | "cmd" and system() run commands.
var (
	awkWrite = lazyre.New(`\bprintf?\b[^;{}\n]*?>>?\s*(?:"([^"]*)"|([A-Za-z_$(][^;{}\s]*))`)
	awkCmd   = lazyre.New(`\bsystem\s*\(|\|\s*"|\|&|\|\s*getline\b|\bgetline\b[^;]*<`)
	// The forms that run a literal command, analysed as shell.
	awkSystem  = lazyre.New(`\bsystem\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)`)
	awkGetline = lazyre.New(`"((?:[^"\\]|\\.)*)"\s*\|&?\s*getline\b`)
	awkPipeOut = lazyre.New(`\bprintf?\b[^;{}\n]*?\|&?\s*"((?:[^"\\]|\\.)*)"`)
)

// inlineWrites searches code in lang for the calls that write.
func inlineWrites(lang, code string) inlineResult {
	return inlineWritesDepth(lang, code, 0)
}

func inlineWritesDepth(lang, code string, depth int) inlineResult {
	var res inlineResult
	code = normalizeCode(lang, code, &res)
	var covered [][2]int
	inStr := stringMask(code)
	if lang == "python" {
		covered = res.pathlibWrites(code, inStr)
	}
	for _, r := range inlineRules[lang] {
		if !containsOne(code, r.needs) {
			continue
		}
		for _, m := range r.re.FindAllStringIndex(code, -1) {
			if inside(covered, m[0]) || inStr[m[1]-1] {
				continue
			}
			paren := strings.HasSuffix(strings.TrimSpace(code[m[0]:m[1]]), "(")
			args, ok := splitArgs(code, m[1], paren)
			if !ok {
				res.unknown = true
				continue
			}
			res.call(r, args, lang, depth)
		}
	}
	if lang == "perl" || lang == "ruby" {
		for _, m := range backticks.FindAllStringSubmatch(code, -1) {
			if strings.ContainsAny(m[1], "$@#{") {
				res.unknownShell = true
				continue
			}
			res.shell = append(res.shell, m[1])
		}
		if perlQx.MatchString(code) {
			res.unknownShell = true
		}
	}
	return res
}

// pathlibWrites records Python's Path(...).write_text() and friends, and
// returns the spans it read so the rules do not read them again. A method
// call on anything else that could be a path makes the writes unknown.
func (res *inlineResult) pathlibWrites(code string, inStr []bool) (covered [][2]int) {
	for _, m := range pyPathMethod.FindAllStringSubmatchIndex(code, -1) {
		covered = append(covered, [2]int{m[0], m[1]})
		p := submatch(code, m, 1)
		if p == "" {
			p = submatch(code, m, 2)
		}
		method := submatch(code, m, 3)
		args, _ := splitArgs(code, m[1], true)
		switch method {
		case "open":
			mode, ok := argValue(args, 0, "mode")
			if !ok {
				continue // read
			}
			if s, lit := literal(mode, "python"); lit && !writeMode(s) {
				continue
			}
		case "rename", "replace", "symlink_to", "hardlink_to":
			if method == "rename" || method == "replace" {
				addArg(res, args, 0, "target", "python")
			}
		}
		if strings.Contains(p, "{") && strings.Contains(code[m[0]:m[1]], "f'") {
			res.unknown = true
			continue
		}
		res.targets = append(res.targets, p)
	}
	for _, m := range pyAnyMethod.FindAllStringSubmatchIndex(code, -1) {
		recv := code[m[2]:m[3]]
		if !inside(covered, m[0]) && !inStr[m[1]-1] && recv != "os" && recv != "shutil" {
			res.unknown = true
		}
	}
	return covered
}

// call records what one call matched by rule r writes or runs.
func (res *inlineResult) call(r callRule, args []callArg, lang string, depth int) {
	switch r.kind {
	case callExec:
		if cmd, ok := execLiteral(args, lang); ok {
			res.shell = append(res.shell, cmd)
		} else {
			res.unknownShell = true
		}
	case callInplace:
		res.inplaceCall(args, lang)
	case callEval:
		res.evalCall(args, lang, depth)
	case callShell:
		if len(args) == 0 {
			return
		}
		if cmd, ok := shellLiteral(args, lang); ok {
			res.shell = append(res.shell, cmd)
		} else {
			res.unknownShell = true
		}
	case callOpen:
		if lang == "perl" {
			perlOpen(res, args)
			return
		}
		mode, has := argValue(args, r.mode, r.modeKw)
		if !has {
			return // default mode reads
		}
		if s, lit := literal(mode, lang); lit && !writeMode(s) {
			return
		}
		addArg(res, args, r.idx[0], firstOr(r.kws), lang)
	case callPath:
		res.pathCall(r, args, lang)
	}
}

// inplaceCall: fileinput.input(files, inplace=True) rewrites its files.
func (res *inlineResult) inplaceCall(args []callArg, lang string) {
	if _, on := argValue(args, -1, "inplace"); !on {
		return
	}
	v, ok := argValue(args, 0, "files")
	if !ok {
		res.unknown = true // the files come from sys.argv
		return
	}
	if items, ok := listLiteral(v, lang); ok {
		for _, it := range items {
			res.targets = append(res.targets, strings.Trim(it, "'"))
		}
	} else if lit, ok := literal(v, lang); ok {
		res.targets = append(res.targets, lit)
	} else {
		res.unknown = true
	}
}

// evalCall: exec/eval of a literal is analysed as code, three levels deep;
// of anything else, unknown.
func (res *inlineResult) evalCall(args []callArg, lang string, depth int) {
	if v, ok := argValue(args, 0, ""); ok {
		if lit, isLit := literal(v, lang); isLit && depth < 3 {
			inner := inlineWritesDepth(lang, lit, depth+1)
			res.targets = append(res.targets, inner.targets...)
			res.shell = append(res.shell, inner.shell...)
			res.unknown = res.unknown || inner.unknown
			res.unknownShell = res.unknownShell || inner.unknownShell
			return
		}
	}
	res.unknown, res.unknownShell = true, true
}

// pathCall: the arguments at r.idx (-1: every positional one) and the
// keywords r.kws are written.
func (res *inlineResult) pathCall(r callRule, args []callArg, lang string) {
	found := false
	for _, i := range r.idx {
		if i == -1 {
			for k := range args {
				if args[k].kw == "" {
					found = true
					addArg(res, args, k, "", lang)
				}
			}
			continue
		}
		if v, ok := argValue(args, i, ""); ok {
			found = true
			if _, isLit := literal(v, lang); isLit || !r.literalOnly {
				addArg(res, args, i, "", lang)
			}
		}
	}
	for _, kw := range r.kws {
		if v, ok := argValue(args, -1, kw); ok {
			found = true
			if _, isLit := literal(v, lang); isLit || !r.literalOnly {
				addArg(res, args, -1, kw, lang)
			}
		}
	}
	if !found && !r.optional && len(r.idx) > 0 {
		res.unknown = true
	}
}

// Inline code that downloads or installs: asked like curl and pip.
var (
	codeFetches  = lazyre.New(`\b(?:urlretrieve|urlopen|requests\.(?:get|post|request)|httpx\.|aiohttp|download\.file|curl_download|wget\.download|hf_hub_download|snapshot_download|gdown\.|https?\.get\s*\(|fetch\s*\(|Downloads\.download|HTTP\.(?:get|download)|LWP::Simple|getstore|Net::HTTP|open-uri|URI\.open)`)
	codeInstalls = lazyre.New(`\b(?:install\.packages|BiocManager::install|remotes::install_|devtools::install|pak::(?:pkg_install|pak)|renv::install|pip\.main|pip\._internal|ensurepip|Pkg\.add|cpanm?\b|Gem\.install)`)
	codeSaves    = lazyre.New(`\b(?:urlretrieve|download\.file|curl_download|wget\.download|hf_hub_download|snapshot_download|gdown\.|Downloads\.download|HTTP\.download|getstore)`)
	codeURL      = lazyre.New(`https?://[^\s'"` + "`" + `)]+`)
)

// Computed member names: obj['name'] (Node) and getattr(obj, 'name')
// (Python) are rewritten to obj.name so the rules see the call; a name that
// is not a literal makes the code's writes unknown.
var (
	jsLiteralMember = lazyre.New(`\[\s*(?:'(\w+)'|"(\w+)"|` + "`" + `(\w+)` + "`" + `)\s*\]`)
	jsFSComputed    = lazyre.New(`(?:\b(?:fs|fsp|promises|child_process|cp)|require\s*\(\s*['"](?:node:)?(?:fs|fs/promises|child_process)['"]\s*\))\s*\[`)
	jsFSRename      = lazyre.New(`\{[^}]*\b\w+\s*:\s*\w+[^}]*\}\s*=\s*(?:require\s*\(\s*['"](?:node:)?(?:fs|fs/promises|child_process)['"]|await\s+import\s*\(|\bfs\b|\bprocess\.binding)`)
	pyGetattrLit    = lazyre.New(`\bgetattr\s*\(\s*([\w.]+)\s*,\s*(?:'(\w+)'|"(\w+)")\s*\)`)
	pyComputed      = lazyre.New(`\bgetattr\s*\(|\b__import__\s*\(|\bimportlib\b|\b__builtins__\s*\[|\bvars\s*\(\s*\w*\s*\)\s*\[|\bglobals\s*\(\s*\)\s*\[`)
)

func normalizeCode(lang, code string, res *inlineResult) string {
	switch lang {
	case "node":
		if strings.Contains(code, "[") {
			code = jsLiteralMember.Re().ReplaceAllString(code, ".$1$2$3")
		}
		if (strings.Contains(code, "[") || strings.Contains(code, ":")) && (jsFSComputed.MatchString(code) || jsFSRename.MatchString(code)) {
			res.unknown, res.unknownShell = true, true
		}
	case "python":
		if strings.Contains(code, "getattr") {
			code = pyGetattrLit.Re().ReplaceAllString(code, "$1.$2$3")
		}
		if containsOne(code, pyComputedNeeds) && pyComputed.MatchString(code) {
			res.unknown, res.unknownShell = true, true
		}
	}
	return code
}

// The substrings the regexps below need, checked first because a search
// for them costs far less than the regexp.
var (
	pyComputedNeeds   = []string{"getattr", "__import__", "importlib", "__builtins__", "vars(", "globals("}
	codeFetchesNeeds  = []string{"url", "request", "http", "ownload", "fetch", "LWP", "getstore", "Net::", "URI", "gdown"}
	codeInstallsNeeds = []string{"install", "pip", "Pkg.add", "cpan"}
)

// execLiteral turns os.exec*/spawn* arguments into a shell command: the
// literal strings and lists after the program path; argv[0] (the name the
// program sees) is the program run.
func execLiteral(args []callArg, lang string) (string, bool) {
	var words []string
	for k, a := range args {
		if a.kw != "" {
			continue
		}
		if items, ok := listLiteral(a.text, lang); ok {
			words = append(words, items...)
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(a.text), "(") {
			t := strings.TrimSpace(a.text)
			if items, ok := listLiteral("["+t[1:len(t)-1]+"]", lang); ok {
				words = append(words, items...)
				continue
			}
		}
		lit, ok := literal(a.text, lang)
		if !ok {
			return "", false
		}
		if k == 0 {
			continue // the program path; argv[0] follows
		}
		words = append(words, shellQuote(lit))
	}
	if len(words) == 0 {
		return "", false
	}
	return strings.Join(words, " "), true
}

// stringMask marks the bytes of code that lie inside a string literal
// (quotes included), so a call written inside a string is not a call.
func stringMask(code string) []bool {
	mask := make([]bool, len(code)+1)
	var quote byte
	for i := 0; i < len(code); i++ {
		c := code[i]
		if quote != 0 {
			mask[i] = true
			switch c {
			case '\\':
				if i+1 < len(code) {
					i++
					mask[i] = true
				}
			case quote:
				quote = 0
			}
			continue
		}
		if c == '\'' || c == '"' || c == '`' {
			quote = c
			mask[i] = true
		}
	}
	return mask
}

func firstOr(list []string) string {
	if len(list) > 0 {
		return list[0]
	}
	return ""
}

func submatch(s string, m []int, n int) string {
	if 2*n+1 >= len(m) || m[2*n] < 0 {
		return ""
	}
	return s[m[2*n]:m[2*n+1]]
}

func inside(spans [][2]int, pos int) bool {
	for _, s := range spans {
		if s[0] <= pos && pos < s[1] {
			return true
		}
	}
	return false
}

func writeMode(mode string) bool {
	return strings.ContainsAny(mode, "wax+>")
}

// callArg is one argument of a call: its keyword (Python/R style kw=value),
// and its text.
type callArg struct {
	kw   string
	text string
}

// splitArgs splits the arguments of a call starting at code[start:] (just
// after the opening parenthesis when paren is true). It stops at the
// closing parenthesis, or, without one, at the end of the statement.
func splitArgs(code string, start int, paren bool) ([]callArg, bool) {
	var args []callArg
	depth := 0
	var quote byte
	begin := start
	end := start + 4096
	if end > len(code) {
		end = len(code)
	}
	flush := func(i int) {
		t := strings.TrimSpace(code[begin:i])
		if t == "" {
			return
		}
		arg := callArg{text: t}
		if k := kwSplit(t); k > 0 {
			arg.kw = strings.TrimSpace(t[:k])
			arg.text = strings.TrimSpace(t[k+1:])
		}
		args = append(args, arg)
	}
	for i := start; i < end; i++ {
		c := code[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"', '`':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				flush(i)
				return args, true
			}
			depth--
		case ',':
			if depth == 0 {
				flush(i)
				begin = i + 1
			}
		case ';', '\n':
			if depth == 0 && !paren {
				flush(i)
				return args, true
			}
		}
	}
	if !paren || end == len(code) {
		flush(end)
		return args, !paren || quote == 0
	}
	return args, false
}

// kwSplit returns the index of the '=' of a "name=value" argument, or -1.
func kwSplit(t string) int {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '=' {
			if i == 0 || i+1 < len(t) && t[i+1] == '=' {
				return -1
			}
			return i
		}
		if !(c == '_' || c == '.' || c == ' ' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return -1
		}
	}
	return -1
}

// argValue returns the positional argument i (counting only positional
// ones) or the keyword argument kw.
func argValue(args []callArg, i int, kw string) (string, bool) {
	if kw != "" {
		for _, a := range args {
			if a.kw == kw {
				return a.text, true
			}
		}
	}
	if i < 0 {
		return "", false
	}
	n := 0
	for _, a := range args {
		if a.kw != "" {
			continue
		}
		if n == i {
			return a.text, true
		}
		n++
	}
	return "", false
}

func addArg(res *inlineResult, args []callArg, i int, kw, lang string) {
	v, ok := argValue(args, i, kw)
	if !ok {
		return
	}
	s, isLit := literal(v, lang)
	if !isLit {
		res.unknown = true
		return
	}
	res.targets = append(res.targets, s)
}

// literal returns the value of a string literal, or false when the text is
// an expression (or an interpolating string with something to interpolate).
func literal(t, lang string) (string, bool) {
	t = strings.TrimSpace(t)
	if lang == "python" {
		t = strings.TrimLeft(t, "rRbBuU")
		if strings.HasPrefix(t, "f") || strings.HasPrefix(t, "F") {
			return "", false
		}
	}
	if len(t) < 2 {
		return "", false
	}
	q := t[0]
	if q != '\'' && q != '"' && q != '`' || t[len(t)-1] != q {
		return "", false
	}
	body := t[1 : len(t)-1]
	if strings.IndexByte(body, q) >= 0 && !strings.Contains(body, "\\"+string(q)) {
		return "", false // two literals concatenated, or worse
	}
	switch {
	case q == '`' && strings.Contains(body, "${"):
		return "", false
	case q == '"' && (lang == "perl" || lang == "php") && strings.ContainsAny(body, "$@"):
		return "", false
	case q == '"' && lang == "ruby" && strings.Contains(body, "#{"):
		return "", false
	case q == '"' && lang == "julia" && strings.Contains(body, "$"):
		return "", false
	}
	if q != '\'' || lang == "python" || lang == "node" {
		body = unescapeCode(body)
	}
	return body, true
}

// unescapeCode decodes the common backslash escapes of code strings.
func unescapeCode(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return ansiC(s)
}

// shellLiteral turns the first argument of a shell-running call into a
// shell command: a string literal as it is, a list of literals quoted.
func shellLiteral(args []callArg, lang string) (string, bool) {
	v, ok := argValue(args, 0, "")
	if !ok {
		v, ok = argValue(args, -1, "args")
		if !ok {
			return "", false
		}
	}
	if s, ok := literal(v, lang); ok {
		if lang == "r" || lang == "php" || lang == "python" || lang == "node" || lang == "ruby" || lang == "perl" {
			// A single string runs through the shell, or is one program
			// when more arguments follow (exec/spawn forms).
			extra := []string{}
			for k := 1; k < len(args); k++ {
				if args[k].kw != "" {
					continue
				}
				if x, ok := literal(args[k].text, lang); ok {
					extra = append(extra, shellQuote(x))
				} else if strings.HasPrefix(strings.TrimSpace(args[k].text), "[") {
					items, ok := listLiteral(args[k].text, lang)
					if !ok {
						return "", false
					}
					extra = append(extra, items...)
				}
			}
			if len(extra) > 0 {
				return shellQuote(s) + " " + strings.Join(extra, " "), true
			}
		}
		return s, true
	}
	if lang == "julia" && strings.HasPrefix(strings.TrimSpace(v), "`") {
		return strings.Trim(strings.TrimSpace(v), "`"), true
	}
	items, ok := listLiteral(v, lang)
	if !ok {
		return "", false
	}
	return strings.Join(items, " "), true
}

// listLiteral parses ['rm', 'x'] / c("rm", "x") into shell-quoted words.
func listLiteral(v, lang string) ([]string, bool) {
	v = strings.TrimSpace(v)
	switch {
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		v = v[1 : len(v)-1]
	case strings.HasPrefix(v, "c(") && strings.HasSuffix(v, ")"):
		v = v[2 : len(v)-1]
	default:
		return nil, false
	}
	args, ok := splitArgs(v+")", 0, true)
	if !ok {
		return nil, false
	}
	var out []string
	for _, a := range args {
		s, ok := literal(a.text, lang)
		if !ok || a.kw != "" {
			return nil, false
		}
		out = append(out, shellQuote(s))
	}
	return out, len(out) > 0
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// perlOpen handles open(FH, MODE, PATH) and the two-argument open(FH,
// ">path"); a mode or path with a pipe runs a command.
func perlOpen(res *inlineResult, args []callArg) {
	if len(args) == 0 {
		return
	}
	if len(args) >= 2 {
		mode, ok := literal(args[0].text, "perl")
		if !ok {
			res.unknown = true
			return
		}
		mode = strings.TrimSpace(mode)
		if strings.Contains(mode, "|") {
			if cmd, ok := literal(args[1].text, "perl"); ok {
				res.shell = append(res.shell, cmd)
			} else {
				res.unknownShell = true
			}
			return
		}
		if !strings.Contains(mode, ">") && !strings.Contains(mode, "+") {
			return
		}
		addArg(res, args, 1, "", "perl")
		return
	}
	spec, ok := literal(args[0].text, "perl")
	if !ok {
		res.unknown = true
		return
	}
	spec = strings.TrimSpace(spec)
	switch {
	case strings.HasPrefix(spec, "|") || strings.HasSuffix(spec, "|"):
		res.shell = append(res.shell, strings.Trim(spec, "| "))
	case strings.HasPrefix(spec, "+<"), strings.HasPrefix(spec, ">"):
		res.targets = append(res.targets, strings.TrimSpace(strings.TrimLeft(spec, "+<>")))
	}
}
