package permission

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/verdict"
)

// Request is one tool call as Claude Code sends it.
type Request struct {
	ProjectRoot string          // absolute project root (project.ResolveEnv: CLAUDE_PROJECT_DIR, else git top level or cwd)
	Cwd         string          // the event's cwd (Bash commands are relative to it)
	AgentType   string          // event agent_type; "" on the main thread
	ToolName    string          // Write, Edit, MultiEdit, NotebookEdit, Bash, mcp__server__tool, Read, ...
	ToolInput   json.RawMessage // tool_input as received
	// Role, when set, is used instead of the role AgentType maps to. It is
	// for `vibe permissions check --role`; hooks never set it.
	Role string
	// Net is the safety net after the call (internal/tamper), when there
	// is one: a protected file the command reaches only through a
	// computation (a glob, find, a listing fed to xargs, what a tree holds)
	// is left to it when it can restore the file, and asked about when it
	// cannot. Nil: no net, such a write is refused like a named one.
	Net Net
	// Compute is the project's compute allowance (the domain config's
	// "compute" block): a job it covers runs without the user's approval.
	// Nil: every job is asked.
	Compute *Allowance
}

// Net is the safety net that judges, after a call, what actually changed
// on disk and restores a protected file the call may not change.
type Net interface {
	// Restores reports whether the net holds a copy it can restore of the
	// protected file at the project-relative path rel, or of every
	// protected file under the folder rel ("." is the whole project).
	Restores(rel string) bool
}

// Action is what the policy answers: allow, deny or ask.
type Action string

// The actions, as PreToolUse's permissionDecision spells them.
const (
	Allow Action = "allow"
	Deny  Action = "deny"
	Ask   Action = "ask"
)

// Decision is the policy's answer to one tool call.
type Decision struct {
	Action  Action
	Role    string   // resolved role
	Rule    string   // id of the rule that decided, e.g. "reviewer2.deny.ledger"
	Reason  string   // full sentence for Claude: who, what, which rule, what the role may do instead
	Instead string   // what the role may do instead (the last part of Reason)
	Paths   []string // normalised project-relative targets the call names as written (outside-root targets as absolute)
	// Net lists the protected files (or folders) the call may reach only
	// through a computation, left to Request.Net to judge after the call.
	Net []string
}

// CheckName is the check name of permission verdicts.
const CheckName = "permission"

// probe is a file name no real file has: "dir/<probe>" stands for "anything
// inside dir" when a folder is matched against file patterns.
const probe = "\x00"

// Check decides whether req may run. Rules are tried in a fixed order: the
// role's tools, its Bash programs, then for every path the call writes the
// project root, read-only data, the role's deny rules and its write-only
// area, then writes whose target is unknown, then operations that need
// approval. The first deny wins; otherwise the first ask; otherwise allow.
func (p *Policy) Check(req Request) Decision {
	return p.decide(req, nil)
}

// Explain returns the rules Check considers for req, in order, each with its
// outcome, and last the rule that decided.
func (p *Policy) Explain(req Request) []string {
	var tr []string
	p.decide(req, &tr)
	return tr
}

// Verdict wraps a decision in the verdict envelope: deny is a HIGH
// HARD_BLOCK, ask a WARN, allow a PASS.
func (p *Policy) Verdict(req Request, d Decision) verdict.Verdict {
	res, sev := verdict.Pass, verdict.Low
	switch d.Action {
	case Deny:
		res, sev = verdict.HardBlock, verdict.High
	case Ask:
		res, sev = verdict.Warn, verdict.Med
	}
	input := struct {
		AgentType string   `json:"agent_type,omitempty"`
		Role      string   `json:"role"`
		Tool      string   `json:"tool"`
		Rule      string   `json:"rule"`
		Action    Action   `json:"action"`
		Paths     []string `json:"paths,omitempty"`
	}{req.AgentType, d.Role, req.ToolName, d.Rule, d.Action, d.Paths}
	v := verdict.New(CheckName, res, sev, d.Reason, input)
	v.Evidence.Paths = d.Paths
	v.Evidence.Notes = []string{"rule " + d.Rule}
	if d.Action != Allow {
		v.Recommendation = d.Instead
	}
	return v
}

// RoleFor maps an agent type to a role. An empty agent type is the main
// thread: researcher in SOLO mode, lead in TEAM mode (as configured). A
// plugin-scoped type counts only for this plugin ("vibe:reviewer2"); a bare
// name or a configured alias maps directly. Anything else, and any attempt
// to reach a main-thread role from a subagent, gets the default role.
func (p *Policy) RoleFor(agentType string, teamMode bool) string {
	at := strings.ToLower(strings.TrimSpace(agentType))
	if at == "" {
		if teamMode {
			return p.mainTeam
		}
		return p.mainSolo
	}
	if r, ok := p.aliases[at]; ok {
		return p.subagentRole(r)
	}
	if i := strings.LastIndexByte(at, ':'); i >= 0 {
		if at[:i] != p.plugin {
			return p.defaultRole
		}
		at = at[i+1:]
		if r, ok := p.aliases[at]; ok {
			return p.subagentRole(r)
		}
	}
	if _, ok := p.roles[at]; ok {
		return p.subagentRole(at)
	}
	return p.defaultRole
}

func (p *Policy) subagentRole(r string) string {
	if r == p.mainSolo || r == p.mainTeam {
		return p.defaultRole
	}
	return r
}

// Protected reports whether a project-relative path is one of the protected
// files (ledger, reviews, serendipity log, schemas, policy), compared
// case-insensitively and through the look-alike fold.
func (p *Policy) Protected(rel string) bool {
	f := foldPath(strings.TrimPrefix(toSlash(rel), "./"))
	for _, s := range p.protected {
		if s.set.match(f) {
			return true
		}
	}
	return false
}

