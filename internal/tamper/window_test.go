package tamper

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/verdict"
)

// begin opens a call's window, as PreToolUse does.
func (f *fixture) begin(id, agent, tool string, named ...string) {
	f.t.Helper()
	if err := f.g.Begin(CallStart{Root: f.root, Session: "s1", ToolUseID: id, AgentType: agent, Tool: tool, Named: named}); err != nil {
		f.t.Fatal(err)
	}
}

// after waits until the file system's clock has moved past the change
// time of rel, so that what happens next is later on disk too.
func (f *fixture) after(rel string) {
	f.t.Helper()
	st, err := lstat(f.abs(rel))
	if err != nil {
		st, err = lstat(f.abs(parentRel(rel)))
		if err != nil {
			f.t.Fatal(err)
		}
	}
	for i := 0; ; i++ {
		now, err := f.g.fsNow()
		if err != nil {
			f.t.Fatal(err)
		}
		if now > changeTime(st) {
			return
		}
		if i > 2000 {
			f.t.Fatal("the file system's clock does not move")
		}
		time.Sleep(time.Millisecond)
	}
}

// tick waits until the file system's clock has moved on (its coarse
// clock ticks every few milliseconds), so what happens next is later on
// disk than what happened before.
func (f *fixture) tick() {
	f.t.Helper()
	start, err := f.g.fsNow()
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		if now, _ := f.g.fsNow(); now > start {
			return
		}
		time.Sleep(time.Millisecond)
	}
	f.t.Fatal("the file system's clock does not move")
}

// TestModeAndOwnerRestored: a mode or owner change of a guarded file by a
// role that may not change it is put back; one the role may make is taken
// into the snapshot.
func TestModeAndOwnerRestored(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	f.sh("chmod 0777 " + r2dir + "/review-01.md")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "mode changed "+r2dir+"/review-01.md restored")
	if st, _ := os.Stat(f.abs(r2dir + "/review-01.md")); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode after restore: %v", st.Mode())
	}
	f.sh("chmod g+s,o+w " + raw + "/a.csv")
	rep := f.check(Call{Tool: "Bash"})
	wantOutcomes(t, rep, "mode changed "+raw+"/a.csv restored")
	if st, _ := lstat(f.abs(raw + "/a.csv")); st.Mode.Perm != 0o644 {
		t.Fatalf("mode after restore: %04o", st.Mode.Perm)
	}
	if vs := Verdicts(rep, Call{Tool: "Bash"}, verdict.Block); len(vs) != 1 || !strings.Contains(vs[0].Reason, "mode 2646 -> 0644") && !strings.Contains(vs[0].Reason, "mode 0644 -> 2646") {
		t.Fatalf("verdict: %+v", vs)
	}
	// The researcher may write the ledger: its mode is the researcher's.
	f.sh("chmod 0600 " + ledger)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}))
	if os.Getuid() == 0 {
		f.sh("chown 12345:12345 " + r2dir + "/review-02.md")
		wantOutcomes(t, f.check(Call{Tool: "Bash"}), "mode changed "+r2dir+"/review-02.md restored")
		if st, _ := lstat(f.abs(r2dir + "/review-02.md")); st.Uid != 0 || st.Gid != 0 {
			t.Fatalf("owner after restore: %d:%d", st.Uid, st.Gid)
		}
	}
	// A forbidden content change with a mode change: both come back.
	f.sh("echo x >> " + r2dir + "/review-01.md && chmod 0600 " + r2dir + "/review-01.md")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified "+r2dir+"/review-01.md restored")
	if st, _ := os.Stat(f.abs(r2dir + "/review-01.md")); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode after content restore: %v", st.Mode())
	}
}

// TestFoldersOfGuardedTrees: a folder made in a guarded tree by a role
// that may not is moved aside; one removed is made again; a folder's
// changed mode is put back.
func TestFoldersOfGuardedTrees(t *testing.T) {
	f := newProject(t, map[string]string{raw + "/sub/c.csv": "c\n"}, Options{})
	f.check(Call{})
	f.sh("mkdir -p " + raw + "/new/deeper")
	rep := f.check(Call{Tool: "Bash"})
	wantOutcomes(t, rep, "created "+raw+"/new/deeper quarantined", "created "+raw+"/new quarantined")
	if _, err := os.Stat(f.abs(raw + "/new")); err == nil {
		t.Fatal("the new folder is still in raw data")
	}
	f.sh("chmod 0777 " + raw + "/sub")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "mode changed "+raw+"/sub restored")
	if st, _ := os.Stat(f.abs(raw + "/sub")); st.Mode().Perm() != 0o755 {
		t.Fatalf("folder mode after restore: %v", st.Mode())
	}
	f.sh("rm -r " + raw + "/sub")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "deleted "+raw+"/sub/c.csv restored")
	if f.read(raw+"/sub/c.csv") != "c\n" {
		t.Fatal("the file of the removed folder is not back")
	}
	// Reviewer 2 may make folders in its own tree.
	f.sh("mkdir " + r2dir + "/round-2")
	wantOutcomes(t, f.check(Call{Tool: "Bash", AgentType: "vibe:reviewer2"}))
}

