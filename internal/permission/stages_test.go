package permission

import (
	"reflect"
	"strings"
	"testing"
)

// stageRun runs one stage of the decision on a call of the standard
// project and returns what the stage decided: the first deny, else the
// first ask, else allow with no rule.
func stageRun(t *testing.T, prj project, agent, tool string, input any,
	stage func(p *Policy, r *role, who string, c *normalised, d *decision)) (Action, string) {
	t.Helper()
	p := Default()
	req := prj.request(agent, tool, input, "")
	var tr []string
	d := &decision{tr: &tr}
	r, who := p.roleOf(req, d)
	stage(p, r, who, p.normalise(req), d)
	switch {
	case d.deny != nil:
		return Deny, d.deny.rule
	case d.ask != nil:
		return Ask, d.ask.rule
	}
	return Allow, ""
}

type stageCase struct {
	agent, tool string
	input       any
	want        Action
	rule        string
}

func runStageCases(t *testing.T, cases []stageCase, stage func(p *Policy, r *role, who string, c *normalised, d *decision)) {
	t.Helper()
	prj := newProject(t)
	for _, c := range cases {
		got, rule := stageRun(t, prj, c.agent, c.tool, c.input, stage)
		if got != c.want || rule != c.rule {
			t.Errorf("%s %s %v: got %s %q, want %s %q", c.agent, c.tool, c.input, got, rule, c.want, c.rule)
		}
	}
}

func TestRoleOf(t *testing.T) {
	p := Default()
	tests := []struct {
		agent, override string
		role, who       string
	}{
		{"", "", "researcher", "researcher"},
		{"vibe:reviewer2", "", "reviewer2", "reviewer2"},
		{"Explore", "", "guest", "guest (agent Explore)"},
		{"other-plugin:reviewer2", "", "guest", "guest (agent other-plugin:reviewer2)"},
		{"", "Judge", "judge", "judge"},
		{"", "no-such-role", "guest", "guest"},
	}
	for _, tc := range tests {
		var tr []string
		r, who := p.roleOf(Request{AgentType: tc.agent, Role: tc.override}, &decision{tr: &tr})
		if r.name != tc.role || who != tc.who {
			t.Errorf("agent %q role %q: got %s / %q, want %s / %q", tc.agent, tc.override, r.name, who, tc.role, tc.who)
		}
		if len(tr) != 1 || !strings.HasPrefix(tr[0], "role: ") {
			t.Errorf("agent %q: trace %q, want one role line", tc.agent, tr)
		}
	}
}

func TestJudgeTool(t *testing.T) {
	p := Default()
	tests := []struct {
		agent, tool string
		ok          bool
	}{
		{"vibe:serendipity", "Bash", false},
		{"vibe:serendipity", "Write", true},
		{"vibe:reviewer2", "NotebookEdit", false},
		{"Explore", "mcp__fs__write_file", true}, // guest: any tool
	}
	for _, tc := range tests {
		d := &decision{}
		r, who := p.roleOf(Request{AgentType: tc.agent}, d)
		if ok := p.judgeTool(r, who, tc.tool, d); ok != tc.ok {
			t.Errorf("%s %s: got %v, want %v", tc.agent, tc.tool, ok, tc.ok)
		}
		if !tc.ok && (d.deny == nil || d.deny.rule != r.name+".tools") {
			t.Errorf("%s %s: refused without the %s.tools rule: %+v", tc.agent, tc.tool, r.name, d.deny)
		}
		if tc.ok && d.deny != nil {
			t.Errorf("%s %s: allowed but denied by %s", tc.agent, tc.tool, d.deny.rule)
		}
	}
}

func TestNormalise(t *testing.T) {
	prj := newProject(t)
	p := Default()
	tests := []struct {
		tool  string
		input any
		paths []string
		bash  bool
	}{
		{"Write", write("$ROOT/FINDINGS.md"), []string{"FINDINGS.md"}, false},
		// A symlink is resolved: notes.md leads to the ledger.
		{"Edit", write("$ROOT/notes.md"), []string{"CLAIM-LEDGER.md"}, false},
		{"Bash", bash("cd RQ-001 && echo x > 04-results/a.txt 2>/dev/null; tee -a ../FINDINGS.md < x"),
			[]string{"RQ-001/04-results/a.txt", "FINDINGS.md"}, true},
		// A link's target is not a file the call writes; the link is.
		{"Bash", bash("ln -s CLAIM-LEDGER.md l"), []string{"l"}, true},
		{"Bash", bash("ls -la; cat FINDINGS.md"), nil, true},
		{"Read", write("$ROOT/FINDINGS.md"), nil, false},
	}
	for _, tc := range tests {
		c := p.normalise(prj.request("", tc.tool, tc.input, ""))
		if !reflect.DeepEqual(c.paths, tc.paths) || c.bash != tc.bash {
			t.Errorf("%s %v: got paths %q bash %v, want %q %v", tc.tool, tc.input, c.paths, c.bash, tc.paths, tc.bash)
		}
	}
}

