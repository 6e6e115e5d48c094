package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gobwas/glob"
	"github.com/vibe-science/vibe/blueprints"
	"github.com/vibe-science/vibe/internal/filememo"
	"github.com/vibe-science/vibe/internal/vibehome"
)

// DefaultFile is the policy shipped in blueprints/, and ProjectFile the
// per-project override, relative to the project root.
const (
	DefaultFile = "permissions.json"
	ProjectFile = ".vibe-science/permissions.json"
)

// The modes a project can declare.
const (
	ModeSolo = "solo"
	ModeTeam = "team"
)

// Config is the readable form of a policy, as written in permissions.json.
// Patterns are anchored globs (gobwas/glob, '/' as separator) over
// project-relative paths: `*` stays inside one folder, `**` crosses folders,
// a leading `**/` also matches at the top, and `a/**/b` also matches `a/b`.
// Names compare case-insensitively and through the look-alike fold.
type Config struct {
	Version     int                 `json:"version"`
	Mode        string              `json:"mode"`
	Plugin      string              `json:"plugin"`
	MainRole    MainRole            `json:"main_role"`
	DefaultRole string              `json:"default_role"`
	Aliases     map[string]string   `json:"aliases,omitempty"`
	Protected   map[string]PathSet  `json:"protected"`
	ReadOnly    map[string]PathSet  `json:"read_only,omitempty"`
	Locked      map[string]PathSet  `json:"locked,omitempty"`
	Forbidden   map[string]Approval `json:"forbidden,omitempty"`
	OutsideRoot OutsideRoot         `json:"outside_root"`
	Approval    map[string]Approval `json:"approval,omitempty"`
	Roles       map[string]Role     `json:"roles"`
}

// MainRole names the role of the main thread (no agent_type) per mode.
type MainRole struct {
	Solo string `json:"solo"`
	Team string `json:"team"`
}

// PathSet is a named group of patterns.
type PathSet struct {
	Description string   `json:"description,omitempty"`
	Patterns    []string `json:"patterns"`
	Instead     string   `json:"instead,omitempty"`
}

// Locked paths are written by no role, whatever its other rules say:
// Claude Code's settings, hooks and plugins, vibe's installed plugin, and
// VIBE_HOME. A pattern is project-relative, or absolute, or starts with
// "~/" (the home folder), "$VIBE_HOME" (vibe's folder, default
// ~/.vibe-science) or "$VIBE_INSTALL" (the plugin folder vibe runs from; a
// group whose patterns all name a folder this host does not have is left
// out).
//
// Forbidden commands are refused for every role the way approval commands
// are asked (same matching); the shell analysis adds the signals a command
// sends to vibe's own processes to the "daemon" group.

// OutsideRoot lists the absolute patterns (a leading "~/" is the home
// folder) every role may write outside the project root.
type OutsideRoot struct {
	Allow   []string `json:"allow,omitempty"`
	Instead string   `json:"instead,omitempty"`
}

// Approval is a group of commands that need the user's approval. A command
// is a program name followed by words that must appear, in order, among its
// arguments; "-x" also matches inside a cluster of short flags ("-fsSLo").
type Approval struct {
	Reason   string   `json:"reason"`
	Commands []string `json:"commands"`
}

// Role is what one role may do.
type Role struct {
	Summary        string     `json:"summary"`
	Tools          []string   `json:"tools"`
	Bash           *BashRule  `json:"bash,omitempty"`
	OutsideRoot    bool       `json:"outside_root,omitempty"`
	ReadOnlyExempt bool       `json:"read_only_exempt,omitempty"`
	WriteOnly      *WriteOnly `json:"write_only,omitempty"`
	Deny           []DenyRule `json:"deny,omitempty"`
}

// BashRule narrows the Bash tool: Write false forbids any write through the
// shell; Programs, when present, lists the only programs the role may run.
type BashRule struct {
	Write    *bool    `json:"write,omitempty"`
	Programs []string `json:"programs,omitempty"`
}

// WriteOnly confines a role's writes to its patterns.
type WriteOnly struct {
	Patterns []string `json:"patterns"`
	Instead  string   `json:"instead"`
}