// ProtectedFor reports whether role may not write the project-relative path
// rel (an absolute path is outside the project), so PostToolUse can tell a
// forbidden change that happened anyway. An unknown role is the default one.
func (p *Policy) ProtectedFor(role, rel string) bool {
	r := p.roles[strings.ToLower(role)]
	if r == nil {
		r = p.roles[p.defaultRole]
	}
	rel = strings.TrimPrefix(toSlash(rel), "./")
	t := target{rel: rel, folded: foldPath(rel), outside: isAbs(rel), kind: kindFile}
	if t.outside {
		t.abs = rel
	}
	if rel == "." {
		t.folded = ""
	}
	o := p.judgePath(r, r.name, t, nil)
	return o.action == Deny
}

// WrittenPaths returns every file the call names as written, normalised
// like Decision.Paths, and whether some writes could not be told (the
// command did not parse, or a target was computed at run time). A file the
// call reaches only through a computation (a glob's match, a find match)
// is not among them: it is a possibility, not a write the call names.
func WrittenPaths(req Request) (paths []string, unparsed bool) {
	root := resolvedRoot(req.ProjectRoot)
	cwd := requestCwd(req, root)
	eff := collect(req, root, cwd, homeDir())
	seen := map[string]bool{}
	for _, rt := range eff.targets {
		if rt.kind == kindLink || rt.kind == kindRepo || rt.computed {
			continue // not files the call writes, or not files it names
		}
		t, ok := normalize(root, literalRoot(req.ProjectRoot), rt, eff.links)
		if !ok || seen[t.rel] {
			continue
		}
		seen[t.rel] = true
		paths = append(paths, t.rel)
	}
	return paths, eff.unparsed || len(eff.unknown) > 0
}

// target is a write after normalisation.
type target struct {
	rel     string // project-relative ("." for the root), or absolute when outside
	given   string // the path as named, before symlinks, when it differs from rel
	lexical string // the project-relative path with ".." applied by text, when it differs
	folded  string // foldPath(rel); "" for the root
	abs     string // physical absolute path
	outside bool
	kind    kind
	via     string
	// download: the call stores what it fetched from url here.
	download bool
	url      string
	// computed: the command reaches this path through a computation (see
	// rawTarget.computed).
	computed bool
}

// literalRoot is the project root as given, cleaned: the prefix the
// paths of the call are expected to start with.
func literalRoot(root string) string {
	root = toSlash(strings.TrimSpace(root))
	if root == "" || !isAbs(root) {
		return ""
	}
	return strings.TrimSuffix(cleanAbs(root), "/")
}

func resolvedRoot(root string) string {
	root = toSlash(strings.TrimSpace(root))
	if root == "" || !isAbs(root) {
		return ""
	}
	return resolve(cleanAbs(root), nil)
}

func (p *Policy) root(root string) string {
	if v, ok := p.roots.Load(root); ok {
		return v.(string)
	}
	r := resolvedRoot(root)
	p.roots.Store(root, r)
	return r
}

func requestCwd(req Request, root string) string {
	cwd := toSlash(strings.TrimSpace(req.Cwd))
	if cwd == "" || !isAbs(cwd) {
		if root == "" {
			return ""
		}
		if cwd == "" {
			return root
		}
		return join(root, cwd)
	}
	return cleanAbs(cwd)
}

// normalize resolves a raw target and makes it project-relative. ok is false
// for targets that are not files (/dev/null).
func normalize(root, literal string, rt rawTarget, links map[string]string) (target, bool) {
	if isSink(cleanAbs(rt.path)) {
		return target{}, false
	}
	var phys string
	if rt.noFollow {
		lexical := cleanAbs(rt.path)
		i := strings.LastIndexByte(lexical, '/')
		dir := resolveUnder(lexical[:i+1], literal, root, links)
		phys = strings.TrimSuffix(dir, "/") + lexical[i:]
	} else {
		phys = resolveUnder(rt.path, literal, root, links)
	}
	if isSink(phys) {
		return target{}, false
	}
	t := target{abs: phys, kind: rt.kind, via: rt.via, download: rt.download, url: rt.url, computed: rt.computed}
	rel, inside := "", false
	if root != "" {
		rel, inside = relativeTo(root, phys)
	}
	if lexical := cleanAbs(rt.path); lexical != phys {
		t.given = lexical
		lrel, ok := "", false
		if root != "" {
			lrel, ok = relativeTo(root, lexical)
		}
		if !ok && literal != "" {
			lrel, ok = relativeTo(literal, lexical)
		}
		if ok {
			t.given = lrel
			// A tool that cleans ".." before the file system sees the path
			// writes here instead: judge this spelling too.
			if !inside || lrel != rel {
				t.lexical = lrel
			}
		}
	}
	if !inside {
		t.rel, t.outside, t.folded = phys, true, foldPath(phys)
		return t, true
	}
	t.rel = rel
	if rel != "." {
		t.folded = foldPath(rel)
	}
	return t, true
}

// outcome is the verdict on one path or one part of a call.
type outcome struct {
	action  Action
	rule    string
	reason  string
	instead string
	// subject is the folded path a path rule matched: the target itself,
	// "anything inside" it, or a file a tree holds (held).
	subject string
	held    bool
	// partial: the target is a tree too large to look through, and none of
	// what was seen of it is protected.
	partial bool
	// names are the literal names of what the rule guards, so that a
	// command that spells one is told from one that reaches it by a
	// computation (viaNet).
	names []literalName
}

// decision accumulates outcomes: the first deny wins, then the first ask.
type decision struct {
	deny, ask *outcome
	tr        *[]string
}

func (d *decision) add(o outcome) {
	switch o.action {
	case Deny:
		if d.deny == nil {
			d.deny = &o
		}
	case Ask:
		if d.ask == nil {
			d.ask = &o
		}
	}
}

func (d *decision) trace(format string, a ...any) {
	if d.on() {
		*d.tr = append(*d.tr, fmt.Sprintf(format, a...))
	}
}

// on reports whether the decision is traced (Explain). A trace on a path
// every call takes is guarded by it: boxing its arguments costs
// allocations even when nothing is recorded.
func (d *decision) on() bool { return d != nil && d.tr != nil }

