package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/scaffold"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// rig runs hook events in-process against one vibe project, carrying a
// Bash call out between PreToolUse and PostToolUse as Claude Code would.
type rig struct {
	t    *testing.T
	root string
	env  map[string]string
	n    int
	// resident runs the hooks as the resident worker does: what they do
	// after the reply runs once the reply is out (hookrun.Env.After).
	resident bool
}

func newRig(t *testing.T) *rig {
	t.Helper()
	home := t.TempDir()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	if _, err := scaffold.Init(project.Project{Root: root, Git: true}, scaffold.Options{RQ: "RQ-001", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, root: root, env: map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}}
}

// write puts a file into the project (before the session, or as the user).
func (r *rig) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(rel)))
	return string(b)
}

func (r *rig) hook(spec hookrun.Spec, ev map[string]any) string {
	ev["session_id"], ev["cwd"], ev["transcript_path"] = "net-1", r.root, "/tmp/t.jsonl"
	raw, _ := json.Marshal(ev)
	var out bytes.Buffer
	var later []func(context.Context)
	env := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{}, Now: time.Now,
		Getenv: func(k string) string { return r.env[k] }}
	if r.resident {
		env.After = func(f func(context.Context)) { later = append(later, f) }
		env.UseStore(r.store()) // the worker's: open after the reply
	}
	hookrun.Main(spec, env)
	for _, f := range later {
		f(context.Background())
	}
	return out.String()
}

// bash runs command as a Bash call: PreToolUse, the command, PostToolUse;
// it returns both replies (the command does not run when denied).
func (r *rig) bash(command string) (pre, post string) {
	r.t.Helper()
	r.n++
	id := "toolu_" + string(rune('a'+r.n))
	in := map[string]any{"command": command}
	pre = r.hook(handler.PreToolUse, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": in})
	if strings.Contains(pre, `"deny"`) {
		return pre, ""
	}
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = r.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", command, err, out)
	}
	post = r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id,
		"tool_input": in, "tool_response": map[string]any{"stdout": string(out)}, "duration_ms": 30})
	return pre, post
}

// write as an agent: a Write call of agentType ("" the main thread).
func (r *rig) writeAs(agentType, rel, content string) string {
	r.t.Helper()
	r.n++
	id := "toolu_w" + string(rune('a'+r.n))
	in := map[string]any{"file_path": filepath.Join(r.root, rel), "content": content}
	ev := func(name string) map[string]any {
		m := map[string]any{"hook_event_name": name, "tool_name": "Write", "tool_use_id": id, "tool_input": in}
		if agentType != "" {
			m["agent_id"], m["agent_type"] = "agent-1", agentType
		}
		return m
	}
	if pre := r.hook(handler.PreToolUse, ev("PreToolUse")); strings.Contains(pre, `"deny"`) {
		r.t.Fatalf("%s's write of %s was denied: %s", agentType, rel, pre)
	}
	r.write(rel, content)
	post := ev("PostToolUse")
	post["tool_response"] = map[string]any{"type": "create"}
	return r.hook(handler.PostToolUse, post)
}

func (r *rig) store() *store.Store {
	r.t.Helper()
	st, err := store.Open(context.Background(), config.Resolve(func(k string) string { return r.env[k] }).DB, store.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { st.Close() })
	return st
}

