package permission

import "strings"

// wrapperSpec says how a program that runs another command (sudo, env,
// timeout, xargs, ...) reads its own options before that command: which
// take a value, and what the options it knows do for the command it runs.
type wrapperSpec struct {
	shortVal string // short options that take a value
	longVal  string // the long option that takes the next word as its value
	// roles of the options that matter, by letter or long name.
	roles map[string]wrapperRole
	// assigns: NAME=value words set the command's environment (env).
	assigns bool
	// moves: a cd run through it moves this shell (command, builtin, exec).
	moves bool
	// then handles the words after the options (timeout's duration, flock's
	// lock file, watch's text); it returns the command to analyse, or false
	// when it handled it itself.
	then func(a *shellAnalyzer, c invocation, rest []word, cst *shellState) ([]word, bool)
}

// wrapperRole is what one option of a wrapper does.
type wrapperRole uint8

const (
	roleChdir    wrapperRole = iota + 1 // the folder the command runs in
	roleScript                          // a script run by a shell (env -S, flock -c)
	roleOutput                          // a file the wrapper writes (time -o)
	roleReplace                         // xargs's replacement string ("{}" when attached and empty)
	roleDescribe                        // describes the command instead of running it (command -v)
	roleShell                           // with no command, a shell reading stdin (sudo -s, -i)
)

// wrappers lists the programs that run the command given as their
// arguments; the command is analysed as if typed.
var wrappers map[string]wrapperSpec

func init() {
	output := map[string]wrapperRole{"o": roleOutput, "output": roleOutput}
	wrappers = map[string]wrapperSpec{
		"sudo":       {shortVal: "ugCDhprtUT", roles: map[string]wrapperRole{"D": roleChdir, "s": roleShell, "i": roleShell}},
		"doas":       {shortVal: "uC"},
		"env":        {shortVal: "uCS", longVal: "chdir", assigns: true, roles: map[string]wrapperRole{"C": roleChdir, "chdir": roleChdir, "S": roleScript, "split-string": roleScript}},
		"nice":       {shortVal: "n"},
		"timeout":    {shortVal: "sk", then: skipFirst},
		"stdbuf":     {shortVal: "ioe"},
		"ionice":     {shortVal: "cnpt"},
		"xargs":      {shortVal: "IEdLnPsa", roles: map[string]wrapperRole{"I": roleReplace, "i": roleReplace, "replace": roleReplace}},
		"time":       {shortVal: "fo", roles: output},
		"strace":     {shortVal: "oeEpusSP", roles: output},
		"ltrace":     {shortVal: "oeEpusSn", roles: map[string]wrapperRole{"o": roleOutput}},
		"exec":       {shortVal: "a", moves: true},
		"command":    {moves: true, roles: map[string]wrapperRole{"v": roleDescribe, "V": roleDescribe}},
		"builtin":    {moves: true},
		"watch":      {shortVal: "nd", then: watchText},
		"flock":      {shortVal: "wEc", longVal: "command", roles: map[string]wrapperRole{"c": roleScript, "command": roleScript}, then: flockFile},
		"caffeinate": {shortVal: "tw"},
		"parallel":   {shortVal: "jS", then: opaqueRun}, // runs commands it builds from its input
		"nohup":      {}, "chronic": {}, "unbuffer": {}, "nocorrect": {}, "noglob": {},
		"setsid": {}, "taskset": {}, "valgrind": {},
		// screen -dmS name CMD...: the command runs in a session of its own.
		"screen": {shortVal: "cehpsStTX", then: screenRun},
		// tmux [-L sock] new-session -d 'CMD', send-keys 'CMD' Enter, ...
		"tmux": {shortVal: "LSfcT", roles: map[string]wrapperRole{"c": roleScript}, then: tmuxRun},
	}
}

// wrapperOpt is one option a wrapper was given, with its value.
type wrapperOpt struct {
	role wrapperRole
	name string // letter or long name, for messages
	val  word
	has  bool // a value was given
}