// TestRemovedColdFileSeenAtOnce: a raw file removed or renamed is seen by
// the check right after, not when the rotation reaches it.
func TestRemovedColdFileSeenAtOnce(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 50; i++ {
		files[fmt.Sprintf("%s/bulk/f%02d.csv", raw, i)] = fmt.Sprintf("%d\n", i)
	}
	f := newProject(t, files, Options{ColdPerCall: 1})
	f.check(Call{})
	f.sh("rm " + raw + "/bulk/f37.csv && mv " + raw + "/bulk/f12.csv " + raw + "/bulk/g12.csv")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}),
		"created "+raw+"/bulk/g12.csv quarantined", "deleted "+raw+"/bulk/f12.csv restored", "deleted "+raw+"/bulk/f37.csv restored")
}

// TestPersonsChangeBetweenCallsNeverReverted is the fault test of issue
// 33: a file a person changes between two calls is reported once, never
// restored, and waits for the person's choice.
func TestPersonsChangeBetweenCallsNeverReverted(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	f.begin("toolu_1", "", "Bash")
	f.check(Call{Tool: "Bash", ToolUseID: "toolu_1"})
	f.tick()
	// The person: a review edited, raw data changed, a mode changed, a
	// review removed, between the calls.
	f.write(r2dir+"/review-01.md", "# Review 1\nverdict: ACCEPT (edited by hand)\n")
	f.write(raw+"/a.csv", "x,y\n9,9\n")
	f.sh("chmod 0600 .claude/settings.json && rm " + r2dir + "/review-02.md")
	f.after(raw + "/a.csv")
	f.after(".claude/settings.json")
	f.begin("toolu_2", "", "Bash")
	rep := f.check(Call{Tool: "Bash", ToolUseID: "toolu_2"})
	wantOutcomes(t, rep,
		"modified "+r2dir+"/review-01.md external",
		"deleted "+r2dir+"/review-02.md external",
		"mode changed .claude/settings.json external",
		"modified "+raw+"/a.csv external")
	if rep.Blocks() {
		t.Fatal("a person's change blocks the call")
	}
	vs := Verdicts(rep, Call{Tool: "Bash", ToolUseID: "toolu_2"}, verdict.Block)
	if len(vs) != 4 || vs[0].Result != verdict.Warn || !strings.Contains(vs[0].Recommendation, "vibe tamper restore "+r2dir+"/review-01.md") {
		t.Fatalf("verdicts: %+v", vs)
	}
	if f.read(r2dir+"/review-01.md") != "# Review 1\nverdict: ACCEPT (edited by hand)\n" || f.read(raw+"/a.csv") != "x,y\n9,9\n" {
		t.Fatal("a person's change was reverted")
	}
	// Reported once: later calls and the Stop say nothing more.
	f.begin("toolu_3", "", "Bash")
	wantOutcomes(t, f.check(Call{Tool: "Bash", ToolUseID: "toolu_3"}))
	wantOutcomes(t, f.check(Call{Full: true, Session: "s1"}))
	pend, err := f.g.Pending(f.root)
	if err != nil || len(pend) != 4 {
		t.Fatalf("pending: %+v %v", pend, err)
	}
	// The person decides: the review's edit is undone, the rest kept.
	done, err := f.g.Restore(f.root, []string{r2dir}, t0)
	if err != nil || strings.Join(done, ",") != r2dir+"/review-01.md,"+r2dir+"/review-02.md" {
		t.Fatalf("restore: %v %v", done, err)
	}
	if f.read(r2dir+"/review-01.md") != "# Review 1\nverdict: REJECT\n" || f.read(r2dir+"/review-02.md") != "# Review 2\nverdict: ACCEPT\n" {
		t.Fatal("restore did not put the reviews back")
	}
	if _, err := f.g.Accept(f.root, []string{raw + "/a.csv", ".claude/settings.json"}, t0); err != nil {
		t.Fatal(err)
	}
	if pend, _ := f.g.Pending(f.root); len(pend) != 0 {
		t.Fatalf("pending after the choices: %+v", pend)
	}
	// From then on the kept version is the one the net defends.
	f.begin("toolu_4", "vibe:experimenter", "Bash")
	f.write(raw+"/a.csv", "forged\n")
	wantOutcomes(t, f.check(Call{Tool: "Bash", ToolUseID: "toolu_4", AgentType: "vibe:experimenter"}), "modified "+raw+"/a.csv restored")
	if f.read(raw+"/a.csv") != "x,y\n9,9\n" {
		t.Fatalf("restored to %q, want the accepted version", f.read(raw+"/a.csv"))
	}
}