func TestJudgeRole(t *testing.T) {
	stage := func(p *Policy, r *role, who string, c *normalised, d *decision) { p.judgeRole(r, who, c, d) }
	runStageCases(t, []stageCase{
		{"vibe:judge", "Bash", bash("ls | python3 x.py"), Deny, "judge.bash.programs"},
		{"vibe:judge", "Bash", bash("echo 7 > RQ-001/05-reviewer2/judge-reports/J-002.yaml"), Deny, "judge.bash.write"},
		{"vibe:judge", "Bash", bash("git stash"), Deny, "judge.bash.write"}, // the repository counts
		{"vibe:judge", "Bash", bash("ls -la | grep x > /dev/null"), Allow, ""},
		{"vibe:reviewer2", "Bash", bash("rm RQ-001/05-reviewer2/R2-001.yaml"), Allow, ""},
		// Paths are not this stage's business.
		{"vibe:experimenter", "Bash", bash("echo x > CLAIM-LEDGER.md"), Allow, ""},
		{"vibe:judge", "Write", write("$ROOT/src/x.py"), Allow, ""},
	}, stage)
}

func TestJudgePaths(t *testing.T) {
	stage := func(p *Policy, r *role, who string, c *normalised, d *decision) { p.judgePaths(r, who, c, d) }
	runStageCases(t, []stageCase{
		{"", "Write", write("$ROOT/CLAIM-LEDGER.md"), Allow, ""},
		{"vibe:experimenter", "Write", write("$ROOT/CLAIM-LEDGER.md"), Deny, "experimenter.deny.ledger"},
		{"vibe:experimenter", "Write", write("$ROOT/notes.md"), Deny, "experimenter.deny.ledger"},
		{"", "Write", write("$ROOT/RQ-001/02-data/raw/counts.csv"), Deny, "read-only.raw-data"},
		{"", "Write", write("$ROOT/.vibe-science/permissions.json"), Ask, "researcher.deny.policy"},
		{"", "Write", write("~/.claude/settings.json"), Deny, "locked.agent-settings"},
		{"vibe:experimenter", "Write", write("/etc/vibe"), Deny, "experimenter.outside-root"},
		{"vibe:reviewer2", "Write", write("$ROOT/src/x.py"), Deny, "reviewer2.write-only"},
		{"vibe:reviewer2", "Write", write("$ROOT/RQ-001/05-reviewer2/R2-002.yaml"), Allow, ""},
		{"vibe:experimenter", "Bash", bash("rm -rf RQ-001/02-data"), Deny, "read-only.raw-data"},
		// bzip2 is looked up as "bzip": it replaces the raw file (it was opaque).
		{"vibe:experimenter", "Bash", bash("bzip2 RQ-001/02-data/raw/counts.csv"), Deny, "read-only.raw-data"},
		{"vibe:reviewer2", "Bash", bash("git commit -m x"), Deny, "reviewer2.write-only"}, // across the repository
		{"vibe:experimenter", "Bash", bash("git stash"), Deny, "locked.agent-settings"},   // the tree holds .claude/
		// Unknown targets are the next stage's.
		{"vibe:reviewer2", "Bash", bash("echo x > $DEST"), Allow, ""},
	}, stage)
}

func TestJudgeUnknown(t *testing.T) {
	stage := func(p *Policy, r *role, who string, c *normalised, d *decision) { p.judgeUnknown(r, who, c, d) }
	runStageCases(t, []stageCase{
		{"vibe:experimenter", "Bash", bash("python3 w.py CLAIM-LEDGER.md"), Deny, "experimenter.deny.ledger"},
		{"vibe:experimenter", "Bash", bash("python3 w.py RQ-001/04-results"), Allow, ""},
		{"vibe:experimenter", "Bash", bash("F=$(cat f); echo x > $F # CLAIM-LEDGER.md"), Deny, "experimenter.deny.ledger"},
		{"vibe:reviewer2", "Bash", bash("echo x > $DEST"), Deny, "reviewer2.write-only"},
		{"vibe:reviewer2", "Bash", bash("make"), Deny, "reviewer2.write-only"},
		{"Explore", "Bash", bash("echo x > README.md ("), Deny, "guest.unparsed"},
		{"", "Bash", bash("echo x > README.md ("), Allow, ""}, // the researcher gets the benefit of the doubt
		{"vibe:experimenter", "Bash", bash("echo x > RQ-001/04-results/a"), Allow, ""},
	}, stage)
}

func TestJudgeCommands(t *testing.T) {
	stage := func(p *Policy, r *role, who string, c *normalised, d *decision) { p.judgeCommands(who, c, nil, d) }
	runStageCases(t, []stageCase{
		{"", "Bash", bash("pip install numpy"), Ask, "approval.install"},
		{"", "Bash", bash("sbatch -t 00:10:00 job.sh"), Ask, "approval.compute"},
		{"", "Bash", bash("sudo pip3 install -U numpy"), Ask, "approval.install"},
		{"vibe:experimenter", "Bash", bash("vibe worker stop"), Deny, "forbidden.daemon"},
		{"", "Bash", bash("ls && git status"), Allow, ""},
	}, stage)
}