// pathf traces a rule applied to target t.
func (d *decision) pathf(t target, format string, a ...any) {
	if d.on() {
		d.trace("path %s (%s): "+format, append([]any{t.rel, t.via}, a...)...)
	}
}

// decide runs the stages of a decision in order: normalise (what the call
// runs and writes), role (what the role may do at all), path (which
// protected class each target is in, then the writes whose target is
// unknown) and commands (approvals and forbidden operations). Each stage
// adds outcomes to d; the first deny wins, then the first ask.
func (p *Policy) decide(req Request, tr *[]string) Decision {
	d := &decision{tr: tr}
	r, who := p.roleOf(req, d)
	out := Decision{Role: r.name}
	if !p.judgeTool(r, who, req.ToolName, d) {
		return p.finish(d, out, r.name, req.ToolName)
	}
	c := p.normalise(req)
	out.Paths = c.paths
	p.judgeRole(r, who, c, d)
	p.judgePaths(r, who, c, d)
	p.judgeUnknown(r, who, c, d)
	if c.bash {
		p.judgeCommands(who, c, req.Compute, d)
	}
	out = p.finish(d, out, r.name, req.ToolName)
	out.Net = c.deferred
	return out
}

// normalised is a tool call after the normalise stage.
type normalised struct {
	eff     *effects // what the call runs and writes, as analysed
	targets []target // every write, resolved and made project-relative
	paths   []string // the distinct files the call names as written (Decision.Paths)
	bash    bool
	net     Net // Request.Net
	// deferred are the protected paths left to the net (Decision.Net).
	deferred []string
	scanned  string // the command folded for the name scan, once made
}

// scan is the call's text as the name scans read it: folded, quotes
// removed.
func (c *normalised) scan() string {
	if c.scanned == "" {
		c.scanned = fold(stripQuotes(c.eff.source)) + "\x00"
	}
	return c.scanned
}

// normalise parses the tool input (the shell command, the file path) into
// the writes it makes and resolves each target against the project root.
func (p *Policy) normalise(req Request) *normalised {
	root := p.root(req.ProjectRoot)
	cwd := requestCwd(req, root)
	c := &normalised{eff: collect(req, root, cwd, p.home), bash: req.ToolName == "Bash", net: req.Net}
	seen := map[string]bool{}
	trees := map[string]bool{} // a folder written as a whole is judged once
	literal := literalRoot(req.ProjectRoot)
	for _, rt := range c.eff.targets {
		if rt.kind == kindTree {
			key := fmt.Sprint(rt.path, rt.computed)
			if trees[key] {
				continue
			}
			trees[key] = true
		}
		t, ok := normalize(root, literal, rt, c.eff.links)
		if !ok {
			continue
		}
		c.targets = append(c.targets, t)
		if t.kind != kindLink && t.kind != kindRepo && !t.computed && !seen[t.rel] {
			seen[t.rel] = true
			c.paths = append(c.paths, t.rel)
		}
	}
	return c
}

// roleOf resolves the role the call runs as (Request.Role overrides the
// agent type) and how messages name the caller.
func (p *Policy) roleOf(req Request, d *decision) (*role, string) {
	roleName := p.RoleFor(req.AgentType, p.TeamMode())
	if req.Role != "" {
		roleName = strings.ToLower(req.Role)
		if p.roles[roleName] == nil {
			roleName = p.defaultRole
		}
	}
	who := roleName
	if req.AgentType != "" {
		bare := strings.ToLower(req.AgentType)
		if i := strings.LastIndexByte(bare, ':'); i >= 0 {
			bare = bare[i+1:]
		}
		if bare != roleName {
			who = fmt.Sprintf("%s (agent %s)", roleName, req.AgentType)
		}
	}
	agent := req.AgentType
	if agent == "" {
		agent = "main thread"
	}
	if d.on() {
		d.trace("role: %s -> %s (mode %s)", agent, roleName, p.cfg.Mode)
	}
	return p.roles[roleName], who
}

// judgeTool is the role stage's first rule: the tools the role may use. It
// reports false when the tool is refused, which ends the decision.
func (p *Policy) judgeTool(r *role, who, tool string, d *decision) bool {
	if r.allowsTool(tool) {
		if d.on() {
			d.trace("%s.tools: %s allowed", r.name, tool)
		}
		return true
	}
	d.trace("%s.tools: %s not allowed -> deny", r.name, tool)
	d.add(outcome{
		action:  Deny,
		rule:    r.name + ".tools",
		reason:  fmt.Sprintf("%s may not use the %s tool (rule %s.tools)", who, tool, r.name),
		instead: fmt.Sprintf("%s may use %s; %s.", r.name, strings.Join(r.cfg.Tools, ", "), r.cfg.Summary),
	})
	return false
}

// judgeRole is the role stage for a Bash command: the programs the role may
// run and whether it may write through the shell at all.
func (p *Policy) judgeRole(r *role, who string, c *normalised, d *decision) {
	if !c.bash {
		return
	}
	eff := c.eff
	if r.programs != nil {
		for _, prog := range eff.programs {
			if prog != "" && r.programs[prog] {
				continue
			}
			name := prog
			if name == "" {
				name = "a command whose name is computed"
			}
			d.trace("%s.bash.programs: %s not allowed -> deny", r.name, name)
			d.add(outcome{
				action:  Deny,
				rule:    r.name + ".bash.programs",
				reason:  fmt.Sprintf("%s may not run %s (rule %s.bash.programs)", who, name, r.name),
				instead: fmt.Sprintf("%s may run only %s through Bash; %s.", r.name, strings.Join(r.cfg.Bash.Programs, ", "), r.cfg.Summary),
			})
			break
		}
		if d.deny == nil {
			if d.on() {
				d.trace("%s.bash.programs: %s allowed", r.name, strings.Join(uniq(eff.programs), ", "))
			}
		}
	}
	if r.bashWrite {
		return
	}
	writes := len(c.paths) > 0 || len(eff.unknown) > 0
	what := "files"
	for _, t := range c.targets {
		if t.kind == kindLink || t.kind == kindRepo {
			writes = true
		}
		if t.kind == kindRepo {
			what = "the repository (" + t.via + ")"
		}
	}
	if !writes {
		if d.on() {
			d.trace("%s.bash.write: the command writes nothing", r.name)
		}
		return
	}
	if len(c.paths) > 0 {
		what = strings.Join(c.paths, ", ")
	}
	d.trace("%s.bash.write: writes %s -> deny", r.name, what)
	d.add(outcome{
		action:  Deny,
		rule:    r.name + ".bash.write",
		reason:  fmt.Sprintf("%s may not write files through Bash (rule %s.bash.write): the command writes %s", who, r.name, what),
		instead: p.writeInstead(r),
	})
}

