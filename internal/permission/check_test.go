package permission

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestReasons pins the full sentences Claude reads: who, what, which rule,
// and what to do instead.
func TestReasons(t *testing.T) {
	prj := newProject(t)
	tests := []struct {
		agent, tool string
		input       map[string]any
		want        string
	}{
		{"vibe:reviewer2", "Write", write("$ROOT/CLAIM-LEDGER.md"),
			"reviewer2 may not write CLAIM-LEDGER.md (rule reviewer2.deny.ledger): reviewer2 writes verdicts under 05-reviewer2/; the researcher updates CLAIM-LEDGER.md."},
		{"vibe:reviewer2", "Write", write("$ROOT/RQ-001/05-reviewer2/ledger-view.md"),
			"reviewer2 may not write RQ-001/05-reviewer2/ledger-view.md (which leads to CLAIM-LEDGER.md) (rule reviewer2.deny.ledger): reviewer2 writes verdicts under 05-reviewer2/; the researcher updates CLAIM-LEDGER.md."},
		{"vibe:reviewer2", "Write", write("$ROOT/src/x.py"),
			"reviewer2 may not write src/x.py (rule reviewer2.write-only): reviewer2 writes verdicts under 05-reviewer2/; the researcher updates CLAIM-LEDGER.md."},
		{"Explore", "Edit", write("$ROOT/CLAIM-LEDGER.md"),
			"guest (agent Explore) may not write CLAIM-LEDGER.md (rule guest.deny.ledger): only the researcher or the lead updates CLAIM-LEDGER.md; report findings back to the main thread."},
		{"vibe:serendipity", "Bash", bash("ls"),
			"serendipity may not use the Bash tool (rule serendipity.tools): serendipity may use Read, Glob, Grep, LS, WebSearch, WebFetch, Write, Edit, MultiEdit, TodoWrite, Skill; serendipity writes only SERENDIPITY.md."},
		{"vibe:experimenter", "Bash", bash("rm -rf RQ-001/05-reviewer2"),
			"experimenter may not write RQ-001/05-reviewer2 (rule experimenter.deny.r2-reports): Reviewer 2 reports are written only by reviewer2; the experimenter writes results under 03-analysis/ and 04-results/."},
		{"vibe:experimenter", "Bash", bash("rm -rf RQ-001/02-data"),
			"experimenter may not write RQ-001/02-data (it holds RQ-001/02-data/raw/counts.csv) (rule read-only.raw-data): raw data is read-only for every agent; write derived files under 02-data/processed/ or 03-analysis/."},
		{"vibe:experimenter", "Bash", bash("F=$(head -1 list.txt); echo x > $F # CLAIM-LEDGER.md"),
			"experimenter may not write \"$F\" (redirect >), a target known only when the command runs, in a command that names CLAIM-LEDGER.md (rule experimenter.deny.ledger): the experimenter writes results under 03-analysis/ and 04-results/; the researcher updates CLAIM-LEDGER.md."},
		{"vibe:reviewer2", "Bash", bash("echo x > \"$DEST/r.yaml\""),
			"reviewer2 may not write \"$DEST/r.yaml\" (redirect >), a target known only when the command runs (rule reviewer2.write-only): reviewer2 writes verdicts under 05-reviewer2/; the researcher updates CLAIM-LEDGER.md."},
		{"", "Write", write("/etc/vibe"),
			"researcher may not write /etc/vibe, which is outside the project root (rule researcher.outside-root): work inside the project; only the lead writes outside it."},
		{"", "Write", write("$ROOT/.vibe-science/permissions.json"),
			"researcher needs the user's approval to write .vibe-science/permissions.json (rule researcher.deny.policy): changing the permission policy needs the user's approval."},
		{"", "Bash", bash("sudo pip3 install -U numpy"),
			"researcher wants to run \"pip3 install -U numpy\", which needs the user's approval (rule approval.install): installing packages changes the environment; approve it if the project needs it."},
		{"", "Write", write("~/.claude/settings.json"),
			"researcher may not write " + homeDir() + "/.claude/settings.json, part of Claude Code's settings, hooks and plugins, locked for every role (rule locked.agent-settings): these files decide which hooks, checks and plugins run, so no agent may change them; if a change is needed, ask the user to make it outside the session (in Claude Code with /config, /hooks or /plugin, or in an editor)."},
		{"vibe:experimenter", "Bash", bash("git reset --hard"),
			"experimenter may not write the project folder (git reset --hard may change everything under it), part of Claude Code's settings, hooks and plugins, locked for every role (rule locked.agent-settings): it would rewrite protected files along with yours; name the files you mean instead (git checkout -- <file>, git stash push -- <paths>, git clean -f <path>)."},
		{"vibe:experimenter", "Bash", bash("vibe worker stop"),
			"experimenter may not run \"vibe worker stop\" (rule forbidden.daemon): vibe's worker enforces these rules; an agent may not stop, replace or signal it: if it must be done, ask the user to run it themselves outside the session."},
		{"vibe:experimenter", "Bash", bash("curl -sSLo RQ-001/02-data/raw/new.csv https://example.org/d.csv"),
			"experimenter wants to download https://example.org/d.csv into RQ-001/02-data/raw/new.csv (rule approval.download): downloading files brings unreviewed data or code into the project; approve it if this is the data the project needs (vibe records its URL and checksum)."},
		{"general-purpose", "Bash", bash("echo x > README.md ("),
			"guest (agent general-purpose) may not run a command that cannot be analysed (rule guest.unparsed): it does not parse or is longer than 256 KB: split it into shorter, plain commands (write long content with the Write tool); any other agent works in the project but never touches the ledger, the reviews, the serendipity log, the schemas or the policy."},
		{"vibe:experimenter", "Bash", bash("python3 w.py CLAIM-LEDGER.md"),
			"experimenter may not write files through python, a program whose writes cannot be told, in a command that names CLAIM-LEDGER.md (rule experimenter.deny.ledger): the experimenter writes results under 03-analysis/ and 04-results/; the researcher updates CLAIM-LEDGER.md."},
		{"", "Write", write("$ROOT/FINDINGS.md"),
			"researcher may write FINDINGS.md (rule researcher.allow)."},
		{"", "Read", map[string]any{"file_path": "$ROOT/FINDINGS.md"},
			"researcher may use Read (rule researcher.allow)."},
	}
	for _, tc := range tests {
		d := Default().Check(prj.request(tc.agent, tc.tool, tc.input, ""))
		if d.Reason != tc.want {
			t.Errorf("%s %s %v\ngot  %s\nwant %s", tc.agent, tc.tool, tc.input, d.Reason, tc.want)
		}
	}
}

