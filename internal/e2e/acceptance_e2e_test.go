//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolResult finds the tool_result the model received for a tool call.
func resultFor(t *testing.T, res Result, id string) ToolResult {
	t.Helper()
	for _, r := range res.Mock.ToolResults() {
		if r.ToolUseID == id {
			return r
		}
	}
	t.Fatalf("no tool_result for %s reached the model", id)
	return ToolResult{}
}

// TestFindingsAndLiteratureGates (issue 5): a FINDINGS.md reporting a
// number absent from its JSON is denied with that number in the reason the
// model receives; a research direction is denied before any literature
// search and goes through after a scholarly WebSearch.
func TestFindingsAndLiteratureGates(t *testing.T) {
	root := vibeRoot(t)
	project := vibeProject(t)
	results := filepath.Join(project, "RQ-001", "04-results")
	mustWrite(t, filepath.Join(results, "FINDINGS.json"), `{"auc": 0.812, "n": 1240}`)
	findings := filepath.Join(results, "FINDINGS.md")
	direction := filepath.Join(project, "RQ-001", "00-brainstorm", "direction.md")
	res := RunClaude(t, RunOptions{
		Prompt: "report the results and choose a direction", PluginDir: root, ProjectDir: project,
		AllowedTools: []string{"WebSearch"},
		Script: Script{Turns: []Turn{
			{Tool("Write", map[string]any{"file_path": findings, "content": "# Findings\n\nAUC 0.87 on held-out guides (n = 1240).\n"}).WithID("toolu_typo")},
			{Tool("Write", map[string]any{"file_path": findings, "content": "# Findings\n\nAUC 0.81 on held-out guides (n = 1240).\n"}).WithID("toolu_fixed")},
			{Tool("Write", map[string]any{"file_path": direction, "content": "# Direction\n\nPredict off-target cleavage from bulges.\n"}).WithID("toolu_dir1")},
			{Tool("WebSearch", map[string]any{"query": "CRISPR off-target bulge prediction PubMed review"}).WithID("toolu_search")},
			{Tool("Write", map[string]any{"file_path": direction, "content": "# Direction\n\nPredict off-target cleavage from bulges.\n"}).WithID("toolu_dir2")},
			{Text("done")},
		}},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d\n%s\n%s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000))
	}
	if r := resultFor(t, res, "toolu_typo"); !r.IsError || !strings.Contains(r.Text, "0.87") || !strings.Contains(r.Text, "DQ4") {
		t.Errorf("the typo was not denied with its number: %+v", r)
	}
	if b, _ := os.ReadFile(findings); !strings.Contains(string(b), "AUC 0.81") {
		t.Errorf("the corrected findings did not land: %q", b)
	}
	if r := resultFor(t, res, "toolu_dir1"); !r.IsError || !strings.Contains(r.Text, "L-1") {
		t.Errorf("a direction before any literature search was not denied: %+v", r)
	}
	if r := resultFor(t, res, "toolu_dir2"); r.IsError {
		t.Errorf("the direction after a literature search was refused: %s", r.Text)
	}
	if _, err := os.Stat(direction); err != nil {
		t.Errorf("the direction did not land after the search: %v", err)
	}
	st := openVibeDB(t, res.VibeHome)
	if n := count(t, st, "SELECT count(*) FROM literature_searches WHERE query LIKE '%bulge prediction%'"); n != 1 {
		t.Errorf("literature searches recorded: %d", n)
	}
}

// TestSkillReachesTheModel (issue 8): the vibe skill is listed in what the
// client sends to the model.
func TestSkillReachesTheModel(t *testing.T) {
	root := vibeRoot(t)
	res := RunClaude(t, RunOptions{Prompt: "hello", PluginDir: root, Script: Script{Turns: []Turn{{Text("hi")}}}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, tail(res.Stderr, 2000))
	}
	if !res.Mock.Saw(ConvMain, "vibe:vibe") || !res.Mock.Saw(ConvMain, "Research methodology enforced by the vibe plugin") {
		t.Errorf("the vibe skill is not listed in the request the model received")
	}
}