// judgePaths is the path stage for the targets the call names: each is
// judged by judgePath, and also under its spelling with ".." applied by
// text when that leads elsewhere.
func (p *Policy) judgePaths(r *role, who string, c *normalised, d *decision) {
	for _, t := range c.targets {
		o := p.viaNet(r, who, c, t, p.judgePath(r, who, t, d), d)
		if o.action == Deny && t.kind == kindTree && strings.HasPrefix(t.via, "git ") {
			o.instead = "it would rewrite protected files along with yours; name the files you mean instead (git checkout -- <file>, git stash push -- <paths>, git clean -f <path>)."
		}
		d.add(o)
		if t.lexical != "" && t.lexical != "." && t.kind != kindRepo {
			lt := t
			lt.rel, lt.folded, lt.outside, lt.given, lt.lexical = t.lexical, foldPath(t.lexical), false, "", ""
			d.add(p.judgePath(r, who, lt, d))
		}
	}
}

// viaNet decides a write the path rules forbid when the command reaches
// the file only through a computation made when it runs (a glob's match, a
// find match, a listing fed to xargs, a file a tree holds): unless the
// command spells the name of what the rule guards, the write is left to
// the net, which judges after the call what really changed and restores a
// protected file; when the net cannot restore it (no copy kept yet, a file
// too large to keep) the user is asked. What the net does not watch stays
// refused: writes outside the project, a confined role's writes outside
// its area, anything when the call has no net.
func (p *Policy) viaNet(r *role, who string, c *normalised, t target, o outcome, d *decision) outcome {
	if o.action == Allow || c.net == nil || t.outside || !(t.computed || o.held || o.partial) {
		return o
	}
	if !o.partial {
		if _, guarded := p.guarded(o.subject); o.subject == "" || !guarded {
			return o
		}
		scan := c.scan()
		for _, n := range o.names {
			if strings.Contains(scan, n.folded) {
				if d.on() {
					d.pathf(t, "%s: the command names %s -> %s", o.rule, n.display, o.action)
				}
				return o
			}
		}
	}
	what := t.rel
	if o.held && !o.partial {
		what = p.unfold(t, o.subject)
	}
	if c.net.Restores(t.rel) {
		d.pathf(t, "%s: %s is reached only when the command runs; the net restores it -> allow", o.rule, what)
		c.deferred = append(c.deferred, what)
		return outcome{action: Allow}
	}
	d.pathf(t, "%s: %s is reached only when the command runs and the net holds no copy of it -> ask", o.rule, what)
	return outcome{
		action: Ask,
		rule:   "net.unrestorable",
		reason: fmt.Sprintf("%s wants to run a command that may change %s (%s), a file it reaches only when it runs, and vibe holds no copy to restore it from (rule net.unrestorable; blocked otherwise by %s)",
			who, what, t.via, o.rule),
		instead: "name the files the command should change, or approve it if it may change " + what + ".",
	}
}

// judgeUnknown is the path stage for writes that cannot be told: targets
// known only at run time, programs whose writes cannot be told, and
// commands that cannot be analysed.
func (p *Policy) judgeUnknown(r *role, who string, c *normalised, d *decision) {
	eff := c.eff
	for _, u := range eff.unknown {
		d.add(p.judgeUnknownTarget(r, who, u, c, d))
	}
	if r.writeOnly == nil && len(eff.opaque) > 0 {
		// A program whose writes cannot be told may write anything under
		// its folder: refused when the command names or globs into a path
		// the role may not write. Raw data is left out, because scripts
		// read it all the time; PostToolUse restores a raw file a script
		// changed anyway.
		u := unknownTarget{via: eff.opaque[0] + ", a program whose writes cannot be told"}
		d.add(p.judgeNamed(r, who, u, c, d, false))
	}
	if eff.unparsed && p.restricted(r) {
		d.trace("%s.unparsed: the command could not be analysed -> deny", r.name)
		d.add(outcome{
			action:  Deny,
			rule:    r.name + ".unparsed",
			reason:  fmt.Sprintf("%s may not run a command that cannot be analysed (rule %s.unparsed): it does not parse or is longer than %d KB", who, r.name, maxScript>>10),
			instead: "split it into shorter, plain commands (write long content with the Write tool); " + p.writeInstead(r),
		})
	}
	if r.writeOnly != nil && len(eff.opaque) > 0 {
		prog := eff.opaque[0]
		d.trace("%s.write-only: %s may write anywhere -> deny", r.name, prog)
		d.add(outcome{
			action:  Deny,
			rule:    r.name + ".write-only",
			reason:  fmt.Sprintf("%s may not run %s (rule %s.write-only): what it writes cannot be told, and %s writes only %s", who, prog, r.name, r.name, strings.Join(r.writeOnly.src, ", ")),
			instead: p.writeInstead(r),
		})
	}
}