// pass records a PASS of each gate for a claim, as `vibe gate run ID
// --claim` does.
func (r *rig) pass(claimID string, gates ...string) {
	r.t.Helper()
	st := r.store()
	err := st.Tx(context.Background(), func(tx *store.Tx) error {
		for _, g := range gates {
			if _, err := tx.AddGateCheck(context.Background(), record.GateCheck{Project: r.root, ClaimID: claimID,
				Result: record.GateResult{Gate: g, Status: record.GatePass}, At: time.Now()}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) claimEvents(claimID string) []string {
	r.t.Helper()
	hist, err := r.store().ClaimHistory(context.Background(), r.root, claimID)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, e := range hist {
		out = append(out, e.Type)
	}
	return out
}

const netLedger = `# Claim ledger

## C-001: Mismatch count correlates with cleavage
- status: PROVISIONAL
- type: correlative
- confidence: 0.62
- evidence: RQ-001/04-results/FINDINGS.json
`

// promote.py rewrites the ledger the way an agent's script does: no path
// of the ledger is on the command line.
const promoteScript = `import pathlib
p = pathlib.Path(".vibe-science/CLAIM-LEDGER.md")
p.write_text(p.read_text().replace("status: PROVISIONAL", "status: PROMOTED"))
`

// TestScriptPromotionIsJudgedOnDisk (issue 32 item 3): a script that
// promotes a claim passes PreToolUse (it names no ledger), and PostToolUse
// judges the ledger it left: without the tier's gates, without D1's record
// or without a review, the ledger is put back and the call blocked with
// what is missing; with all three, the promotion stands and its claim
// event is recorded.
func TestScriptPromotionIsJudgedOnDisk(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("this test runs a python3 script; install python3")
	}
	r := newRig(t)
	r.write(".vibe-science/CLAIM-LEDGER.md", netLedger)
	r.write("promote.py", promoteScript)
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	r.bash("ls") // the first look: the protected files' snapshot

	blocked := func(step string, says ...string) {
		t.Helper()
		pre, post := r.bash("python3 promote.py")
		if strings.Contains(pre, `"deny"`) {
			t.Fatalf("%s: PreToolUse denied the script: %s", step, pre)
		}
		if !strings.Contains(post, `"decision":"block"`) {
			t.Fatalf("%s: the promotion was not blocked: %s", step, post)
		}
		for _, s := range append([]string{"C-001 cannot become PROMOTED", "restored", "CLAIM-LEDGER.md"}, says...) {
			if !strings.Contains(post, s) {
				t.Errorf("%s: the block does not say %q: %s", step, s, post)
			}
		}
		if got := r.read(".vibe-science/CLAIM-LEDGER.md"); got != netLedger {
			t.Errorf("%s: the ledger was not put back:\n%s", step, got)
		}
		for _, e := range r.claimEvents("C-001") {
			if e == "PROMOTED" {
				t.Errorf("%s: a PROMOTED event was recorded for a promotion that was undone", step)
			}
		}
	}
	blocked("nothing", "gates not passed: `vibe gate run DC0 --claim C-001`", "no D1 evidence", "C-001-promotion.json", "no Reviewer 2 report cites C-001")
	r.pass("C-001", "DQ4", "DC0", "DQ1")
	blocked("gates only", "no D1 evidence", "no Reviewer 2 report")
	r.pass("C-001", "D1")
	blocked("gates and D1", "no Reviewer 2 report cites C-001: run `/vibe:review C-001`")
	if post := r.writeAs("vibe:reviewer2", ".vibe-science/RQ-001/05-reviewer2/R2-20261128-001.md",
		"# R2 review\n\n## C-001: Mismatch count correlates with cleavage\n- verdict: ACCEPT\n"); strings.Contains(post, `"block"`) {
		t.Fatalf("reviewer2's report was blocked: %s", post)
	}
	_, post := r.bash("python3 promote.py")
	if strings.Contains(post, `"block"`) {
		t.Fatalf("a promotion with its gates, D1 and a review was blocked: %s", post)
	}
	if got := r.read(".vibe-science/CLAIM-LEDGER.md"); !strings.Contains(got, "status: PROMOTED") {
		t.Errorf("the promotion did not stand:\n%s", got)
	}
	events := r.claimEvents("C-001")
	if len(events) == 0 || events[len(events)-1] != "PROMOTED" {
		t.Errorf("claim events of C-001: %v; want the promotion last", events)
	}
}

// TestScriptDirectionIsJudgedOnDisk (issue 32 item 3): a direction that a
// script writes (no path on its command line) before any literature search
// in the session is blocked after the call; once the session searched, a
// script writing it again is allowed.
func TestScriptDirectionIsJudgedOnDisk(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("this test runs a python3 script; install python3")
	}
	r := newRig(t)
	r.write("brainstorm.py", `import pathlib, sys
p = pathlib.Path(".vibe-science/RQ-001/00-brainstorm/direction.md")
p.parent.mkdir(parents=True, exist_ok=True)
p.write_text("# Research direction\n\nPredict off-target cleavage from bulges (" + sys.argv[1] + ").\n")
`)
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	r.bash("ls")
	pre, post := r.bash("python3 brainstorm.py first")
	if strings.Contains(pre, `"deny"`) {
		t.Fatalf("PreToolUse denied the script: %s", pre)
	}
	for _, s := range []string{`"decision":"block"`, ".vibe-science/RQ-001/00-brainstorm/direction.md changed during this Bash call", "gate L-1 requires one"} {
		if !strings.Contains(post, s) {
			t.Errorf("a direction written before any search: the reply lacks %q: %s", s, post)
		}
	}
	r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "WebSearch", "tool_use_id": "toolu_search",
		"tool_input": map[string]any{"query": "CRISPR off-target bulge cleavage prediction"},
		"tool_response": map[string]any{"query": "CRISPR off-target bulge cleavage prediction", "results": []any{map[string]any{"tool_use_id": "srvtoolu_01",
			"content": []any{map[string]any{"title": "GUIDE-seq enables genome-wide profiling of off-target cleavage", "url": "https://www.nature.com/articles/nbt.3117"}}}}}})
	if _, post := r.bash("python3 brainstorm.py second"); post != "" {
		t.Errorf("a direction written after a search drew a reply: %s", post)
	}
}