// TestTwoSessionsCarryTheResearch (issue 7): session 1 creates a claim
// (reviewed by reviewer2, the review judged twice by the judge) and a
// seed, and ends (two reviews, each judged weak on counter-evidence
// search); session 2's context shows the previous narrative, the
// pending seed and the R2 calibration hint. The researcher's own STATE.md
// text is byte-identical before and after both sessions.
func TestTwoSessionsCarryTheResearch(t *testing.T) {
	root := vibeRoot(t)
	project := TempDir(t)
	vibeHome := TempDir(t)
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	state := filepath.Join(project, ".vibe-science", "STATE.md")
	userState := "# State\r\n\r\nphase: analysis\r\nMy notes — do not touch: ünïcödé, `<!-- vibe:state:begin -->` in code.\r\n"
	mustWrite(t, state, userState)
	ledger := filepath.Join(project, ".vibe-science", "CLAIM-LEDGER.md")
	seedFile := filepath.Join(project, ".vibe-science", "SERENDIPITY.md")
	review := filepath.Join(project, "RQ-001", "05-reviewer2", "R2-20261122-001.md")
	judge := func(n string) string {
		return filepath.Join(project, "RQ-001", "05-reviewer2", "judge-reports", "J-20261122-00"+n+".json")
	}
	judgeReport := func(n string) string {
		return `{"judge_report_id": "J-20261122-00` + n + `", "review_id": "R2-20261122-00` + n + `", "mode": "TEAM", "claims": ["C-001"],
  "dimensions": {"specificity": {"score": 2, "evidence": "names C-001"}, "counter_evidence_search": {"score": 0, "evidence": "no search"},
  "confounder_analysis": {"score": 2, "evidence": "names batch"}, "falsification_demand": {"score": 2, "evidence": "asks for a replication"},
  "independence": {"score": 2, "evidence": "own order"}, "escalation": {"score": 2, "evidence": "ranked"}},
  "total": 10, "verdict": "WEAK_PASS", "feedback_to_r2": "Search for contradicting results.", "consecutive_failures": 0,
  "judged_at": "2026-11-22T10:0` + n + `:00Z"}`
	}
	seed := "# Serendipity log\n\n## SEED-20261122-001: Bulged sites cleave more than their mismatch count predicts\n- status: PENDING_TRIAGE\n- source: SCANNER\n- score: 13\n" +
		"- causal-question: Does a DNA bulge raise cleavage independently of mismatch count?\n- discriminating-test: Compare bulged and unbulged sites matched on mismatch count\n" +
		"- falsifiers:\n  - Bulge calls are an aligner artifact\n  - Bulged sites sit in open chromatin\n  - One guide drives it\n- created: 2026-11-22\n"
	env := []string{"VIBE_HOME=" + vibeHome}
	res1 := RunClaude(t, RunOptions{
		Prompt: "session one", PluginDir: root, ProjectDir: project, Env: env,
		Script: Script{
			Turns: []Turn{
				{Tool("Write", map[string]any{"file_path": ledger, "content": "# Claim ledger\n\n## C-001: Off-target rate rises with mismatch count\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.62\n"}).WithID("toolu_claim")},
				{Tool("Write", map[string]any{"file_path": seedFile, "content": seed}).WithID("toolu_seed")},
				{Agent("vibe:reviewer2", "R2-TWO-SESSIONS review C-001").WithID("toolu_r2")},
				{Agent("vibe:judge", "JUDGE-TWO-SESSIONS judge the review").WithID("toolu_judge")},
				{Text("session one done")},
			},
			Agents: []AgentScript{
				{Marker: "R2-TWO-SESSIONS", Turns: []Turn{
					{Tool("Write", map[string]any{"file_path": review, "content": "# R2 review 2026-11-22 (forced)\n\n## C-001: Off-target rate rises with mismatch count\n- verdict: ACCEPT\n- weaknesses: no interval\n"}).WithID("toolu_r2_write")},
					{Text("reviewed")},
				}},
				{Marker: "JUDGE-TWO-SESSIONS", Turns: []Turn{
					{Tool("Write", map[string]any{"file_path": judge("1"), "content": judgeReport("1")}).WithID("toolu_j1")},
					{Tool("Write", map[string]any{"file_path": judge("2"), "content": judgeReport("2")}).WithID("toolu_j2")},
					{Text("judged")},
				}},
			},
		},
	})
	if res1.ExitCode != 0 {
		t.Fatalf("session 1: claude exit %d\n%s\n%s", res1.ExitCode, res1.Stdout, tail(res1.Stderr, 2000))
	}
	for _, id := range []string{"toolu_claim", "toolu_seed", "toolu_r2_write", "toolu_j1", "toolu_j2"} {
		if r := resultFor(t, res1, id); r.IsError {
			t.Fatalf("session 1: %s refused: %s", id, r.Text)
		}
	}
	if res1.Mock.Saw(ConvMain, "Stop hook feedback") {
		t.Errorf("session 1: LAW 4 blocked although C-001 was reviewed")
	}

	res2 := RunClaude(t, RunOptions{Prompt: "session two", PluginDir: root, ProjectDir: project, Env: env,
		Script: Script{Turns: []Turn{{Text("continuing")}}}})
	if res2.ExitCode != 0 {
		t.Fatalf("session 2: claude exit %d: %s", res2.ExitCode, tail(res2.Stderr, 2000))
	}
	for what, want := range map[string]string{
		"the previous narrative":     "last session 2026",
		"the claim in the narrative": "- C-001 R2_REVIEWED",
		"the pending seed":           "SEED-20261122-001",
		"the R2 calibration hint":    "counter-evidence search",
		"the literature line":        "[BLUEPRINT] Domain:",
	} {
		if !res2.Mock.Saw(ConvMain, want) {
			t.Errorf("session 2's context lacks %s (%q)", what, want)
		}
	}
	if t.Failed() {
		for _, r := range res2.Mock.Conversation(ConvMain) {
			if i := strings.Index(r.Msg.AllText(), "[VIBE STATE]"); i >= 0 {
				t.Logf("session 2 context:\n%s", r.Msg.AllText()[i:min(len(r.Msg.AllText()), i+1500)])
				break
			}
		}
	}
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), userState) || !strings.Contains(string(b), "<!-- vibe:state:begin -->") {
		t.Errorf("STATE.md: the researcher's part changed or vibe's section is missing:\n%q", b)
	}
	st := openVibeDB(t, vibeHome)
	if t.Failed() {
		rows, _ := st.DB().Query("SELECT claim_id, event_type, session_id FROM claim_events")
		for rows.Next() {
			var a, b, c string
			rows.Scan(&a, &b, &c)
			t.Logf("claim event %s %s %s", a, b, c)
		}
		rows.Close()
		rows, _ = st.DB().Query("SELECT tool_name, input_summary, COALESCE(agent_type,'') FROM spine_entries")
		for rows.Next() {
			var a, b, c string
			rows.Scan(&a, &b, &c)
			t.Logf("spine %s %s %s", a, b, c)
		}
		rows.Close()
		rows, _ = st.DB().Query("SELECT review_id, COALESCE(r2_weaknesses,''), COALESCE(j0_score,-1) FROM r2_reviews")
		for rows.Next() {
			var a, b string
			var c int
			rows.Scan(&a, &b, &c)
			t.Logf("review %s %s %d", a, b, c)
		}
		rows.Close()
	}
	if n := count(t, st, "SELECT count(*) FROM r2_reviews"); n == 0 {
		t.Errorf("no R2 review recorded")
	}
	ss, _ := st.Sessions(context.Background(), "", 10)
	if len(ss) != 2 {
		t.Errorf("sessions recorded: %d", len(ss))
	}
}