// TestJudgeNotBlamedForAFileItDidNotTouch is the other fault test: a
// judge's Write of its own report is never blocked for a review removed
// before it, by someone else.
func TestJudgeNotBlamedForAFileItDidNotTouch(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	f.begin("toolu_1", "", "Bash")
	f.check(Call{Tool: "Bash", ToolUseID: "toolu_1"})
	f.tick()
	f.sh("rm " + r2dir + "/review-02.md") // outside any call
	f.after(r2dir + "/review-02.md")
	report := r2dir + "/judge-reports/judge-02.md"
	f.begin("toolu_2", "vibe:judge", "Write", report)
	f.write(report, "# Judge 2\nscore: 4\n")
	rep := f.check(Call{Tool: "Write", ToolUseID: "toolu_2", AgentType: "vibe:judge", Named: []string{report}, Direct: true})
	if rep.Blocks() {
		t.Fatalf("the judge's own report was blocked: %v", outcomes(rep))
	}
	wantOutcomes(t, rep, "deleted "+r2dir+"/review-02.md external")
	if f.read(report) != "# Judge 2\nscore: 4\n" {
		t.Fatal("the judge's report was touched")
	}
	// The same Write, while a call that can remove it runs: that call is
	// charged at its own check, the Write never.
	f.begin("toolu_3", "vibe:experimenter", "Bash")
	f.begin("toolu_4", "vibe:judge", "Write", r2dir+"/judge-reports/judge-03.md")
	f.sh("rm " + r2dir + "/review-01.md")
	f.write(r2dir+"/judge-reports/judge-03.md", "# Judge 3\n")
	wantOutcomes(t, f.check(Call{Tool: "Write", ToolUseID: "toolu_4", AgentType: "vibe:judge",
		Named: []string{r2dir + "/judge-reports/judge-03.md"}, Direct: true}))
	rep = f.check(Call{Tool: "Bash", ToolUseID: "toolu_3", AgentType: "vibe:experimenter"})
	wantOutcomes(t, rep, "deleted "+r2dir+"/review-01.md restored")
}

// TestLateChangeChargedToItsCall: a change the rotation finds calls later
// is charged to the call whose window holds it, named in the verdict.
func TestLateChangeChargedToItsCall(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("%s/bulk/f%02d.csv", raw, i)] = "1\n"
	}
	f := newProject(t, files, Options{ColdPerCall: 1})
	f.check(Call{})
	f.begin("toolu_1", "vibe:experimenter", "Bash")
	f.sh("echo 2 >> " + raw + "/bulk/f30.csv") // in place: the folder does not change
	rep := f.check(Call{Tool: "Bash", ToolUseID: "toolu_1", AgentType: "vibe:experimenter"})
	if len(rep.Findings) != 0 {
		t.Skipf("the rotation reached the file at once: %v", outcomes(rep))
	}
	f.after(raw + "/bulk/f30.csv")
	rep = f.check(Call{Full: true, Session: "s1"})
	wantOutcomes(t, rep, "modified "+raw+"/bulk/f30.csv restored")
	if rep.Findings[0].ByID != "toolu_1" {
		t.Fatalf("charged to %q", rep.Findings[0].ByID)
	}
	vs := Verdicts(rep, Call{Full: true}, verdict.Block)
	if len(vs) != 1 || !strings.Contains(vs[0].Reason, "vibe:experimenter modified") || !strings.Contains(vs[0].Reason, "during Bash toolu_1") {
		t.Fatalf("verdict: %+v", vs)
	}
}

// TestStopEndsItsSessionsWindows: a call let through that never returned
// (the user declined it) holds changes for its check only until the
// session's Stop, which then charges them to it.
func TestStopEndsItsSessionsWindows(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	f.begin("toolu_1", "vibe:experimenter", "Bash")
	f.write(ledger, "forged\n")
	f.begin("toolu_2", "", "Read")
	wantOutcomes(t, f.check(Call{Tool: "Read", ToolUseID: "toolu_2"})) // not a Read's doing: left to toolu_1
	wantOutcomes(t, f.check(Call{Full: true, Session: "s1"}), "modified "+ledger+" restored")
}

// TestSerendipityWriteIntoReviewsUndone: the serendipity agent's Write of
// a SERENDIPITY.md inside 05-reviewer2/ (which its "**/SERENDIPITY.md"
// area once opened) is moved aside after the call.
func TestSerendipityWriteIntoReviewsUndone(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	p := r2dir + "/SERENDIPITY.md"
	f.begin("toolu_1", "vibe:serendipity", "Write", p)
	f.write(p, "# seeds\n")
	wantOutcomes(t, f.check(Call{Tool: "Write", ToolUseID: "toolu_1", AgentType: "vibe:serendipity", Named: []string{p}, Direct: true}),
		"created "+p+" quarantined")
}