// DenyRule forbids (or, with action "ask", asks before) writes to the
// paths of a protected set or to its own patterns, minus Except.
type DenyRule struct {
	ID        string   `json:"id"`
	Protected string   `json:"protected,omitempty"`
	Patterns  []string `json:"patterns,omitempty"`
	Except    []string `json:"except,omitempty"`
	Action    Action   `json:"action,omitempty"`
	Instead   string   `json:"instead"`
}

// Policy is a compiled permission policy. It is immutable and safe for
// concurrent use; build it with Load or Default.
type Policy struct {
	cfg         Config
	home        string
	vibeHome    string
	install     string // vibe's installed plugin folder, "" when not known
	mainSolo    string
	mainTeam    string
	defaultRole string
	plugin      string
	aliases     map[string]string
	protected   []namedSet
	readOnly    []namedSet
	locked      []lockedSet
	outside     patternSet
	approvals   []approvalRule
	forbidden   []approvalRule
	roles       map[string]*role

	roots sync.Map // literal project root -> resolved root
}

type namedSet struct {
	id      string
	desc    string
	instead string
	set     patternSet
	names   []literalName // the literal paths its patterns name
}

// lockedSet is a locked group: rel matches project-relative paths, abs
// physical absolute ones (folded both).
type lockedSet struct {
	id          string
	desc        string
	instead     string
	rel         patternSet
	abs         patternSet
	names       []literalName
	outsideOnly bool // applies only to paths outside the project
}

type role struct {
	name      string
	cfg       Role
	anyTool   bool
	tools     map[string]bool
	toolGlobs []glob.Glob
	programs  map[string]bool // nil: any program
	bashWrite bool
	writeOnly *patternSet
	deny      []denyRule
}

type denyRule struct {
	id      string // full id, "reviewer2.deny.ledger"
	action  Action
	instead string
	set     patternSet
	except  patternSet
	names   []literalName // for scanning commands whose targets are unknown
}

// literalName is the literal path a pattern protects, folded for the scan
// and as written for messages.
type literalName struct {
	folded, display string
}

type approvalRule struct {
	id       string
	group    string // the key in the configuration ("download")
	reason   string
	commands [][]string
}

// patternSet is a compiled list of folded patterns.
type patternSet struct {
	src      []string
	globs    []glob.Glob
	prefixes []string // the literal folder each pattern starts with, folded
	anywhere []bool   // per glob: its pattern starts with "**/"
}

// agentDirs are the folders where coding agents keep their configuration.
var agentDirs = setOf(".claude", ".codex", ".cursor", ".gemini", ".windsurf", ".continue", ".aider", ".github")

// inAgentConfig reports whether a folded project-relative path lies in an
// agent configuration folder (at any depth) or is .mcp.json.
func inAgentConfig(folded string) bool {
	for _, c := range strings.Split(folded, "/") {
		if agentDirs[c] || c == ".mcp.json" {
			return true
		}
	}
	return false
}

// matchConfined is match for a write_only area: a pattern that starts
// with "**/" matches at any depth except inside agent configuration, so
// "**/05-reviewer2/**" does not open .claude/skills/05-reviewer2/.
func (s *patternSet) matchConfined(folded string) bool {
	agent := inAgentConfig(folded)
	for i, g := range s.globs {
		if agent && s.anywhere[i] {
			continue
		}
		if g.Match(folded) {
			return true
		}
	}
	return false
}

func (s *patternSet) match(folded string) bool {
	for _, g := range s.globs {
		if g.Match(folded) {
			return true
		}
	}
	return false
}

func (s *patternSet) empty() bool { return len(s.globs) == 0 }

// holdsUnder reports whether some pattern's literal folder lies under the
// folded folder dir, so removing or replacing dir would touch what the
// pattern names ("~/.claude/settings*.json" lies under "~/.claude").
func (s *patternSet) holdsUnder(dir string) bool {
	dir = strings.TrimSuffix(dir, "/")
	for _, pre := range s.prefixes {
		if dir == "" || pre == dir || strings.HasPrefix(pre, dir+"/") {
			return true
		}
	}
	return false
}