// TestResearchBriefThroughTheClient (issue 9): with a brief ingested, a
// write that breaks a Critical/Block constraint is denied with the
// constraint's id and title, and an edit that changes an anchored
// function's signature is followed by a note that the brief has drifted.
func TestResearchBriefThroughTheClient(t *testing.T) {
	root := vibeRoot(t)
	project := TempDir(t)
	vibeHome := TempDir(t)
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	os.MkdirAll(filepath.Join(project, ".vibe-science"), 0o755) // a vibe project: project commands refuse other folders
	score := filepath.Join(project, "src", "score.go")
	mustWrite(t, score, "package score\n\n// Score rates a site.\nfunc Score(mismatches int) float64 {\n\treturn float64(mismatches)\n}\n")
	briefPath := filepath.Join(project, "BRIEF.md")
	mustWrite(t, briefPath, "# Brief: off-target scoring\n\n## Constraints\n\n"+
		"### BC-001: Never write the held-out guides\n- severity: Critical\n- action: Block\n- applies-to: data/heldout/**\n- rationale: held-out guides are the test set.\n\n"+
		"### BC-002: Keep the scoring function's contract\n- severity: Medium\n- action: WarnOnly\n- applies-to: src/score.go#Score\n\n"+
		"## Decisions\n\n### AD-001: Guide-held-out splits (2026-11-01)\n- status: Accepted\n- decision: split by guide.\n\n"+
		"## Anchors\n\n- src/score.go#Score\n")
	ingest := exec.Command(filepath.Join(root, "bin", "vibe"), "brief", "ingest", briefPath, "--project", project)
	ingest.Env = append(os.Environ(), "VIBE_HOME="+vibeHome)
	if out, err := ingest.CombinedOutput(); err != nil {
		t.Fatalf("vibe brief ingest: %v\n%s", err, out)
	}
	heldout := filepath.Join(project, "data", "heldout", "guides.csv")
	res := RunClaude(t, RunOptions{
		Prompt: "work on scoring", PluginDir: root, ProjectDir: project, Env: []string{"VIBE_HOME=" + vibeHome},
		Script: Script{Turns: []Turn{
			{Tool("Write", map[string]any{"file_path": heldout, "content": "guide,site\n"}).WithID("toolu_heldout")},
			{Tool("Edit", map[string]any{"file_path": score, "old_string": "func Score(mismatches int) float64 {", "new_string": "func Score(mismatches int, bulges int) float64 {"}).WithID("toolu_anchor")},
			{Text("done")},
		}},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, tail(res.Stderr, 2000))
	}
	if r := resultFor(t, res, "toolu_heldout"); !r.IsError || !strings.Contains(r.Text, "BC-001") || !strings.Contains(r.Text, "Never write the held-out guides") {
		t.Errorf("the Critical/Block constraint did not deny the write with its id and title: %+v", r)
	}
	if _, err := os.Stat(heldout); !os.IsNotExist(err) {
		t.Errorf("the held-out file was written")
	}
	if r := resultFor(t, res, "toolu_anchor"); r.IsError {
		t.Fatalf("the anchored edit was refused: %s", r.Text)
	}
	if !res.Mock.Saw(ConvMain, "drifted") || !res.Mock.Saw(ConvMain, "src/score.go#Score") {
		t.Errorf("no note that the brief drifted reached the model")
	}
}

