package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// restoresAll and restoresNone stand for the safety net after the call: one
// that holds a copy of every protected file, one that holds none.
type restoresAll struct{}

func (restoresAll) Restores(string) bool { return true }

type restoresNone struct{}

func (restoresNone) Restores(string) bool { return false }

// grow adds n unprotected files to the project, spread over folders, so a
// find or a glob over it passes every bound of the analysis.
func grow(t testing.TB, prj project, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		p := filepath.Join(prj.root, "src", fmt.Sprintf("m%d", i%40), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestComputedTargetsGoToTheNet: a protected file a command reaches only
// through a computation (find, a glob, a listing fed to xargs, a tree) is
// refused without a net, left to a net that can restore it, and asked
// about when the net cannot; a command whose words name the protected
// file, or a write the net cannot undo, is refused whatever the net.
func TestComputedTargetsGoToTheNet(t *testing.T) {
	small := newProject(t)
	big := newProject(t)
	grow(t, big, 5000)
	type want struct{ none, all, cannot string } // action/rule with no net, a net restoring all, one restoring none
	cases := []struct {
		agent, cmd string
		big        bool
		want       want
	}{
		// The false denials of the issue: computed targets, nothing named.
		{"", "find . -type f -exec chmod 644 {} \\;", false, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"", "find . -type f -exec chmod 644 {} \\;", true, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"", "find . -type f -delete", true, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"", "find . -type f -not -name '*txt' | xargs rm", false, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"", "find . -type f -not -name '*txt' | xargs rm", true, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"", "rsync -a remote:dir/ .", false, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"", "find . -name '*.txt' -exec mv {} {}.bak \\;", true, want{"deny locked.agent-settings", "allow researcher.allow", "ask net.unrestorable"}},
		{"vibe:experimenter", "rm CLAIM-LEDG?R.md", false, want{"deny experimenter.deny.ledger", "allow experimenter.allow", "ask net.unrestorable"}},
		{"vibe:experimenter", "find RQ-001 -name '*.yaml' -delete", false, want{"deny experimenter.deny.r2-reports", "allow experimenter.allow", "ask net.unrestorable"}},
		// A pipeline into xargs keeps the producer's filter.
		{"", "find . -name '*.swp' | xargs rm", false, want{"allow researcher.allow", "allow researcher.allow", "allow researcher.allow"}},
		{"vibe:experimenter", "find . -name '*.yaml' ! -path '*/05-reviewer2/*' -exec sed -i s/a/b/ {} +", false, want{"allow experimenter.allow", "allow experimenter.allow", "allow experimenter.allow"}},
		{"vibe:experimenter", "find . -name '*.yaml' | grep -v 05-reviewer2 | xargs sed -i s/a/b/", false, want{"allow experimenter.allow", "allow experimenter.allow", "allow experimenter.allow"}},
		// Named: the words of the command spell what the rule guards.
		{"vibe:experimenter", "find . -name CLAIM-LEDGER.md -delete", false, want{"deny experimenter.deny.ledger", "deny experimenter.deny.ledger", "deny experimenter.deny.ledger"}},
		{"", "find RQ-001/05-reviewer2 -delete", false, want{"deny researcher.deny.r2-reports", "deny researcher.deny.r2-reports", "deny researcher.deny.r2-reports"}},
		{"", "chmod 777 RQ-001/02-data/raw/*", false, want{"deny read-only.raw-data", "deny read-only.raw-data", "deny read-only.raw-data"}},
		{"", "find src -name '*.txt' -exec chmod 600 RQ-001/02-data/raw/counts.csv \\;", true, want{"deny read-only.raw-data", "deny read-only.raw-data", "deny read-only.raw-data"}},
		// What the net cannot undo stays refused: outside the project, a
		// confined role outside its area.
		{"", "find . -type f -exec cp {} $OUT/ \\;", false, want{"deny researcher.outside-root", "deny researcher.outside-root", "deny researcher.outside-root"}},
		{"vibe:reviewer2", "find . -name '*.md' -exec touch {} +", false, want{"deny reviewer2.write-only", "deny reviewer2.write-only", "deny reviewer2.write-only"}},
		// Signals: a lookup that cannot reach vibe's worker is allowed, one
		// that may is refused, one that cannot be told is asked.
		{"", "kill $(lsof -t -i:8080)", false, want{"allow researcher.allow", "allow researcher.allow", "allow researcher.allow"}},
		{"", "kill -9 $(pgrep -f train.py)", false, want{"allow researcher.allow", "allow researcher.allow", "allow researcher.allow"}},
		{"", "kill $(ps aux | grep train.py | grep -v grep | awk '{print $2}')", false, want{"allow researcher.allow", "allow researcher.allow", "allow researcher.allow"}},
		{"", "kill $!", false, want{"allow researcher.allow", "allow researcher.allow", "allow researcher.allow"}},
		{"", "kill $(pgrep -f embed-worker)", false, want{"deny forbidden.daemon", "deny forbidden.daemon", "deny forbidden.daemon"}},
		{"", "kill $(pgrep vibe)", false, want{"deny forbidden.daemon", "deny forbidden.daemon", "deny forbidden.daemon"}},
		{"", "kill $(cat server.pid)", false, want{"ask approval.signal", "ask approval.signal", "ask approval.signal"}},
		{"", "kill $(ps -e -o pid=)", false, want{"ask approval.signal", "ask approval.signal", "ask approval.signal"}},
	}
	p := Default()
	for _, c := range cases {
		prj := small
		if c.big {
			prj = big
		}
		for i, net := range []Net{nil, restoresAll{}, restoresNone{}} {
			req := prj.request(c.agent, "Bash", bash(c.cmd), "")
			req.Net = net
			d := p.Check(req)
			got := string(d.Action) + " " + d.Rule
			want := []string{c.want.none, c.want.all, c.want.cannot}[i]
			if got != want {
				t.Errorf("%s (big %v, net %T): got %s, want %s\n%s\n%s", c.cmd, c.big, net, got, want, d.Reason, strings.Join(p.Explain(req), "\n"))
			}
			if net == (restoresAll{}) && d.Action == Allow && strings.HasPrefix(c.want.none, "deny") && len(d.Net) == 0 {
				t.Errorf("%s: allowed for the net, but Decision.Net names nothing", c.cmd)
			}
		}
	}
}

// TestSerendipityStaysOutOfReviews: the serendipity role's "**/SERENDIPITY.md"
// does not open 05-reviewer2/, the schemas, the policy or agent settings.
func TestSerendipityStaysOutOfReviews(t *testing.T) {
	prj := newProject(t)
	p := Default()
	for _, path := range []string{"RQ-001/05-reviewer2/SERENDIPITY.md", ".vibe-science/schemas/SERENDIPITY.md"} {
		d := p.Check(prj.request("vibe:serendipity", "Write", write("$ROOT/"+path), ""))
		if d.Action != Deny {
			t.Errorf("serendipity writing %s: %s by %s", path, d.Action, d.Rule)
		}
	}
	if d := p.Check(prj.request("vibe:serendipity", "Write", write("$ROOT/ideas/notes/SERENDIPITY.md"), "")); d.Action != Allow {
		t.Errorf("serendipity writing its own log: %s by %s", d.Action, d.Rule)
	}
}