// judgeCommands is the last stage: the operations of a Bash command that
// are forbidden or need the user's approval, whatever they write.
func (p *Policy) judgeCommands(who string, c *normalised, al *Allowance, d *decision) {
	add := func(ap approvalRule, text, traced string, forbid bool) {
		o := p.commandOutcome(ap, who, text, forbid)
		d.trace("%s: %q -> %s", ap.id, traced, o.action)
		d.add(o)
	}
	for _, h := range c.eff.hits {
		rules := p.approvals
		if h.forbid {
			rules = p.forbidden
		}
		for _, ap := range rules {
			if ap.group != h.group {
				continue
			}
			if h.job == nil {
				add(ap, h.text, h.text, h.forbid)
				continue
			}
			if al.covers(h.job) {
				d.trace("%s: %q is within the compute allowance -> allow", ap.id, h.text)
				continue
			}
			o := p.commandOutcome(ap, who, h.text, false)
			o.instead = h.job.describe(al) + "."
			d.trace("%s: %q -> %s", ap.id, h.text, o.action)
			d.add(o)
		}
	}
	for _, call := range c.eff.calls {
		for _, fb := range p.forbidden {
			if _, ok := fb.match(call); ok {
				add(fb, commandText(call), commandText(call), true)
			}
		}
		for _, ap := range p.approvals {
			if cmd, ok := ap.match(call); ok {
				add(ap, commandText(call), cmd, false)
			}
		}
	}
}

// commandOutcome is the answer to a command of an approval (ask) or
// forbidden (deny) group.
func (p *Policy) commandOutcome(ap approvalRule, who, text string, forbid bool) outcome {
	if forbid {
		return outcome{
			action:  Deny,
			rule:    ap.id,
			reason:  fmt.Sprintf("%s may not run %q (rule %s): %s", who, text, ap.id, ap.reason),
			instead: "if it must be done, ask the user to run it themselves outside the session.",
		}
	}
	return outcome{
		action:  Ask,
		rule:    ap.id,
		reason:  fmt.Sprintf("%s wants to run %q, which needs the user's approval (rule %s)", who, text, ap.id),
		instead: ap.reason + "; approve it if the project needs it.",
	}
}

// restricted reports whether a role gets no benefit of the doubt: one
// confined to an area or to some programs, one that may not write through
// the shell, and the role of unknown agents.
func (p *Policy) restricted(r *role) bool {
	return r.writeOnly != nil || r.programs != nil || !r.bashWrite || r.name == p.defaultRole
}

func (p *Policy) finish(d *decision, out Decision, roleName, toolName string) Decision {
	o := d.deny
	if o == nil {
		o = d.ask
	}
	if o == nil {
		out.Action = Allow
		out.Rule = roleName + ".allow"
		what := "use " + toolName
		if len(out.Paths) > 0 {
			what = "write " + strings.Join(out.Paths, ", ")
		}
		out.Reason = fmt.Sprintf("%s may %s (rule %s).", roleName, what, out.Rule)
		if d.on() {
			d.trace("decision: allow by %s", out.Rule)
		}
		return out
	}
	out.Action, out.Rule, out.Instead = o.action, o.rule, o.instead
	out.Reason = o.reason + ": " + o.instead
	if !strings.HasSuffix(out.Reason, ".") {
		out.Reason += "."
	}
	d.trace("decision: %s by %s", o.action, o.rule)
	return out
}

func (r *role) allowsTool(tool string) bool {
	if r.anyTool || r.tools[tool] {
		return true
	}
	for _, g := range r.toolGlobs {
		if g.Match(tool) {
			return true
		}
	}
	return false
}

func (p *Policy) writeInstead(r *role) string {
	if r.writeOnly != nil && r.writeOnly.src != nil && r.cfg.WriteOnly.Instead != "" {
		return r.cfg.WriteOnly.Instead
	}
	return r.cfg.Summary + "."
}

// judgePath applies the path rules to one target, in order: a repository
// operation, the locked paths, outside the project, read-only data, the
// role's deny rules and its write-only area. The first rule that decides
// ends the walk; a new download into read-only data is asked only when no
// later rule refuses it.
func (p *Policy) judgePath(r *role, who string, t target, d *decision) outcome {
	if t.kind == kindRepo {
		return p.judgeRepo(r, who, t, d)
	}
	if o, ok := p.judgeLocked(who, t, d); ok {
		return o
	}
	if t.outside {
		return p.judgeOutside(r, who, t, d)
	}
	subjects, partial := p.subjects(t)
	downloadAsk, o, ok := p.judgeReadOnly(r, who, t, subjects, d)
	if ok {
		return o
	}
	if o, ok := p.judgeDenyRules(r, who, t, subjects, d); ok {
		return o
	}
	if t.kind == kindLink {
		return outcome{action: Allow}
	}
	if o, ok := p.judgeWriteOnly(r, who, t, d); ok {
		return o
	}
	if partial {
		return p.partialTree(r, who, t, d)
	}
	if downloadAsk != nil {
		return *downloadAsk
	}
	return outcome{action: Allow}
}

// judgeRepo: a git operation across the work tree is refused to a role
// confined to one area.
func (p *Policy) judgeRepo(r *role, who string, t target, d *decision) outcome {
	if r.writeOnly != nil {
		d.pathf(t, "%s.write-only: %s rewrites files across the work tree -> deny", r.name, t.via)
		return outcome{
			action:  Deny,
			rule:    r.name + ".write-only",
			reason:  fmt.Sprintf("%s may not run %s (rule %s.write-only): it rewrites files across the repository", who, t.via, r.name),
			instead: p.writeInstead(r),
		}
	}
	if d.on() {
		d.pathf(t, "repository operation allowed for %s", r.name)
	}
	return outcome{action: Allow}
}