// TestClaimRestingOnAScratchFileBlocks (issue 32 item 4): a scratch table
// the design does not plan is a warning; a claim whose evidence then names
// it blocks the call that wrote the ledger, which stays as written, and
// recording the deviation in DESIGN.md clears it.
func TestClaimRestingOnAScratchFileBlocks(t *testing.T) {
	r := newRig(t)
	r.write(".vibe-science/RQ-001/DESIGN.md", plannedDesign)
	r.write(".vibe-science/CLAIM-LEDGER.md", netLedger)
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	r.bash("ls")
	_, post := r.bash("mkdir -p .vibe-science/RQ-001/02-data/processed && printf 'guide_id,sites\\nG1,4\\n' > .vibe-science/RQ-001/02-data/processed/by_guide.csv")
	if !strings.Contains(post, "DC0 WARN") || strings.Contains(post, `"block"`) {
		t.Fatalf("a scratch table: want one warning, got %s", post)
	}
	cites := strings.Replace(netLedger, "- evidence: RQ-001/04-results/FINDINGS.json", "- evidence: RQ-001/02-data/processed/by_guide.csv", 1)
	r.write("cite.py", "import pathlib\npathlib.Path('.vibe-science/CLAIM-LEDGER.md').write_text('''"+cites+"''')\n")
	_, post = r.bash("python3 cite.py")
	for _, s := range []string{`"decision":"block"`, ".vibe-science/CLAIM-LEDGER.md changed during this Bash call", "DC0 FAIL: C-001 rests on 02-data/processed/by_guide.csv"} {
		if !strings.Contains(post, s) {
			t.Errorf("a claim resting on the scratch table: the reply lacks %q: %s", s, post)
		}
	}
	if got := r.read(".vibe-science/CLAIM-LEDGER.md"); got != cites {
		t.Errorf("the ledger was changed back; only a promotion is undone:\n%s", got)
	}
	r.write(".vibe-science/RQ-001/DESIGN.md", strings.Replace(plannedDesign, "None yet.",
		"### DEV-001: 2026-11-28\n- what: kept the per-guide counts\n- why: C-001 rests on them\n- files: 02-data/processed/by_guide.csv\n", 1))
	r.write("cite.py", "import pathlib\np = pathlib.Path('.vibe-science/CLAIM-LEDGER.md')\np.write_text(p.read_text().replace('0.62', '0.64'))\n")
	if _, post := r.bash("python3 cite.py"); strings.Contains(post, `"block"`) {
		t.Errorf("once the deviation is recorded the claim may rest on the file: %s", post)
	}
}

// TestMessagesNameTheFileTheCallChanged (issue 32 item 4): a findings file
// judged again because a script rewrote its source JSON is named as judged
// again, after the JSON the call changed, with the command that re-runs the
// gate on it and the unmatched number on one line.
func TestMessagesNameTheFileTheCallChanged(t *testing.T) {
	r := newRig(t)
	r.write(".vibe-science/RQ-001/DESIGN.md", plannedDesign)
	r.write(".vibe-science/RQ-001/04-results/FINDINGS.json", `{"auc": 0.81, "n": 40}`)
	r.write(".vibe-science/RQ-001/04-results/FINDINGS.md", "# Findings\n\nAUC 0.81 (n = 40).\n")
	r.bash("ls")
	_, post := r.bash(`sed -i 's/0.81/0.74/' .vibe-science/RQ-001/04-results/FINDINGS.json`)
	want := `.vibe-science/RQ-001/04-results/FINDINGS.json changed during this Bash call, so .vibe-science/RQ-001/04-results/FINDINGS.md was judged again. ` +
		`DQ4 FAIL: line 3: 0.81 in \"AUC 0.81 (n = 40).\" matches no number in FINDINGS.json (nearest: 0.74)`
	if !strings.Contains(post, want) || !strings.Contains(post, "`vibe gate run DQ4 --findings .vibe-science/RQ-001/04-results/FINDINGS.md`") ||
		strings.Contains(post, "FILE") || !strings.Contains(post, `"decision":"block"`) {
		t.Errorf("reply %s\nwant it to contain %s", post, want)
	}
}

// TestFindingRestingOnAScratchFileBlocks: a findings file that names a
// data file the design does not plan blocks the call that wrote it.
func TestFindingRestingOnAScratchFileBlocks(t *testing.T) {
	r := newRig(t)
	r.write(".vibe-science/RQ-001/DESIGN.md", plannedDesign)
	r.write(".vibe-science/RQ-001/04-results/FINDINGS.json", `{"auc": 0.81, "n": 40}`)
	r.bash("ls")
	if _, post := r.bash("mkdir -p .vibe-science/RQ-001/02-data/processed && printf 'guide_id,sites\\nG1,4\\n' > .vibe-science/RQ-001/02-data/processed/by_guide.csv"); strings.Contains(post, `"block"`) {
		t.Fatalf("a scratch table was blocked: %s", post)
	}
	_, post := r.bash(`printf '# Findings\n\nAUC 0.81 (n = 40), from 02-data/processed/by_guide.csv.\n' > .vibe-science/RQ-001/04-results/FINDINGS.md`)
	if !strings.Contains(post, `"decision":"block"`) || !strings.Contains(post, "DC0 FAIL: .vibe-science/RQ-001/04-results/FINDINGS.md rests on 02-data/processed/by_guide.csv") {
		t.Errorf("a finding resting on the scratch table: %s", post)
	}
}
