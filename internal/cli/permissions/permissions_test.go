package permissions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

// TestPermissionsCheckUnknownRole: a mistyped role is a usage error with a
// suggestion, not silently the guest role (issue 16, finding 3).
func TestPermissionsCheckUnknownRole(t *testing.T) {
	proj := clitest.MkVibeDir(t, t.TempDir())
	cases := []struct {
		role     string
		exit     int
		out, err string
	}{
		{"reviwer2", 2, "", "vibe: --role \"reviwer2\": no such role; did you mean reviewer2?\nRoles: experimenter, guest, judge, lead, researcher, reviewer2, serendipity (aliases: experiment, r2, r3, reviewer, reviewer-2, scanner)\n"},
		{"Judge", 0, "ALLOW: judge", ""},
		{"r2", 1, "DENY: reviewer2", ""},
		{"nobody", 2, "", "vibe: --role \"nobody\": no such role\nRoles: experimenter"},
	}
	for _, c := range cases {
		t.Run(c.role, func(t *testing.T) {
			f, out, errOut := gateTestFactory(t, nil)
			args := []string{"permissions", "check", "--project", proj, "--role", c.role, "--path", proj + "/05-reviewer2/judge-reports/x.md"}
			if c.role == "r2" {
				args[len(args)-1] = proj + "/CLAIM-LEDGER.md"
			}
			if code := permMain(f, args); code != c.exit {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, c.exit, out, errOut)
			}
			if !strings.HasPrefix(out.String(), c.out) {
				t.Fatalf("stdout %q, want prefix %q", out, c.out)
			}
			if c.err != "" && !strings.HasPrefix(errOut.String(), c.err) {
				t.Fatalf("stderr %q, want prefix %q", errOut, c.err)
			}
		})
	}
}

// TestPermissionsCheckSaysHowToChange: a denial names the rule, the file
// and the key that change it, once (issue 16, finding 7).
func TestPermissionsCheckSaysHowToChange(t *testing.T) {
	proj := clitest.MkVibeDir(t, t.TempDir())
	f, out, errOut := gateTestFactory(t, nil)
	code := permMain(f, []string{"permissions", "check", "--project", proj, "--role", "reviewer2", "--path", proj + "/CLAIM-LEDGER.md"})
	if code != 1 {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	want := "to change it: in .vibe-science/permissions.json, the \"roles\" → \"reviewer2\" → \"deny\" entry with \"id\": \"ledger\" (`vibe permissions show` prints the policy in force)\n"
	if strings.Count(out.String(), "to change it:") != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("stdout:\n%s\nwant once:\n%s", out, want)
	}
	for rule, key := range map[string]string{
		"read-only.raw-data":      `"read_only" → "raw-data"`,
		"judge.tools":             `"roles" → "judge" → "tools"`,
		"judge.bash.programs":     `"roles" → "judge" → "bash" → "programs"`,
		"reviewer2.bash.write":    `"roles" → "reviewer2" → "bash" → "write"`,
		"serendipity.write-only":  `"roles" → "serendipity" → "write_only"`,
		"researcher.outside-root": `"outside_root" → "allow" (or "roles" → "researcher" → "outside_root")`,
		"approval.install":        `"approval" → "install"`,
		"guest.deny.schemas":      `the "roles" → "guest" → "deny" entry with "id": "schemas"`,
		"researcher.allow":        "",
		"lead.tree":               "",
	} {
		if got := policyKey(rule); got != key {
			t.Errorf("policyKey(%q) = %q, want %q", rule, got, key)
		}
	}
}

// TestPermissionsCheckUnknownAgentType: an agent type of this plugin
// (vibe:…) that names no role is a typo, not the guest role; another
// plugin's agent is a guest, as in a hook.
func TestPermissionsCheckUnknownAgentType(t *testing.T) {
	proj := clitest.MkVibeDir(t, t.TempDir())
	f, _, errOut := gateTestFactory(t, nil)
	code := permMain(f, []string{"permissions", "check", "--project", proj, "--agent-type", "vibe:reviwer2", "--path", "x.md"})
	if code != 2 || !strings.HasPrefix(errOut.String(), "vibe: --agent-type \"vibe:reviwer2\": no such role; did you mean reviewer2?\n") {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	f, out, errOut := gateTestFactory(t, nil)
	if code := permMain(f, []string{"permissions", "check", "--project", proj, "--agent-type", "other:helper", "--path", proj + "/notes.md"}); code != 0 ||
		!strings.HasPrefix(out.String(), "ALLOW: guest") {
		t.Fatalf("another plugin's agent: exit %d; stdout %q stderr %q", code, out, errOut)
	}
}

var gateT0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

// gateTestFactory shows tables as a 200-column terminal does (root's
// output_test.go checks the pipe form).
func gateTestFactory(t *testing.T, env map[string]string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: gateT0, Env: env, TTY: true, Width: 200})
}

// permMain runs args as `vibe` would, with only the permissions commands.
func permMain(f *cli.Factory, args []string) int {
	return clitest.Main(f, args, NewCmdPermissions(f))
}

// TestPermissionsCheckReadsTheComputeAllowance: `permissions check` judges
// a job as PreToolUse does, with the domain config's compute allowance: a
// job within it runs, a longer one is asked (issue 34 item 4).
func TestPermissionsCheckReadsTheComputeAllowance(t *testing.T) {
	proj := clitest.MkVibeDir(t, t.TempDir())
	check := func(command string) string {
		t.Helper()
		f, out, errOut := gateTestFactory(t, nil)
		permMain(f, []string{"permissions", "check", "--project", proj, "--role", "researcher", "--tool", "Bash", "--command", command})
		if errOut.Len() > 0 {
			t.Fatalf("%s: stderr %q", command, errOut)
		}
		verdict, _, _ := strings.Cut(out.String(), ":")
		return verdict
	}
	short, long := "sbatch -t 00:30:00 train.sh", "sbatch -t 02:00:00 train.sh"
	if got := check(short); got != "ASK" {
		t.Fatalf("without an allowance %q: %s, want ASK", short, got)
	}
	if err := os.WriteFile(filepath.Join(proj, ".vibe-science", "domain-config.json"), []byte(`{"domain": "generic", "compute": {"max_time": "01:00:00"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := check(short); got != "ALLOW" {
		t.Errorf("within the allowance %q: %s, want ALLOW", short, got)
	}
	if got := check(long); got != "ASK" {
		t.Errorf("over the allowance %q: %s, want ASK", long, got)
	}
}