// judgeOutside: a target outside the project is written only by a role
// allowed outside it, or where outside_root.allow says so; a link to it
// is harmless.
func (p *Policy) judgeOutside(r *role, who string, t target, d *decision) outcome {
	if t.kind == kindLink {
		return outcome{action: Allow}
	}
	if r.cfg.OutsideRoot {
		if d.on() {
			d.pathf(t, "%s.outside-root: allowed", r.name)
		}
		return outcome{action: Allow}
	}
	if p.outside.match(t.folded) {
		if d.on() {
			d.pathf(t, "outside_root.allow: matches")
		}
		return outcome{action: Allow}
	}
	d.pathf(t, "%s.outside-root: outside the project -> deny", r.name)
	instead := p.cfg.OutsideRoot.Instead
	if instead == "" {
		instead = r.cfg.Summary + "."
	}
	return outcome{
		action:  Deny,
		rule:    r.name + ".outside-root",
		reason:  fmt.Sprintf("%s may not write %s, which is outside the project root (rule %s.outside-root)", who, t.rel, r.name),
		instead: instead,
	}
}

// subjects are the folded paths the read-only and deny rules see: the
// path itself, and for a tree "anything inside" and what already lies
// under it. partial says the tree held more than maxWalk entries, so only
// some of them are among the subjects.
func (p *Policy) subjects(t target) (subjects []string, partial bool) {
	subjects = []string{t.folded}
	if t.kind != kindTree {
		return subjects, false
	}
	subjects = append(subjects, join2(t.folded, probe))
	if fi, err := os.Stat(filepath.FromSlash(t.abs)); err == nil && fi.IsDir() {
		complete := walk(t.abs, func(rel string, _ fs.DirEntry) {
			subjects = append(subjects, foldPath(join2(t.rel, rel)))
		})
		partial = !complete
	}
	return subjects, partial
}

// heldBy reports whether subject is a file the tree t holds rather than
// the tree itself (or "anything inside" it).
func heldBy(t target, subject string) bool {
	return t.kind == kindTree && subject != t.folded && subject != join2(t.folded, probe)
}

// partialTree is the answer for a tree too large to look through when what
// was seen of it is not protected: refused without a net, which viaNet
// turns into the net's judgement (or a question).
func (p *Policy) partialTree(r *role, who string, t target, d *decision) outcome {
	d.pathf(t, "more than %d entries under it -> deny", maxWalk)
	return outcome{
		action:  Deny,
		rule:    r.name + ".tree",
		reason:  fmt.Sprintf("%s may not run %s on %s (rule %s.tree): it holds too many files to check for protected ones", who, t.via, t.rel, r.name),
		instead: "work on narrower folders.",
		partial: true,
	}
}

// display names a matched subject for messages: the path as given, where
// it leads, and the protected file a folder holds.
func (p *Policy) display(t target, subject string) string {
	name := t.rel
	if t.given != "" && t.given != t.rel {
		name = t.given + " (which leads to " + t.rel + ")"
	}
	if subject == t.folded || subject == join2(t.folded, probe) {
		return name
	}
	return name + " (it holds " + p.unfold(t, subject) + ")"
}

// judgeReadOnly: read-only data binds every role not exempt from it. A new
// file downloaded into it is how raw data arrives: that is returned as
// downloadAsk for the user to approve, unless a later rule refuses it.
func (p *Policy) judgeReadOnly(r *role, who string, t target, subjects []string, d *decision) (downloadAsk *outcome, o outcome, ok bool) {
	if t.kind == kindLink || r.cfg.ReadOnlyExempt {
		return nil, outcome{}, false
	}
	for _, ro := range p.readOnly {
		s, hit := matchAny(&ro.set, subjects)
		if !hit {
			if d.on() {
				d.pathf(t, "read-only.%s: no match", ro.id)
			}
			continue
		}
		if ap, ok := p.approval("download"); ok && t.download && t.kind == kindFile && !exists(t.abs) {
			// Writing over an existing raw file stays refused.
			d.pathf(t, "read-only.%s: a new download -> ask (%s)", ro.id, ap.id)
			downloadAsk = &outcome{
				action:  Ask,
				rule:    ap.id,
				reason:  fmt.Sprintf("%s wants to download %s into %s (rule %s)", who, orUnknown(t.url), t.rel, ap.id),
				instead: ap.reason + "; approve it if this is the data the project needs (vibe records its URL and checksum).",
			}
			continue
		}
		d.pathf(t, "read-only.%s: matches -> deny", ro.id)
		instead := ro.instead
		if instead == "" {
			instead = ro.desc + " is read-only."
		}
		return nil, outcome{
			action:  Deny,
			rule:    "read-only." + ro.id,
			reason:  fmt.Sprintf("%s may not write %s (rule read-only.%s)", who, p.display(t, s), ro.id),
			instead: instead,
			subject: s,
			held:    heldBy(t, s),
			names:   ro.names,
		}, true
	}
	return downloadAsk, outcome{}, false
}

// judgeDenyRules: the role's own deny (or ask) rules; the first that
// matches decides.
func (p *Policy) judgeDenyRules(r *role, who string, t target, subjects []string, d *decision) (outcome, bool) {
	for _, dr := range r.deny {
		s, ok := matchAny(&dr.set, subjects)
		if ok && !dr.except.empty() && dr.except.match(s) {
			ok = false
		}
		if !ok {
			if d.on() {
				d.pathf(t, "%s: no match", dr.id)
			}
			continue
		}
		d.pathf(t, "%s: matches -> %s", dr.id, dr.action)
		what := p.display(t, s)
		if t.kind == kindLink {
			what = "a link to " + t.rel
		}
		o := p.denyRuleOutcome(r, dr, who, what, "")
		o.subject, o.held, o.names = s, heldBy(t, s), dr.names
		return o, true
	}
	return outcome{}, false
}

// judgeWriteOnly: a role confined to an area writes only inside it.
func (p *Policy) judgeWriteOnly(r *role, who string, t target, d *decision) (outcome, bool) {
	if r.writeOnly == nil {
		return outcome{}, false
	}
	ok := r.writeOnly.matchConfined(t.folded)
	if !ok && (t.kind == kindDir || t.kind == kindTree) {
		ok = r.writeOnly.matchConfined(join2(t.folded, probe))
	}
	if ok {
		if d.on() {
			d.pathf(t, "%s.write-only: inside", r.name)
		}
		return outcome{}, false
	}
	d.pathf(t, "%s.write-only: outside %s -> deny", r.name, strings.Join(r.writeOnly.src, ", "))
	return outcome{
		action:  Deny,
		rule:    r.name + ".write-only",
		reason:  fmt.Sprintf("%s may not write %s (rule %s.write-only)", who, t.rel, r.name),
		instead: p.writeInstead(r),
	}, true
}

