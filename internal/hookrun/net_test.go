package hookrun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNetThroughTheHooks drives the safety net through the real handlers,
// as Claude Code would call them: a person's edits between two calls are
// kept and reported, never reverted; a judge writing its own report is not
// blocked for a review it did not touch; a command whose protected targets
// only find knows goes through PreToolUse and has its change undone and
// the turn blocked by PostToolUse.
func TestNetThroughTheHooks(t *testing.T) {
	r := newFaultRig(t)
	rq := filepath.Join(r.project, ".vibe-science", "RQ-001")
	write := func(rel, content string) {
		p := filepath.Join(rq, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, _ := os.ReadFile(filepath.Join(rq, filepath.FromSlash(rel)))
		return string(b)
	}
	write("CLAIM-LEDGER.md", "# Claim ledger\n")
	write("05-reviewer2/review-01.md", "verdict: REJECT\n")
	write("05-reviewer2/review-02.md", "verdict: REJECT\n")
	call := func(id, agent, tool string, input map[string]any, do func()) (pre, post string) {
		t.Helper()
		ev := map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool, "tool_use_id": id, "agent_type": agent, "tool_input": input}
		pre, _ = r.run("pre-tool-use", ev)
		if strings.Contains(pre, `"permissionDecision":"deny"`) {
			return pre, ""
		}
		if do != nil {
			do()
		}
		ev = map[string]any{"hook_event_name": "PostToolUse", "tool_name": tool, "tool_use_id": id, "agent_type": agent, "tool_input": input,
			"tool_response": map[string]any{}}
		post, _ = r.run("post-tool-use", ev)
		return pre, post
	}
	// A first call: the net takes its snapshot.
	call("toolu_1", "", "Bash", map[string]any{"command": "ls"}, nil)
	// The person, between calls.
	time.Sleep(30 * time.Millisecond)
	write("05-reviewer2/review-01.md", "verdict: ACCEPT (the person's edit)\n")
	os.Remove(filepath.Join(rq, "05-reviewer2", "review-02.md"))
	time.Sleep(30 * time.Millisecond)
	report := filepath.Join(rq, "05-reviewer2", "judge-reports", "judge-01.md")
	_, post := call("toolu_2", "vibe:judge", "Write", map[string]any{"file_path": report, "content": "score: 4\n"}, func() {
		write("05-reviewer2/judge-reports/judge-01.md", "score: 4\n")
	})
	if strings.Contains(post, `"decision":"block"`) {
		t.Fatalf("the judge's own report was blocked: %s", post)
	}
	if !strings.Contains(post, "outside any tool call") || !strings.Contains(post, "vibe tamper restore") {
		t.Fatalf("the person's changes were not reported: %s", post)
	}
	if read("05-reviewer2/review-01.md") != "verdict: ACCEPT (the person's edit)\n" || read("05-reviewer2/judge-reports/judge-01.md") != "score: 4\n" {
		t.Fatal("a person's edit or the judge's report was reverted")
	}
	if _, err := os.Stat(filepath.Join(rq, "05-reviewer2", "review-02.md")); err == nil {
		t.Fatal("a review the person removed was put back")
	}
	// A computed target: allowed before, undone after.
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	cmd := "find .vibe-science -name 'review-*' -exec sed -i s/ACCEPT/REJECT/ {} +"
	pre, post := call("toolu_3", "", "Bash", map[string]any{"command": cmd}, func() {
		c := exec.Command("bash", "-c", cmd)
		c.Dir = r.project
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	})
	if strings.Contains(pre, `"deny"`) || !strings.Contains(post, `"decision":"block"`) || !strings.Contains(post, "review-01.md") {
		t.Fatalf("a computed change to a review: PreToolUse %s\nPostToolUse %s", pre, post)
	}
	if read("05-reviewer2/review-01.md") != "verdict: ACCEPT (the person's edit)\n" {
		t.Fatalf("the review was not restored to the version the person left: %q", read("05-reviewer2/review-01.md"))
	}
}