// heldUnder is, for a folder dir that holdsUnder, "anything inside" the
// first pattern's literal folder that lies under dir.
func (s *patternSet) heldUnder(dir string) string {
	dir = strings.TrimSuffix(dir, "/")
	for _, pre := range s.prefixes {
		if dir == "" || pre == dir || strings.HasPrefix(pre, dir+"/") {
			return join2(pre, probe)
		}
	}
	return ""
}

var (
	defaultOnce sync.Once
	defaultRaw  map[string]any
	defaultErr  error
)

func embeddedDefault() (map[string]any, error) {
	defaultOnce.Do(func() {
		raw, err := fs.ReadFile(blueprints.FS, DefaultFile)
		if err != nil {
			defaultErr = fmt.Errorf("read default permissions: %w", err)
			return
		}
		defaultRaw, defaultErr = decodeTree(raw)
		if defaultErr != nil {
			defaultErr = fmt.Errorf("parse default permissions: %w", defaultErr)
		}
	})
	return defaultRaw, defaultErr
}

var (
	defaultPolicyOnce sync.Once
	defaultPolicy     *Policy
)

// Default returns the policy shipped in blueprints/permissions.json. The
// file is embedded and checked by the tests, so a failure here is a broken
// build, not a runtime condition.
func Default() *Policy {
	defaultPolicyOnce.Do(func() {
		raw, err := fs.ReadFile(blueprints.FS, DefaultFile)
		if err == nil {
			defaultPolicy, err = fromBytes(raw, hostPlaces())
		}
		if err != nil {
			panic("permission: embedded default policy is invalid: " + err.Error())
		}
	})
	return defaultPolicy
}

// Load returns the default policy merged with <projectRoot>/.vibe-science/
// permissions.json when that file exists. Objects merge key by key (a null
// value removes the key); lists and scalars replace. A file that cannot be
// read or is invalid is an error: the caller reports it and falls back to
// Default, which keeps every protected path protected.
//
// A policy is read-only once built, so the resident worker keeps each
// project's by file and builds it again only when the file's modification
// time or size changes (building one costs about 0.3 ms, on every event).
func Load(projectRoot string) (*Policy, error) {
	path := filepath.Join(projectRoot, filepath.FromSlash(ProjectFile))
	p, err := projectPolicies.Load(path, Parse)
	var read *filememo.ReadError
	if errors.As(err, &read) {
		if errors.Is(read.Err, fs.ErrNotExist) {
			return Default(), nil
		}
		return nil, fmt.Errorf("read %s: %w", path, read.Err)
	}
	return p, err
}

// projectPolicies keeps the policy built from each project's file.
var projectPolicies filememo.Memo[*Policy]

// Parse builds a policy from a project override (the same shape as the
// default file, any subset of it) merged onto the default.
func Parse(project []byte) (*Policy, error) {
	base, err := embeddedDefault()
	if err != nil {
		return nil, err
	}
	over, err := decodeTree(project)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", ProjectFile, err)
	}
	merged := merge(deepCopy(base), over)
	p, err := fromTree(merged, hostPlaces())
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", ProjectFile, err)
	}
	return p, nil
}

func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return toSlash(h)
}

// vibeHomeDir is VIBE_HOME as vibehome resolves it for this process (the
// worker runs with the user's environment).
func vibeHomeDir() string {
	return toSlash(vibehome.Resolve(os.Getenv).Home)
}

// places are the folders outside the project that locked patterns name.
type places struct {
	home, vibeHome, install string
}

func hostPlaces() places {
	return places{home: homeDir(), vibeHome: vibeHomeDir(), install: installDir()}
}

// installDir is the plugin folder vibe runs from: CLAUDE_PLUGIN_ROOT when
// it holds vibe's hooks.json, else the parent of the running binary's bin/
// folder when that holds one. "" when neither (tests, a go run).
func installDir() string {
	isVibe := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "hooks.json"))
		return err == nil
	}
	if dir := os.Getenv("CLAUDE_PLUGIN_ROOT"); dir != "" && filepath.IsAbs(dir) && isVibe(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return toSlash(real)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	bin := filepath.Dir(exe)
	if filepath.Base(bin) == "bin" && isVibe(filepath.Dir(bin)) {
		return toSlash(filepath.Dir(bin))
	}
	return ""
}

func decodeTree(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if tree == nil {
		return nil, errors.New("the policy must be a JSON object")
	}
	return tree, nil
}