// approval returns the configured approval group id ("download").
func (p *Policy) approval(group string) (approvalRule, bool) {
	for _, ap := range p.approvals {
		if ap.group == group {
			return ap, true
		}
	}
	return approvalRule{}, false
}

func exists(abs string) bool {
	_, err := os.Lstat(filepath.FromSlash(abs))
	return err == nil
}

func orUnknown(url string) string {
	if url == "" {
		return "a file"
	}
	return url
}

// judgeLocked applies the locked paths, which bind every role: the file
// itself, a folder that holds one (rm -r ~/.claude), or a link made to one.
func (p *Policy) judgeLocked(who string, t target, d *decision) (outcome, bool) {
	if len(p.locked) == 0 {
		return outcome{}, false
	}
	abs := foldPath(t.abs)
	tree := t.kind == kindTree
	for _, ls := range p.locked {
		if ls.outsideOnly && !t.outside {
			continue
		}
		hit := ls.abs.match(abs)
		subject, held := t.folded, false
		if !hit && !t.outside {
			hit = ls.rel.match(t.folded)
			if !hit && tree {
				if ls.rel.match(join2(t.folded, probe)) {
					hit, subject = true, join2(t.folded, probe)
				} else if ls.rel.holdsUnder(t.folded) {
					hit, held = true, true
					subject = ls.rel.heldUnder(t.folded)
				}
			}
		}
		if !hit && tree {
			hit = ls.abs.holdsUnder(abs)
		}
		if !hit {
			continue
		}
		d.pathf(t, "locked.%s: matches -> deny", ls.id)
		what := t.rel
		if t.given != "" && t.given != t.rel {
			what = t.given + " (which leads to " + t.rel + ")"
		}
		if what == "." {
			what = "the project folder"
		}
		if tree && !ls.abs.match(abs) && (t.outside || !ls.rel.match(t.folded)) {
			what += " (" + t.via + " may change everything under it)"
		}
		if t.kind == kindLink {
			what = "a link to " + t.rel
		}
		return outcome{
			action:  Deny,
			rule:    "locked." + ls.id,
			reason:  fmt.Sprintf("%s may not write %s, part of %s, locked for every role (rule locked.%s)", who, what, ls.desc, ls.id),
			instead: ls.instead,
			subject: subject,
			held:    held,
			names:   ls.names,
		}, true
	}
	return outcome{}, false
}

// unfold finds the original spelling of a folded descendant for messages.
func (p *Policy) unfold(t target, folded string) string {
	var found string
	walk(t.abs, func(rel string, _ fs.DirEntry) {
		if found == "" && foldPath(join2(t.rel, rel)) == folded {
			found = join2(t.rel, rel)
		}
	})
	if found == "" {
		return folded
	}
	return found
}