// options reads a wrapper's options up to the command it runs:
// the ones with a role, the NAME=value words, and where the command
// starts.
func (w wrapperSpec) options(argv []word) (opts []wrapperOpt, assigns []string, i int) {
	for ; i < len(argv); i++ {
		s, ok := argv[i].single()
		if !ok {
			break
		}
		if s == "--" {
			i++
			break
		}
		if w.assigns && strings.Contains(s, "=") && !strings.HasPrefix(s, "-") {
			assigns = append(assigns, s)
			continue
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if strings.HasPrefix(s, "--") {
			name, v, eq := strings.Cut(s[2:], "=")
			o := wrapperOpt{role: w.roles[name], name: name, val: lit(v), has: eq}
			if !eq && name == w.longVal && w.longVal != "" && i+1 < len(argv) {
				o.val, o.has = argv[i+1], true
				i++
			}
			if o.role != 0 {
				opts = append(opts, o)
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j : j+1]
			role := w.roles[c]
			if strings.IndexByte(w.shortVal, s[j]) < 0 {
				if role == roleReplace {
					// xargs -i[replace]: the value is attached or absent.
					opts = append(opts, wrapperOpt{role: role, name: c, val: lit(s[j+1:]), has: j+1 < len(s)})
					break
				}
				if role != 0 {
					opts = append(opts, wrapperOpt{role: role, name: c})
				}
				continue
			}
			o := wrapperOpt{role: role, name: c, val: lit(s[j+1:]), has: true}
			if j+1 >= len(s) {
				if i+1 >= len(argv) {
					break
				}
				o.val = argv[i+1]
				i++
			}
			if role != 0 {
				opts = append(opts, o)
			}
			break
		}
	}
	return opts, assigns, i
}

// wrapper analyses a program that runs another command given as its
// arguments: the command runs with the wrapper's environment and folder.
func (a *shellAnalyzer) wrapper(c invocation) {
	spec := wrappers[c.prog]
	opts, assigns, i := spec.options(c.args)
	cst := c.st.clone()
	for _, kv := range assigns {
		name, v, _ := strings.Cut(kv, "=")
		cst.vars[name] = lit(v)
	}
	replace := ""
	shell := false
	for _, o := range opts {
		switch o.role {
		case roleDescribe:
			return
		case roleChdir:
			v, _ := o.val.single()
			a.chdir(cst, v)
		case roleOutput:
			if o.has {
				a.target(o.val, c.st, kindFile, c.prog+" -o")
			}
		case roleReplace:
			replace = "{}"
			if v, ok := o.val.single(); ok && o.has && v != "" {
				replace = v
			}
		case roleShell:
			shell = true
		}
	}
	for _, o := range opts {
		if o.role == roleScript && o.has {
			a.nestedWord(o.val, cst, c.prog+" -"+o.name)
			return
		}
	}
	rest := c.args[i:]
	if spec.then != nil {
		var ok bool
		if rest, ok = spec.then(a, c, rest, cst); !ok {
			return
		}
	}
	if len(rest) == 0 {
		if shell {
			a.shellCmd("sh", nil, cst, c.in, c.raw) // sudo -s: a shell reading stdin
		}
		return
	}
	if c.prog == "xargs" {
		rest = a.xargsFed(rest, replace, c)
	}
	a.run(rest, cst, c.in, "")
	if spec.moves {
		c.st.cwd = cst.cwd
	}
}

// xargsFed adds to the command what xargs feeds it from stdin: the lines
// of a listing before the pipe when they can be told, else an unknown
// word that keeps the listing's text, so `echo CLAIM-LEDGER.md | xargs rm`
// still names the ledger.
func (a *shellAnalyzer) xargsFed(rest []word, replace string, c invocation) []word {
	rest = append([]word(nil), rest...)
	var fed, scope []string // what a listing before the pipe prints, or where
	fromFS := false
	if c.in.piped {
		fed, scope, fromFS = a.listing(c.in.text, c.st)
	}
	switch {
	case replace != "":
		for k, w := range rest {
			if !strings.Contains(w.raw, replace) {
				continue
			}
			v, ok := w.single()
			if ok && fed != nil {
				vals := make([]string, 0, len(fed))
				for _, f := range fed {
					vals = append(vals, strings.ReplaceAll(v, replace, f))
				}
				rest[k] = word{vals: vals, raw: w.raw, computed: fromFS}
				continue
			}
			rest[k] = word{raw: strings.ReplaceAll(w.raw, replace, "\x00") + " " + c.in.text}
			if ok && v == replace && scope != nil {
				rest[k].scope, rest[k].computed = scope, true
			}
		}
	case fed != nil:
		rest = append(rest, word{vals: fed, raw: "\x00" + c.in.text, computed: fromFS})
	default:
		rest = append(rest, word{raw: "\x00" + c.in.text, scope: scope, computed: scope != nil})
	}
	return rest
}

// skipFirst: timeout's first operand is the duration.
func skipFirst(_ *shellAnalyzer, _ invocation, rest []word, _ *shellState) ([]word, bool) {
	if len(rest) > 0 {
		rest = rest[1:]
	}
	return rest, true
}

// flockFile: flock writes its lock file, then runs the command or -c text.
func flockFile(a *shellAnalyzer, c invocation, rest []word, cst *shellState) ([]word, bool) {
	if len(rest) > 0 {
		a.target(rest[0], c.st, kindFile, "flock")
		rest = rest[1:]
	}
	if len(rest) > 1 {
		if s, _ := rest[0].single(); s == "-c" || s == "--command" {
			a.nestedWord(rest[1], cst, "flock -c")
			return nil, false
		}
	}
	return rest, true
}

// watchText: watch runs its words as a shell command.
func watchText(a *shellAnalyzer, c invocation, rest []word, cst *shellState) ([]word, bool) {
	if len(rest) > 0 && allKnown(rest) {
		a.nested(wordsText(rest), cst.clone())
	} else if len(rest) > 0 {
		a.unknownEffect(c.raw, "watch with unknown text")
	}
	return nil, false
}

// opaqueRun: what the wrapper runs cannot be told (parallel builds its
// commands from its input).
func opaqueRun(a *shellAnalyzer, c invocation, _ []word, _ *shellState) ([]word, bool) {
	a.opaque(c.prog, c.raw)
	return nil, false
}

// screenRun: screen runs its operands as a command, unless it attaches to,
// lists or talks to a session that exists (-r, -R, -x, -ls, -list, -X,
// -wipe), which starts nothing new.
func screenRun(_ *shellAnalyzer, c invocation, rest []word, _ *shellState) ([]word, bool) {
	for _, w := range c.args[:len(c.args)-len(rest)] {
		switch s, _ := w.single(); s {
		case "-r", "-R", "-x", "-ls", "-list", "-wipe", "-X", "-Q":
			return nil, false
		}
	}
	return rest, true
}

// tmuxStarts are tmux's commands that run a shell command (its last
// words), with the options of each that take a value.
var tmuxStarts = map[string]string{
	"new-session": "censtxyFf", "new": "censtxyFf",
	"new-window": "censtF", "neww": "censtF",
	"split-window": "celtFp", "splitw": "celtFp",
	"respawn-pane": "cet", "respawnp": "cet",
	"respawn-window": "cet", "respawnw": "cet",
	"run-shell": "dt", "run": "dt",
	"display-popup": "bcdehsStTwxy", "popup": "bcdehsStTwxy",
	"pipe-pane": "t", "pipep": "t",
}

// tmuxKeys are key names send-keys types that are not text.
var tmuxKeys = map[string]bool{"Enter": true, "C-m": true, "KPEnter": true, "C-j": true, "Escape": true,
	"C-c": true, "C-d": true, "C-u": true, "Tab": true, "Space": true}

// tmuxRun: the commands tmux starts (new-session, new-window,
// split-window, run-shell …) run their last words as a shell command, and
// send-keys types its words into a shell; what they run is analysed as if
// typed. Other tmux commands (ls, attach, kill-session …) run nothing.
func tmuxRun(a *shellAnalyzer, c invocation, rest []word, cst *shellState) ([]word, bool) {
	if len(rest) == 0 {
		return nil, false
	}
	sub, _ := rest[0].single()
	if sub == "send-keys" || sub == "send" {
		p := optionsUntilOperand(rest[1:], "Ntc")
		var text []word
		for _, w := range p.ops {
			if s, ok := w.single(); !ok || !tmuxKeys[s] {
				text = append(text, w)
			}
		}
		switch {
		case len(text) > 0 && allKnown(text):
			a.nested(wordsText(text), cst.clone())
		case len(text) > 0:
			a.unknownEffect(c.raw, "tmux send-keys with unknown text")
		}
		return nil, false
	}
	vals, ok := tmuxStarts[sub]
	if !ok {
		return nil, false
	}
	p := optionsUntilOperand(rest[1:], vals)
	switch len(p.ops) {
	case 0:
		return nil, false // the default shell, interactive
	case 1:
		a.nestedWord(p.ops[0], cst, "tmux "+sub)
		return nil, false
	}
	return p.ops, true
}