func deepCopy(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		if m, ok := x.(map[string]any); ok {
			out[k] = deepCopy(m)
			continue
		}
		out[k] = x
	}
	return out
}

// merge lays over onto base: objects merge recursively, null deletes,
// everything else replaces.
func merge(base, over map[string]any) map[string]any {
	for k, v := range over {
		if v == nil {
			delete(base, k)
			continue
		}
		if om, ok := v.(map[string]any); ok {
			if bm, ok := base[k].(map[string]any); ok {
				base[k] = merge(bm, om)
				continue
			}
		}
		base[k] = v
	}
	return base
}

func fromTree(tree map[string]any, pl places) (*Policy, error) {
	raw, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	return fromBytes(raw, pl)
}

func fromBytes(raw []byte, pl places) (*Policy, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, err
	}
	return compile(cfg, pl)
}

// compile validates cfg and compiles every pattern once.
func compile(cfg Config, pl places) (*Policy, error) {
	home := pl.home
	if cfg.Mode == "" {
		cfg.Mode = ModeSolo
	}
	if cfg.Mode != ModeSolo && cfg.Mode != ModeTeam {
		return nil, fmt.Errorf("mode %q: want %q or %q", cfg.Mode, ModeSolo, ModeTeam)
	}
	p := &Policy{
		cfg:         cfg,
		home:        home,
		vibeHome:    strings.TrimSuffix(pl.vibeHome, "/"),
		install:     strings.TrimSuffix(pl.install, "/"),
		mainSolo:    strings.ToLower(cfg.MainRole.Solo),
		mainTeam:    strings.ToLower(cfg.MainRole.Team),
		defaultRole: strings.ToLower(cfg.DefaultRole),
		plugin:      strings.ToLower(cfg.Plugin),
		aliases:     make(map[string]string, len(cfg.Aliases)),
		roles:       make(map[string]*role, len(cfg.Roles)),
	}
	for name := range cfg.Roles {
		if name != strings.ToLower(name) || strings.ContainsAny(name, ": ") {
			return nil, fmt.Errorf("role %q: names are lower case without ':' or spaces", name)
		}
	}
	for _, r := range []struct{ what, name string }{
		{"main_role.solo", p.mainSolo}, {"main_role.team", p.mainTeam}, {"default_role", p.defaultRole},
	} {
		if _, ok := cfg.Roles[r.name]; !ok {
			return nil, fmt.Errorf("%s: role %q is not defined", r.what, r.name)
		}
	}
	if p.defaultRole == p.mainSolo || p.defaultRole == p.mainTeam {
		return nil, fmt.Errorf("default_role %q: an unknown agent must not get a main-thread role", p.defaultRole)
	}
	for k, v := range cfg.Aliases {
		v = strings.ToLower(v)
		if _, ok := cfg.Roles[v]; !ok {
			return nil, fmt.Errorf("alias %q: role %q is not defined", k, v)
		}
		p.aliases[strings.ToLower(k)] = v
	}

	var err error
	if p.protected, err = compileSets("protected", cfg.Protected); err != nil {
		return nil, err
	}
	if p.readOnly, err = compileSets("read_only", cfg.ReadOnly); err != nil {
		return nil, err
	}
	outside := make([]string, 0, len(cfg.OutsideRoot.Allow))
	for _, pat := range cfg.OutsideRoot.Allow {
		pat = toSlash(pat)
		if strings.HasPrefix(pat, "~/") {
			if home == "" {
				continue // no home folder: the pattern cannot match anything
			}
			pat = strings.TrimSuffix(home, "/") + pat[1:]
		}
		if !isAbs(pat) {
			return nil, fmt.Errorf("outside_root.allow %q: the pattern must be absolute or start with ~/", pat)
		}
		outside = append(outside, physicalPattern(pat))
	}
	if p.outside, err = compilePatterns(outside); err != nil {
		return nil, fmt.Errorf("outside_root.allow: %w", err)
	}

	if p.locked, err = p.compileLocked(cfg.Locked); err != nil {
		return nil, err
	}
	if p.approvals, err = compileCommands("approval", cfg.Approval); err != nil {
		return nil, err
	}
	if p.forbidden, err = compileCommands("forbidden", cfg.Forbidden); err != nil {
		return nil, err
	}

	for name, rc := range cfg.Roles {
		r, err := p.compileRole(name, rc)
		if err != nil {
			return nil, err
		}
		p.roles[name] = r
	}
	return p, nil
}