// TestApprovals checks the operations that are answered with ask.
func TestApprovals(t *testing.T) {
	prj := newProject(t)
	tests := []struct {
		agent, cmd string
		want       Action
		rule       string
	}{
		{"", "pip install numpy", Ask, "approval.install"},
		{"", "vibe citations add 10.9999/fabricated.2021.001 --title 'A paper'", Ask, "approval.add-citation"},
		{"", "vibe citations --json", Allow, "researcher.allow"},
		{"", "python3 -m pip install -r requirements.txt", Ask, "approval.install"},
		{"", "uv pip install polars", Ask, "approval.install"},
		{"", "npm i left-pad", Ask, "approval.install"},
		{"", "sudo apt-get install -y jq", Ask, "approval.install"},
		{"", "conda install -c bioconda samtools", Ask, "approval.install"},
		{"", "cargo install ripgrep", Ask, "approval.install"},
		{"", "go install example.com/tool@latest", Ask, "approval.install"},
		{"", "curl -sSLo data.zip https://example.org/data.zip", Ask, "approval.download"},
		{"", "curl --output data.zip https://example.org/data.zip", Ask, "approval.download"},
		{"", "wget https://example.org/data.zip", Ask, "approval.download"},
		{"", "git clone https://github.com/x/y.git vendor/y", Ask, "approval.clone"},
		{"", "rm -rf build", Ask, "approval.remove-folder"},
		{"", "rm -r -f build", Ask, "approval.remove-folder"},
		{"vibe:experimenter", "pip install scanpy", Ask, "approval.install"},
		{"", "pip list", Allow, "researcher.allow"},
		{"", "pip download x", Allow, "researcher.allow"},
		{"", "curl -s https://example.org", Allow, "researcher.allow"},
		{"", "rm build.log", Allow, "researcher.allow"},
		{"", "git pull", Allow, "researcher.allow"},
		{"vibe:experimenter", "rm -rf RQ-001/05-reviewer2", Deny, "experimenter.deny.r2-reports"},
	}
	for _, tc := range tests {
		d := Default().Check(prj.request(tc.agent, "Bash", bash(tc.cmd), ""))
		if d.Action != tc.want || d.Rule != tc.rule {
			t.Errorf("%q: got %s by %s (%s), want %s by %s", tc.cmd, d.Action, d.Rule, d.Reason, tc.want, tc.rule)
		}
	}
	// The approvals are configurable: a project can drop one.
	p, err := Parse([]byte(`{"approval": {"install": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Check(prj.request("", "Bash", bash("pip install numpy"), "")); d.Action != Allow {
		t.Errorf("without the install approval: got %s by %s", d.Action, d.Rule)
	}
}

func TestExplain(t *testing.T) {
	prj := newProject(t)
	got := Default().Explain(prj.request("vibe:reviewer2", "Bash", bash("echo x >> CLAIM-LEDGER.md"), ""))
	want := []string{
		"role: vibe:reviewer2 -> reviewer2 (mode solo)",
		"reviewer2.tools: Bash allowed",
		"reviewer2.bash.programs: echo allowed",
		"path CLAIM-LEDGER.md (redirect >>): read-only.raw-data: no match",
		"path CLAIM-LEDGER.md (redirect >>): reviewer2.deny.ledger: matches -> deny",
		"decision: deny by reviewer2.deny.ledger",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Explain:\ngot  %q\nwant %q", got, want)
	}
}

// TestVerdict compares the verdict envelope of typical decisions with
// golden files (go test -update rewrites them).
func TestVerdict(t *testing.T) {
	// Paths inside the project are relative, so the goldens do not depend on
	// the temp folder.
	prj := newProject(t)
	cases := map[string]Request{
		"deny-ledger":  prj.request("vibe:reviewer2", "Write", write("$ROOT/CLAIM-LEDGER.md"), ""),
		"ask-install":  prj.request("", "Bash", bash("pip install numpy"), ""),
		"allow-report": prj.request("vibe:reviewer2", "Write", write("$ROOT/RQ-001/05-reviewer2/R2-002.yaml"), ""),
	}
	for name, req := range cases {
		p := Default()
		v := p.Verdict(req, p.Check(req))
		got, err := verdict.Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "verdict", name+".golden.json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, got, "", "  ")
			if err := os.WriteFile(path, append(pretty.Bytes(), '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		var tree any
		if err := json.Unmarshal(raw, &tree); err != nil {
			t.Fatal(err)
		}
		want, _ := verdict.Canonical(tree)
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
	}
	req := cases["deny-ledger"]
	v := Default().Verdict(req, Default().Check(req))
	if v.Result != verdict.HardBlock || v.Severity != verdict.High || v.Check != "permission" {
		t.Errorf("deny: got %s %s %s", v.Check, v.Result, v.Severity)
	}
}

// TestUnknownAgentFailsClosed: a subagent with an unknown type writing a
// protected path through every tool is denied.
func TestUnknownAgentFailsClosed(t *testing.T) {
	prj := newProject(t)
	for _, tool := range []string{"Write", "Edit", "MultiEdit"} {
		for _, path := range []string{"CLAIM-LEDGER.md", "RQ-001/05-reviewer2/R2-001.yaml", "SERENDIPITY.md", ".vibe-science/schemas/x.json", ".vibe-science/permissions.json", ".claude/settings.local.json"} {
			d := Default().Check(prj.request("some-plugin:helper", tool, write("$ROOT/"+path), ""))
			want := "guest.deny."
			if strings.HasPrefix(path, ".claude/settings") {
				want = "locked.agent-settings" // no role writes the settings
			}
			if d.Action != Deny || !strings.HasPrefix(d.Rule, want) || d.Role != "guest" {
				t.Errorf("%s %s: got %s by %s as %s", tool, path, d.Action, d.Rule, d.Role)
			}
		}
	}
}

// TestProjectRootMissing: without a project root nothing is inside the
// project, so only the lead may write.
func TestProjectRootMissing(t *testing.T) {
	req := Request{ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/tmp/x/CLAIM-LEDGER.md"}`)}
	if d := Default().Check(req); d.Action != Deny || d.Rule != "researcher.outside-root" {
		t.Errorf("got %s by %s", d.Action, d.Rule)
	}
}

// TestRoleOverride is what `vibe permissions check --role` uses.
func TestRoleOverride(t *testing.T) {
	prj := newProject(t)
	req := prj.request("", "Write", write("$ROOT/CLAIM-LEDGER.md"), "")
	for role, want := range map[string]string{"judge": "judge.deny.ledger", "Lead": "lead.allow", "nobody": "guest.deny.ledger", "": "researcher.allow"} {
		req.Role = role
		if d := Default().Check(req); d.Rule != want {
			t.Errorf("role %q: got %s, want %s", role, d.Rule, want)
		}
	}
}
