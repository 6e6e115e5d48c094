package permission

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/blueprints"
	"github.com/vibe-science/vibe/internal/filememo"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p, err := Load(dir)
	if err != nil || p != Default() {
		t.Fatalf("no project file: got %p, %v; want the default policy", p, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".vibe-science"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, ".vibe-science", "permissions.json")
	override := `{
		"mode": "team",
		"aliases": {"devil": "reviewer2", "r3": null},
		"read_only": {"raw-data": {"patterns": ["**/raw/**"]}},
		"approval": {"clone": null},
		"roles": {"experimenter": {"outside_root": true}}
	}`
	if err := os.WriteFile(file, []byte(override), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config()
	if !p.TeamMode() || p.Mode() != "team" {
		t.Errorf("mode: got %s", p.Mode())
	}
	if cfg.Aliases["devil"] != "reviewer2" || cfg.Aliases["r2"] != "reviewer2" {
		t.Errorf("aliases merge: got %v", cfg.Aliases)
	}
	if _, ok := cfg.Aliases["r3"]; ok {
		t.Errorf("null must delete alias r3: %v", cfg.Aliases)
	}
	if _, ok := cfg.Approval["clone"]; ok || len(cfg.Approval) != len(Default().Config().Approval)-1 {
		t.Errorf("null must delete approval clone: %v", cfg.Approval)
	}
	if got := cfg.ReadOnly["raw-data"]; !reflect.DeepEqual(got.Patterns, []string{"**/raw/**"}) || got.Instead == "" {
		t.Errorf("read_only merge: got %+v (patterns replaced, instead kept)", got)
	}
	exp := cfg.Roles["experimenter"]
	if !exp.OutsideRoot || len(exp.Deny) != 5 || exp.Summary == "" {
		t.Errorf("role merge: got %+v", exp)
	}
	if got := p.RoleFor("devil", true); got != "reviewer2" {
		t.Errorf("new alias: got %s", got)
	}
	if got := p.RoleFor("", true); got != "lead" {
		t.Errorf("team main thread: got %s", got)
	}

	if err := os.WriteFile(file, []byte(`{"mode": "team",`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := Load(dir); err == nil || p != nil {
		t.Fatalf("broken file: got %v, %v; want an error", p, err)
	}
}

// TestLoadKeepsThePolicyUntilTheFileChanges: the worker builds a project's
// policy once, and again as soon as the file changes, even to another text
// of the same length.
func TestLoadKeepsThePolicyUntilTheFileChanges(t *testing.T) {
	settle := filememo.Settle
	filememo.Settle = 0 // keep what this test just wrote
	t.Cleanup(func() { filememo.Settle = settle })
	dir := t.TempDir()
	file := filepath.Join(dir, ".vibe-science", "permissions.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	write := func(text string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write(`{"mode": "team"}`, t0)
	p1, err := Load(dir)
	if err != nil || !p1.TeamMode() {
		t.Fatalf("%v %v", p1, err)
	}
	if p2, err := Load(dir); err != nil || p2 != p1 {
		t.Errorf("unchanged file: built again (%p, %p) %v", p1, p2, err)
	}
	write(`{"mode": "solo"}`, t0.Add(time.Second))
	if p3, err := Load(dir); err != nil || p3 == p1 || p3.TeamMode() {
		t.Errorf("changed file: got the old policy (team mode %v) %v", p3.TeamMode(), err)
	}
	os.Remove(file)
	if p4, err := Load(dir); err != nil || p4 != Default() {
		t.Errorf("removed file: got %p %v, want the default", p4, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"mode": "duo"}`, `mode "duo": want "solo" or "team"`},
		{`{"modes": "team"}`, `unknown field "modes"`},
		{`{"aliases": {"x": "nobody"}}`, `alias "x": role "nobody" is not defined`},
		{`{"default_role": "researcher"}`, `default_role "researcher": an unknown agent must not get a main-thread role`},
		{`{"default_role": "ghost"}`, `default_role: role "ghost" is not defined`},
		{`{"protected": {"ledger": {"patterns": ["[Cc]LAIM.md"]}}}`, `character classes are not supported`},
		{`{"protected": {"ledger": {"patterns": []}}}`, `protected "ledger": no patterns`},
		{`{"roles": {"judge": {"deny": [{"id": "x", "protected": "nothing"}]}}}`, `protected set "nothing" is not defined`},
		{`{"roles": {"judge": {"deny": [{"id": "x", "patterns": ["a"], "action": "maybe"}]}}}`, `action "maybe": want deny or ask`},
		{`{"roles": {"Judge": {"tools": ["*"]}}}`, `names are lower case`},
		{`{"outside_root": {"allow": ["tmp/**"]}}`, `must be absolute`},
		{`{"approval": {"x": {"commands": ["pip install"]}}}`, `approval "x": reason is empty`},
		{`[1]`, `cannot unmarshal array`},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestRoleFor(t *testing.T) {
	p := Default()
	tests := []struct {
		agent string
		team  bool
		want  string
	}{
		{"", false, "researcher"},
		{"", true, "lead"},
		{"vibe:reviewer2", false, "reviewer2"},
		{"VIBE:Reviewer2", true, "reviewer2"},
		{"reviewer2", false, "reviewer2"},
		{"vibe:judge", false, "judge"},
		{"serendipity", false, "serendipity"},
		{"vibe:experimenter", false, "experimenter"},
		{"r2", false, "reviewer2"},
		{"vibe:r2", false, "reviewer2"},
		{"r3", false, "judge"},
		{"scanner", false, "serendipity"},
		{"other-plugin:reviewer2", false, "guest"},
		{"role-guard-test:reviewer2", false, "guest"},
		{"Explore", false, "guest"},
		{"general-purpose", true, "guest"},
		{"lead", true, "guest"},
		{"vibe:lead", false, "guest"},
		{"researcher", false, "guest"},
		{"vibe:researcher", false, "guest"},
		{"  vibe:judge  ", false, "judge"},
	}
	for _, tc := range tests {
		if got := p.RoleFor(tc.agent, tc.team); got != tc.want {
			t.Errorf("RoleFor(%q, %v) = %s, want %s", tc.agent, tc.team, got, tc.want)
		}
	}
}

func TestProtected(t *testing.T) {
	p := Default()
	tests := []struct {
		rel  string
		want bool
	}{
		{"CLAIM-LEDGER.md", true},
		{"claim-ledger.md", true},
		{"RQ-001/CLAIM-LEDGER.md", true},
		{"./CLAIM-LEDGER.md", true},
		{"CL\u0410IM-LEDGER.md", true},
		{"\uff23LAIM-LEDGER.md", true},
		{"CLAIM-LEDGER.md.bak", false},
		{"RQ-001/05-reviewer2/R2-001.yaml", true},
		{"RQ-001\\05-reviewer2\\R2-001.yaml", true},
		{"RQ-001/05-reviewer2x/R2-001.yaml", false},
		{"SERENDIPITY.md", true},
		{"SERENDIPITY.md.evil.py", false},
		{".vibe-science/schemas/a.json", true},
		{".vibe-science/permissions.json", true},
		{".claude/settings.json", true},
		{"FINDINGS.md", false},
		{"src/ledger.py", false},
	}
	for _, tc := range tests {
		if got := p.Protected(tc.rel); got != tc.want {
			t.Errorf("Protected(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}

func TestProtectedFor(t *testing.T) {
	p := Default()
	tests := []struct {
		role, rel string
		want      bool
	}{
		{"reviewer2", "CLAIM-LEDGER.md", true},
		{"reviewer2", "RQ-001/05-reviewer2/R2-001.yaml", false},
		{"reviewer2", "RQ-001/05-reviewer2/judge-reports/J.yaml", true},
		{"reviewer2", "src/x.py", true},
		{"judge", "RQ-001/05-reviewer2/R2-001.yaml", true},
		{"judge", "RQ-001/05-reviewer2/judge-reports/J.yaml", false},
		{"serendipity", "SERENDIPITY.md", false},
		{"serendipity", "claim-ledger.md", true},
		{"experimenter", "RQ-001/04-results/m.json", false},
		{"experimenter", "RQ-001/02-data/raw/c.csv", true},
		{"researcher", "CLAIM-LEDGER.md", false},
		{"researcher", "RQ-001/05-reviewer2/R2-001.yaml", true},
		{"researcher", ".vibe-science/permissions.json", false}, // ask, not deny
		{"researcher", "/etc/passwd", true},
		{"lead", "/etc/passwd", false},
		{"lead", "RQ-001/05-reviewer2/R2-001.yaml", false},
		{"nobody", "CLAIM-LEDGER.md", true}, // the default role
		{"nobody", "src/x.py", false},
	}
	for _, tc := range tests {
		if got := p.ProtectedFor(tc.role, tc.rel); got != tc.want {
			t.Errorf("ProtectedFor(%s, %q) = %v, want %v", tc.role, tc.rel, got, tc.want)
		}
	}
}

// TestMarshalJSON checks that a policy renders as the configuration it was
// built from and that the rendering parses back to the same policy.
func TestMarshalJSON(t *testing.T) {
	p, err := Parse([]byte(`{"mode": "team", "aliases": {"devil": "reviewer2"}}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"mode": "team"`) || !strings.Contains(string(raw), `"devil": "reviewer2"`) {
		t.Fatalf("rendering lacks the override:\n%s", raw)
	}
	back, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Config(), p.Config()) {
		t.Errorf("round trip changed the policy")
	}
	if got, want := p.Roles(), []string{"experimenter", "guest", "judge", "lead", "researcher", "reviewer2", "serendipity"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Roles() = %v, want %v", got, want)
	}
}

// TestDefaultFileIsReadable keeps the shipped policy valid and indented.
func TestDefaultFileIsReadable(t *testing.T) {
	raw, err := os.ReadFile("../../blueprints/permissions.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "\n  \"roles\": {\n") {
		t.Error("blueprints/permissions.json should stay indented for people to read")
	}
	if _, err := Parse([]byte(`{}`)); err != nil {
		t.Fatalf("the default policy must parse: %v", err)
	}
}

// TestLockedInstall: the plugin folder vibe runs from is locked for every
// role, the lead (who may write outside the project) included; without a
// known install folder the group is left out.
func TestLockedInstall(t *testing.T) {
	prj := newProject(t)
	install := toSlash(prj.out) + "/vibe"
	raw, err := fs.ReadFile(blueprints.FS, DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := decodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	tree["mode"] = ModeTeam
	p, err := fromTree(tree, places{home: homeDir(), vibeHome: vibeHomeDir(), install: install})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"cp $OUT/x.yaml " + install + "/bin/vibe-pre-tool-use",
		"rm -rf " + install,
		"echo '{}' > " + install + "/hooks.json",
	} {
		d := p.Check(prj.request("", "Bash", bash(cmd), ""))
		if d.Action != Deny || d.Rule != "locked.vibe-install" {
			t.Errorf("lead %q: got %s by %s (%s)", cmd, d.Action, d.Rule, d.Reason)
		}
	}
	if d := p.Check(prj.request("", "Bash", bash("echo x > $OUT/notes.txt"), "")); d.Action != Allow {
		t.Errorf("lead outside the install: got %s by %s", d.Action, d.Rule)
	}
	// A session in the checkout vibe runs from (its developers) keeps
	// working: the group binds only outside the project.
	dev, err := fromTree(tree, places{home: homeDir(), vibeHome: vibeHomeDir(), install: toSlash(prj.root)})
	if err != nil {
		t.Fatal(err)
	}
	if d := dev.Check(prj.request("", "Write", write("$ROOT/src/model.py"), "")); d.Action != Allow {
		t.Errorf("session inside the install folder: got %s by %s", d.Action, d.Rule)
	}
	q, err := fromTree(tree, places{home: homeDir(), vibeHome: vibeHomeDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ls := range q.locked {
		if ls.id == "vibe-install" {
			t.Errorf("without an install folder the group must be left out")
		}
	}
}