func compileCommands(what string, groups map[string]Approval) ([]approvalRule, error) {
	var out []approvalRule
	for _, id := range sortedKeys(groups) {
		a := groups[id]
		rule := approvalRule{id: what + "." + id, group: id, reason: a.Reason}
		if a.Reason == "" {
			return nil, fmt.Errorf("%s %q: reason is empty", what, id)
		}
		for _, c := range a.Commands {
			words := strings.Fields(c)
			if len(words) == 0 {
				return nil, fmt.Errorf("%s %q: empty command", what, id)
			}
			words[0] = programName(words[0])
			rule.commands = append(rule.commands, words)
		}
		out = append(out, rule)
	}
	return out, nil
}

// compileLocked splits each locked group into project-relative and
// absolute patterns, with "~/" and "$VIBE_HOME" expanded.
func (p *Policy) compileLocked(sets map[string]PathSet) ([]lockedSet, error) {
	var out []lockedSet
	for _, id := range sortedKeys(sets) {
		s := sets[id]
		ls := lockedSet{id: id, desc: s.Description, instead: s.Instead}
		var rel, abs, scan []string
		vibe := false
		unknown := 0 // patterns under a folder this host does not have
		for _, pat := range s.Patterns {
			pat = toSlash(pat)
			switch {
			case strings.HasPrefix(pat, "~/"):
				scan = append(scan, pat)
				if p.home == "" {
					continue
				}
				pat = strings.TrimSuffix(p.home, "/") + pat[1:]
			case pat == "$VIBE_HOME" || strings.HasPrefix(pat, "$VIBE_HOME/"):
				if p.vibeHome == "" {
					unknown++
					continue
				}
				pat = p.vibeHome + pat[len("$VIBE_HOME"):]
				vibe = true
			case pat == "$VIBE_INSTALL" || strings.HasPrefix(pat, "$VIBE_INSTALL/"):
				if p.install == "" {
					unknown++
					continue
				}
				pat = p.install + pat[len("$VIBE_INSTALL"):]
				// Only outside the project: a developer may run a session
				// in the checkout vibe is installed from.
				ls.outsideOnly = true
			case !isAbs(pat):
				rel = append(rel, pat)
				scan = append(scan, pat)
				continue
			}
			abs = append(abs, physicalPattern(pat))
		}
		var err error
		if ls.rel, err = compilePatterns(rel); err != nil {
			return nil, fmt.Errorf("locked %q: %w", id, err)
		}
		if ls.abs, err = compilePatterns(abs); err != nil {
			return nil, fmt.Errorf("locked %q: %w", id, err)
		}
		if ls.rel.empty() && ls.abs.empty() {
			if unknown > 0 && unknown == len(s.Patterns) {
				continue // e.g. no installed plugin folder here
			}
			return nil, fmt.Errorf("locked %q: no patterns", id)
		}
		ls.names = append(ls.names, lockedNames(scan)...)
		if vibe {
			ls.names = append(ls.names, p.vibeHomeNames()...)
		}
		out = append(out, ls)
	}
	return out, nil
}

// lockedNames are the literal parts of locked patterns a command is
// scanned for when its targets are unknown: the folder and file names
// after "~/" or the home prefix ("~/.claude/settings*.json" ->
// ".claude/settings").
func lockedNames(pats []string) []literalName {
	var out []literalName
	seen := map[string]bool{}
	for _, pat := range pats {
		pat = strings.TrimPrefix(strings.TrimPrefix(pat, "~/"), "**/")
		if strings.HasPrefix(pat, ".vibe-science") {
			continue // the project's own research folder has the same name
		}
		if i := strings.IndexAny(pat, "*?{"); i >= 0 {
			pat = pat[:i]
		}
		pat = strings.TrimSuffix(pat, "/")
		if len(pat) < 5 || seen[pat] {
			continue
		}
		seen[pat] = true
		out = append(out, literalName{folded: fold(pat), display: pat})
	}
	return out
}