func join2(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

func matchAny(s *patternSet, subjects []string) (string, bool) {
	for _, x := range subjects {
		if s.match(x) {
			return x, true
		}
	}
	return "", false
}

// judgeUnknownTarget decides a write whose target could not be resolved. A role
// confined to an area cannot be shown to stay in it; any other role is
// stopped when the command names (or globs into) a path its deny rules,
// the locked paths or the read-only data cover.
func (p *Policy) judgeUnknownTarget(r *role, who string, u unknownTarget, c *normalised, d *decision) outcome {
	text := shorten(u.text)
	if r.writeOnly != nil {
		d.trace("%s.write-only: %s writes %q, known only at run time -> deny", r.name, u.via, text)
		return outcome{
			action:  Deny,
			rule:    r.name + ".write-only",
			reason:  fmt.Sprintf("%s may not write %q (%s), a target known only when the command runs (rule %s.write-only)", who, text, u.via, r.name),
			instead: p.writeInstead(r),
		}
	}
	return p.judgeNamed(r, who, u, c, d, true)
}

// judgeNamed looks in a command with unknown writes for the protected
// paths it names or globs into. raw says whether read-only data counts.
func (p *Policy) judgeNamed(r *role, who string, u unknownTarget, c *normalised, d *decision, raw bool) outcome {
	eff := c.eff
	text := shorten(u.text)
	what := fmt.Sprintf("%q (%s), a target known only when the command runs,", text, u.via)
	if u.text == "" {
		what = "files through " + u.via + ","
	}
	// The whole command is scanned too: a computed target often gets its
	// name from elsewhere in the command (a variable, a cd in a branch).
	// fold, not foldPath: the text is a command, not a path, and the
	// per-component rules (a ':' cuts a name) would lose names in it.
	scan := fold(stripQuotes(u.text + "\n" + eff.source))
	for _, ls := range p.locked {
		for _, n := range ls.names {
			if !strings.Contains(scan, n.folded) {
				continue
			}
			d.trace("locked.%s: %s may write anything and the command names %s -> deny", ls.id, u.via, n.display)
			return outcome{
				action:  Deny,
				rule:    "locked." + ls.id,
				reason:  fmt.Sprintf("%s may not write %s in a command that names %s, part of %s, locked for every role (rule locked.%s)", who, what, n.display, ls.desc, ls.id),
				instead: ls.instead,
			}
		}
	}
	for _, dr := range r.deny {
		for _, n := range dr.names {
			if !strings.Contains(scan, n.folded) {
				continue
			}
			d.trace("%s: %s writes %q, known only at run time, and the command names %s -> %s", dr.id, u.via, text, n.display, dr.action)
			return p.denyRuleOutcome(r, dr, who, what, " in a command that names "+n.display)
		}
	}
	// Globs the command expanded show which files it reaches; the net
	// judges what such a command really changed, when there is one that
	// can restore the file.
	for _, g := range eff.globbed {
		rel, folded, ok := p.globbedRel(g, eff)
		if !ok {
			continue
		}
		for _, dr := range r.deny {
			if dr.set.match(folded) && (dr.except.empty() || !dr.except.match(folded)) {
				if _, guarded := p.guarded(folded); guarded && c.net != nil && c.net.Restores(rel) {
					d.trace("%s: %s may write anything and the command globs %s; the net restores it", dr.id, u.via, rel)
					c.deferred = append(c.deferred, rel)
					break
				}
				d.trace("%s: %s may write anything and the command globs %s -> %s", dr.id, u.via, rel, dr.action)
				return p.denyRuleOutcome(r, dr, who, what, " in a command that globs "+rel)
			}
		}
	}
	if raw && !r.cfg.ReadOnlyExempt {
		for _, ro := range p.readOnly {
			for _, n := range literalNames(ro.set.src) {
				if !strings.Contains(scan, n.folded) {
					continue
				}
				d.trace("read-only.%s: %s writes %q, known only at run time, and the command names %s -> deny", ro.id, u.via, text, n.display)
				instead := ro.instead
				if instead == "" {
					instead = ro.desc + " is read-only."
				}
				return outcome{
					action:  Deny,
					rule:    "read-only." + ro.id,
					reason:  fmt.Sprintf("%s may not write %s in a command that names %s (rule read-only.%s)", who, what, n.display, ro.id),
					instead: instead,
				}
			}
		}
	}
	if d.on() {
		d.trace("%s writes %q, known only at run time; the command names no protected path", u.via, text)
	}
	return outcome{action: Allow}
}

// denyRuleOutcome is the answer of one of the role's deny (or ask) rules
// to writing what; context says why a command with unknown targets is
// caught (" in a command that names X"), "" for a named target.
func (p *Policy) denyRuleOutcome(r *role, dr denyRule, who, what, context string) outcome {
	instead := dr.instead
	if instead == "" {
		instead = r.cfg.Summary + "."
	}
	verb := "may not write"
	if dr.action == Ask {
		verb = "needs the user's approval to write"
	}
	return outcome{
		action:  dr.action,
		rule:    dr.id,
		reason:  fmt.Sprintf("%s %s %s%s (rule %s)", who, verb, what, context, dr.id),
		instead: instead,
	}
}

// globbedRel makes a path a glob expanded to project-relative and folded.
func (p *Policy) globbedRel(abs string, eff *effects) (string, string, bool) {
	if eff.root == "" {
		return "", "", false
	}
	rel, inside := relativeTo(eff.root, resolve(abs, eff.links))
	if !inside || rel == "." {
		return "", "", false
	}
	return rel, foldPath(rel), true
}

// stripQuotes removes what the shell would remove before a name reaches the
// file system (quotes, backslashes), so a protected name split by quotes in
// the command still reads as that name.
func stripQuotes(s string) string {
	return quoteStripper.Replace(s)
}

var quoteStripper = strings.NewReplacer(`'`, "", `"`, "", `\`, "", "\x00", " ")

func shorten(s string) string {
	s = strings.ReplaceAll(s, "\x00", "…")
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

func uniq(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	n := 0
	for i, s := range out {
		if i == 0 || s != out[n-1] {
			out[n] = s
			n++
		}
	}
	return out[:n]
}

func commandText(call []string) string {
	parts := make([]string, len(call))
	for i, c := range call {
		if c == "\x00" {
			c = "…"
		}
		parts[i] = c
	}
	return shorten(strings.Join(parts, " "))
}

// match reports whether an approval command matches argv: the program name
// equal, the other words in order among the arguments, "-x" also inside a
// cluster of short flags.
func (a *approvalRule) match(call []string) (string, bool) {
	if len(call) == 0 {
		return "", false
	}
	prog := programName(call[0])
	for _, cmd := range a.commands {
		if cmd[0] != prog {
			continue
		}
		k := 1
		for _, arg := range call[1:] {
			if k >= len(cmd) {
				break
			}
			if wordMatches(cmd[k], arg) {
				k++
			}
		}
		if k >= len(cmd) {
			return strings.Join(cmd, " "), true
		}
	}
	return "", false
}

func wordMatches(want, arg string) bool {
	if want == arg {
		return true
	}
	if len(want) == 2 && want[0] == '-' && want[1] != '-' {
		return len(arg) > 1 && arg[0] == '-' && arg[1] != '-' && strings.IndexByte(arg[1:], want[1]) >= 0
	}
	if strings.HasPrefix(want, "--") {
		return strings.HasPrefix(arg, want+"=")
	}
	return false
}

// Download is one file a call stores from the network.
type Download struct {
	URL  string // the URL fetched, "" when the command does not name it literally
	Path string // project-relative (absolute when outside the project), like Decision.Paths
	Abs  string // physical absolute path, for reading the file afterwards
}

// Downloads returns the files req stores from the network (curl -o, curl
// URL > file, wget, curl URL | tee f, urlretrieve and the like in inline
// code), so PostToolUse can record each one's URL and checksum once the
// call ran.
func Downloads(req Request) []Download {
	if req.ToolName != "Bash" {
		return nil // only the shell analysis finds downloads: a file tool's call has none to look for
	}
	root := resolvedRoot(req.ProjectRoot)
	cwd := requestCwd(req, root)
	eff := collect(req, root, cwd, homeDir())
	var out []Download
	seen := map[string]bool{}
	for _, rt := range eff.targets {
		if !rt.download {
			continue
		}
		t, ok := normalize(root, literalRoot(req.ProjectRoot), rt, eff.links)
		if !ok || seen[t.abs] {
			continue
		}
		seen[t.abs] = true
		out = append(out, Download{URL: rt.url, Path: t.rel, Abs: t.abs})
	}
	return out
}