// TestMemoryCarriesAcrossSessions (issue 6): a decision recorded in session
// 1 is recalled into what the model receives in session 2, for a prompt
// that asks about it in other words.
func TestMemoryCarriesAcrossSessions(t *testing.T) {
	root := vibeRoot(t)
	project := vibeProject(t)
	vibeHome := TempDir(t)
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	env := []string{"VIBE_HOME=" + vibeHome}
	design := filepath.Join(project, "RQ-001", "DESIGN.md")
	res1 := RunClaude(t, RunOptions{Prompt: "record the split decision", PluginDir: root, ProjectDir: project, Env: env,
		Script: Script{Turns: []Turn{
			{Tool("Write", map[string]any{"file_path": design, "content": "# Design\n\nDecision: hold out whole guides (guide-held-out splitting); site-level splits leak guide identity into the test folds.\n"}).WithID("toolu_design")},
			{Text("recorded")},
		}}})
	if res1.ExitCode != 0 || resultFor(t, res1, "toolu_design").IsError {
		t.Fatalf("session 1 failed: %d %s", res1.ExitCode, tail(res1.Stderr, 2000))
	}
	res2 := RunClaude(t, RunOptions{Prompt: "How should the guides be split for cross-validation folds?", PluginDir: root, ProjectDir: project, Env: env,
		Script: Script{Turns: []Turn{{Text("by guide")}}}})
	if res2.ExitCode != 0 {
		t.Fatalf("session 2: exit %d", res2.ExitCode)
	}
	if !res2.Mock.Saw(ConvMain, "guide-held-out splitting") {
		t.Errorf("the decision from session 1 did not reach the model in session 2")
	}
	if !res2.Mock.Saw(ConvMain, "[VIBE RECALL") {
		t.Errorf("no prompt recall block reached the model")
	}
}