// vibeHomeNames are the spellings of VIBE_HOME a command may use, and the
// names of the files in it a command would go after.
func (p *Policy) vibeHomeNames() []literalName {
	names := []string{p.vibeHome, "$VIBE_HOME", "${VIBE_HOME", "worker.sock", "worker.pid", "worker.lock", "vibe-science.db"}
	if h := strings.TrimSuffix(p.home, "/"); h != "" && strings.HasPrefix(p.vibeHome, h+"/") {
		rest := p.vibeHome[len(h):]
		names = append(names, "~"+rest, "$HOME"+rest, "${HOME}"+rest)
	}
	var out []literalName
	for _, n := range names {
		out = append(out, literalName{folded: fold(n), display: n})
	}
	return out
}

// physicalPattern resolves the literal folder a pattern starts with, since
// paths are compared after their symlinks are resolved (/tmp is
// /private/tmp on macOS; a home folder may be a link).
func physicalPattern(pat string) string {
	meta := strings.IndexAny(pat, "*?{[")
	if meta < 0 {
		meta = len(pat)
	}
	cut := strings.LastIndexByte(pat[:meta], '/')
	if cut <= 0 {
		return pat
	}
	return strings.TrimSuffix(resolve(cleanAbs(pat[:cut]), nil), "/") + pat[cut:]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func compileSets(what string, sets map[string]PathSet) ([]namedSet, error) {
	out := make([]namedSet, 0, len(sets))
	for _, id := range sortedKeys(sets) {
		s := sets[id]
		ps, err := compilePatterns(s.Patterns)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", what, id, err)
		}
		if ps.empty() {
			return nil, fmt.Errorf("%s %q: no patterns", what, id)
		}
		out = append(out, namedSet{id: id, desc: s.Description, instead: s.Instead, set: ps, names: literalNames(s.Patterns)})
	}
	return out, nil
}

// compilePatterns folds and compiles patterns, adding the variants that give
// `**/` its "zero or more folders" meaning.
func compilePatterns(pats []string) (patternSet, error) {
	ps := patternSet{src: pats}
	for _, pat := range pats {
		pat = toSlash(pat)
		if strings.Contains(pat, "[") {
			return ps, fmt.Errorf("pattern %q: character classes are not supported (paths are compared folded); use {a,b}", pat)
		}
		if pat == "" {
			return ps, errors.New("empty pattern")
		}
		lit := foldPath(pat)
		if i := strings.IndexAny(lit, "*?{"); i >= 0 {
			lit = lit[:i]
			if j := strings.LastIndexByte(lit, '/'); j >= 0 {
				lit = lit[:j]
			} else {
				lit = ""
			}
		}
		if lit != "" {
			ps.prefixes = append(ps.prefixes, strings.TrimSuffix(lit, "/"))
		}
		for _, v := range patternVariants(foldPath(pat)) {
			g, err := compileGlob(v)
			if err != nil {
				return ps, fmt.Errorf("pattern %q: %w", pat, err)
			}
			ps.globs = append(ps.globs, g)
			ps.anywhere = append(ps.anywhere, strings.HasPrefix(pat, "**/"))
		}
	}
	return ps, nil
}

// globCache shares compiled patterns between policies and roles: the same
// few patterns (the ledger, the reviews) appear in most roles, and a
// compiled glob is immutable.
var globCache sync.Map

func compileGlob(pat string) (glob.Glob, error) {
	if g, ok := globCache.Load(pat); ok {
		return g.(glob.Glob), nil
	}
	g, err := glob.Compile(pat, '/')
	if err != nil {
		return nil, err
	}
	globCache.Store(pat, g)
	return g, nil
}

func patternVariants(pat string) []string {
	vs := []string{pat}
	if strings.HasPrefix(pat, "**/") {
		vs = append(vs, pat[3:])
	}
	// Each "/**/" may also stand for a single '/'.
	for i := 0; i < len(vs) && len(vs) < 8; i++ {
		if j := strings.Index(vs[i], "/**/"); j >= 0 {
			vs = append(vs, vs[i][:j]+vs[i][j+3:])
		}
	}
	return vs
}

