package tamper

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestTricksTheAnalyserMisses replays write forms issue 14 lists as
// getting past PreToolUse, each for real on a fresh project, by the
// experimenter (who may run any program but not write the ledger, the
// reviews or raw data). Every one must really change its target, and every
// change must be undone byte for byte and blocked.
func TestTricksTheAnalyserMisses(t *testing.T) {
	L := ".vibe-science/RQ-001/CLAIM-LEDGER.md"
	R := ".vibe-science/RQ-001/05-reviewer2/review-01.md"
	D := ".vibe-science/RQ-001/02-data/raw/a.csv"
	for _, tc := range []struct {
		name, needs, cmd, target, change string
		setup                            string
	}{
		{"sed w command", "sed", `sed -n 'w .vibe-science/RQ-001/CLAIM-LEDGER.md' README.md`, L, Modified, ""},
		{"awk getline pipe", "awk", `awk 'BEGIN{"cat README.md" | getline x; print x > ".vibe-science/RQ-001/" "CLAIM-LEDGER.md"}'`, L, Modified, ""},
		{"cp -l then write", "cp", `cp -l .vibe-science/RQ-001/CLAIM-LEDGER.md notes.md && echo forged >> notes.md`, L, Modified, ""},
		{"shuf -o", "shuf", `shuf -o .vibe-science/RQ-001/05-reviewer2/review-01.md README.md`, R, Modified, ""},
		{"iconv -o", "iconv", `iconv -f utf-8 -t ascii -o .vibe-science/RQ-001/CLAIM-LEDGER.md README.md`, L, Modified, ""},
		{"python json.tool in out", "python3", `echo '{"a":1}' > x.json && python3 -m json.tool x.json .vibe-science/RQ-001/CLAIM-LEDGER.md`, L, Modified, ""},
		{"perl sysopen", "perl", `perl -e 'use Fcntl; sysopen(F, ".vibe-science/RQ-001/" . "CLAIM-LEDGER.md", O_WRONLY|O_TRUNC) or die; print F "x"'`, L, Modified, ""},
		{"node computed name", "node", `node -e 'require("fs").writeFileSync([".vibe-science","RQ-001","CLAIM-LEDGER.md"].join("/"), "x")'`, L, Modified, ""},
		// A look-alike of the ledger's name is a new guarded file: moved aside.
		{"upper-cased variable", "bash", `F=claim-ledger.md; echo forged > .vibe-science/RQ-001/${F^^}`, ".vibe-science/RQ-001/CLAIM-LEDGER.MD", Created, ""},
		{"printf -v", "bash", `printf -v p '%s/%s' .vibe-science/RQ-001 CLAIM-LEDGER.md; : > "$p"`, L, Modified, ""},
		{"xargs fed by ls", "xargs", `ls .vibe-science/RQ-001/02-data/raw/*.csv | xargs -n1 truncate -s0`, D, Modified, ""},
		{"gzip round trip", "gzip", `gzip .vibe-science/RQ-001/05-reviewer2/review-01.md && gunzip -c .vibe-science/RQ-001/05-reviewer2/review-01.md.gz | tr a-z A-Z > .vibe-science/RQ-001/05-reviewer2/review-01.md`, R, Modified, ""},
		{"patch", "patch", `printf -- '--- a\n+++ b\n@@ -1 +1 @@\n-x,y\n+forged\n' > p.diff && patch .vibe-science/RQ-001/02-data/raw/a.csv p.diff`, D, Modified, ""},
		{"rm of a review from a script", "python3", `python3 -c "import os; os.unlink('.vibe-science/RQ-001/05-reviewer2/review-01.md')"`, R, Deleted, ""},
		{"git reset --hard to an old ledger", "git", `git reset -q --hard HEAD~1`, L, Modified,
			`git init -q . && cp ` + L + ` /tmp/l.$$ && echo old > ` + L + ` && git add -A && git -c user.email=a@b -c user.name=a commit -qm 1 && ` +
				`cp /tmp/l.$$ ` + L + ` && rm /tmp/l.$$ && git add -A && git -c user.email=a@b -c user.name=a commit -qm 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.needs); err != nil {
				t.Skip(tc.needs + " is not installed")
			}
			f := newProject(t, map[string]string{".vibe-science/RQ-001/02-data/raw/a.csv": "x,y\n"}, Options{})
			if tc.setup != "" {
				f.sh("rm -rf .git && " + tc.setup)
			}
			snapshot := map[string]string{}
			for _, rel := range []string{L, R, D} {
				snapshot[rel] = f.read(rel)
			}
			f.check(Call{})
			f.sh(tc.cmd)
			if b, err := os.ReadFile(f.abs(tc.target)); err == nil && string(b) == snapshot[tc.target] {
				t.Fatalf("%s did not change %s", tc.cmd, tc.target)
			}
			rep := f.check(f.bash("vibe:experimenter", tc.cmd))
			if !rep.Blocks() {
				t.Fatalf("not blocked: %v", outcomes(rep))
			}
			for _, fd := range rep.Findings {
				if fd.Outcome != Restored && fd.Outcome != Quarantined {
					t.Errorf("%s: %s", fd.Path, fd.Outcome)
				}
			}
			want := tc.change + " " + tc.target + " restored"
			if tc.change == Created {
				want = tc.change + " " + tc.target + " quarantined"
			}
			if !strings.Contains(strings.Join(outcomes(rep), "\n"), want) {
				t.Errorf("findings %v lack %q", outcomes(rep), want)
			}
			for _, rel := range []string{L, R, D} {
				if got := f.read(rel); got != snapshot[rel] {
					t.Errorf("%s not restored: %q", rel, got)
				}
			}
		})
	}
}
