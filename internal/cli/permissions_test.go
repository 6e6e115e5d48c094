package cli

import (
	"strings"
	"testing"
)

// TestPermissionsCheckUnknownRole: a mistyped role is a usage error with a
// suggestion, not silently the guest role (issue 16, finding 3).
func TestPermissionsCheckUnknownRole(t *testing.T) {
	proj := mkVibeDir(t, t.TempDir())
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
			if code := Main(args, f); code != c.exit {
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