func (p *Policy) compileRole(name string, rc Role) (*role, error) {
	r := &role{name: name, cfg: rc, tools: map[string]bool{}, bashWrite: true}
	for _, t := range rc.Tools {
		switch {
		case t == "*":
			r.anyTool = true
		case strings.ContainsAny(t, "*?{"):
			g, err := glob.Compile(t)
			if err != nil {
				return nil, fmt.Errorf("role %s: tool pattern %q: %w", name, t, err)
			}
			r.toolGlobs = append(r.toolGlobs, g)
		default:
			r.tools[t] = true
		}
	}
	if rc.Bash != nil {
		if rc.Bash.Write != nil {
			r.bashWrite = *rc.Bash.Write
		}
		if rc.Bash.Programs != nil {
			r.programs = make(map[string]bool, len(rc.Bash.Programs))
			for _, prog := range rc.Bash.Programs {
				r.programs[programName(prog)] = true
			}
		}
	}
	if rc.WriteOnly != nil {
		ws, err := compilePatterns(rc.WriteOnly.Patterns)
		if err != nil {
			return nil, fmt.Errorf("role %s: write_only: %w", name, err)
		}
		if ws.empty() {
			return nil, fmt.Errorf("role %s: write_only has no patterns", name)
		}
		r.writeOnly = &ws
	}
	seen := map[string]bool{}
	for _, d := range rc.Deny {
		if d.ID == "" || seen[d.ID] {
			return nil, fmt.Errorf("role %s: deny rule id %q is empty or repeated", name, d.ID)
		}
		seen[d.ID] = true
		action := d.Action
		switch action {
		case "":
			action = Deny
		case Deny, Ask:
		default:
			return nil, fmt.Errorf("role %s: deny rule %s: action %q: want deny or ask", name, d.ID, d.Action)
		}
		pats := append([]string(nil), d.Patterns...)
		if d.Protected != "" {
			set, ok := p.cfg.Protected[d.Protected]
			if !ok {
				return nil, fmt.Errorf("role %s: deny rule %s: protected set %q is not defined", name, d.ID, d.Protected)
			}
			pats = append(pats, set.Patterns...)
		}
		set, err := compilePatterns(pats)
		if err != nil {
			return nil, fmt.Errorf("role %s: deny rule %s: %w", name, d.ID, err)
		}
		if set.empty() {
			return nil, fmt.Errorf("role %s: deny rule %s has no patterns", name, d.ID)
		}
		except, err := compilePatterns(d.Except)
		if err != nil {
			return nil, fmt.Errorf("role %s: deny rule %s: except: %w", name, d.ID, err)
		}
		r.deny = append(r.deny, denyRule{
			id:      name + ".deny." + d.ID,
			action:  action,
			instead: d.Instead,
			set:     set,
			except:  except,
			names:   literalNames(pats),
		})
	}
	return r, nil
}

// literalNames extracts, from each pattern, the literal path it protects
// ("**/CLAIM-LEDGER.md" -> "claim-ledger.md", "**/05-reviewer2/**" ->
// "o5-revlewer2", folded), used to scan commands whose targets are unknown.
func literalNames(pats []string) []literalName {
	var out []literalName
	for _, pat := range pats {
		pat = strings.TrimPrefix(toSlash(pat), "**/")
		pat = strings.TrimSuffix(pat, "/**")
		if pat == "" || strings.ContainsAny(pat, "*?{}[]") {
			continue
		}
		out = append(out, literalName{folded: fold(pat), display: pat})
	}
	return out
}

// MarshalJSON renders the policy as the readable configuration it was built
// from (the default merged with the project's file).
func (p *Policy) MarshalJSON() ([]byte, error) {
	return json.Marshal(p.cfg)
}

// Config returns a copy of the configuration the policy was built from.
func (p *Policy) Config() Config {
	raw, _ := json.Marshal(p.cfg)
	var c Config
	_ = json.Unmarshal(raw, &c)
	return c
}

// Mode returns "solo" or "team".
func (p *Policy) Mode() string { return p.cfg.Mode }

// TeamMode reports whether the project declared TEAM mode.
func (p *Policy) TeamMode() bool { return p.cfg.Mode == ModeTeam }

// Roles returns the role names, sorted.
func (p *Policy) Roles() []string { return sortedKeys(p.cfg.Roles) }
