package viewer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// fixtureDir holds the hook inputs Claude Code 2.1.330 recorded
// (testdata/clients/claude-code-2.1.330/README.md).
const fixtureDir = "../../testdata/clients/claude-code-2.1.330"

// recordedProject is the project path the fixtures were recorded in.
const recordedProject = "/home/researcher/project"

// researchSession is the scripted session's id.
const researchSession = "5c1e7a00-0000-4000-8000-00000000beef"

// injected is text a tool call carried that must show as text, never as
// markup.
const injected = `<script>document.title='pwned'</script><img src=x onerror="document.title='pwned'"><b id="injected">bold</b>`

// filled is a project and database filled by replaying the recorded hook
// fixtures and a scripted research session.
type filled struct {
	home, proj, db string
	clock          time.Time
	fixtures       int
}

var specByEvent = map[string]hookrun.Spec{
	"SessionStart":     handler.SessionStart,
	"UserPromptSubmit": handler.PromptSubmit,
	"PreToolUse":       handler.PreToolUse,
	"PostToolUse":      handler.PostToolUse,
	"Stop":             handler.Stop,
	"SubagentStop":     handler.Stop,
	"SessionEnd":       handler.SessionEnd,
	"PreCompact":       handler.SessionEnd,
}

// runHook runs one hook in-process, as the worker would.
func (f *filled) runHook(t testing.TB, event string, stdin []byte) {
	t.Helper()
	spec, ok := specByEvent[event]
	if !ok {
		return
	}
	env := map[string]string{"VIBE_HOME": f.home, "HOME": f.home, "VIBE_WORKER": "off"}
	var out, errOut bytes.Buffer
	now := f.clock
	e := &hookrun.Env{Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Now: func() time.Time { return now }, Getenv: func(k string) string { return env[k] }}
	if code := hookrun.Main(spec, e); code != 0 && code != 2 {
		t.Fatalf("%s hook exited %d: %s %s", event, code, out.String(), errOut.String())
	}
	f.clock = f.clock.Add(7 * time.Second)
}

// fill builds the test project.
func fill(t testing.TB) *filled {
	t.Helper()
	fixtures, _ := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	if len(fixtures) == 0 {
		t.Fatalf("no recorded hook fixtures in %s", fixtureDir)
	}
	f := &filled{home: t.TempDir(), clock: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	f.proj = filepath.Join(t.TempDir(), "project")
	f.db = filepath.Join(f.home, "db", "vibe-science.db")
	if err := os.MkdirAll(filepath.Join(f.proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.proj, ".vibe-science"), 0o755); err != nil { // a vibe project (project.OptedIn)
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(f.proj); err == nil {
		f.proj = real
	}
	for _, path := range fixtures {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.ReplaceAll(raw, []byte(recordedProject), []byte(f.proj))
		name := filepath.Base(path)
		event := strings.TrimSuffix(name[strings.IndexByte(name, '-')+1:], ".json")
		f.runHook(t, event, raw)
		f.fixtures++
	}
	f.research(t)
	return f
}

// research scripts a research session: hook events where a hook records the
// thing (the spine, with a tool call carrying HTML), and the store's own
// writers for what reviewers, gates and the observer record (claim events,
// gate results, reviews, seeds, alerts, literature, calibration).
func (f *filled) research(t testing.TB) {
	t.Helper()
	ev := func(event string, fields string) []byte {
		return []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/tmp/t.jsonl","cwd":%q,"hook_event_name":%q%s}`,
			researchSession, f.proj, event, fields))
	}
	f.runHook(t, "SessionStart", ev("SessionStart", `,"source":"startup"`))
	f.runHook(t, "PostToolUse", ev("PostToolUse", fmt.Sprintf(
		`,"tool_name":"Bash","tool_input":{"command":%q,"description":"print a note"},"tool_response":{"stdout":%q,"stderr":"","interrupted":false},"tool_use_id":"toolu_html"`,
		"echo '"+injected+"'", injected)))
	f.runHook(t, "PostToolUse", ev("PostToolUse",
		`,"tool_name":"WebSearch","tool_input":{"query":"CRISPR off-target mismatch tolerance"},"tool_response":{"results":[]},"tool_use_id":"toolu_lit"`))
	f.runHook(t, "Stop", ev("Stop", `,"prompt_id":"p-1","stop_hook_active":false`))

	files := map[string]string{
		".vibe-science/CLAIM-LEDGER.md": `# Claim ledger

## C-001: Off-target rate rises with mismatch count
- status: PROVISIONAL
- type: correlative
- confidence: 0.62
- evidence: 05-reviewer2/R2-001.md, data/offtarget.csv

## C-002: Mismatch count causes the off-target rise
- status: DISPUTED
- type: causal
- confidence: 0.40
- depends-on: C-001
- evidence: C-003

## C-003: Seed-region mismatches matter most
- status: PROVISIONAL
- type: descriptive
- confidence: 0.55
- depends-on: C-002

## C-004: Guide GC content is unrelated to off-target rate
- status: VERIFIED
- type: correlative
- confidence: 0.80
- evidence: data/gc.csv
`,
		".vibe-science/05-reviewer2/R2-001.md": "# R2-001 (INLINE)\n\nReviewed C-001: the support for C-001 is this review itself.\n",
		"data/offtarget.csv":                   "guide,mismatches,rate\ng1,0,0.01\n",
		".vibe-science/STATE.md":               "# State\n\nRQ-001: off-target rate vs mismatches <in progress>\n",
		"data/gc.csv":                          "guide,gc,rate\ng1,0.5,0.01\n",
		".vibe-science/RQ-001/04-results/FINDINGS.md": "# Findings\n\nSeed mismatches matter (doi:10.1038/nbt.2647), " +
			"as <b>doi:10.9999/fabricated.2021.001</b> claimed.\n",
	}
	for rel, content := range files {
		p := filepath.Join(f.proj, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	ctx := context.Background()
	st, err := store.Open(ctx, f.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conf := func(v float64) *float64 { return &v }
	at := f.clock
	next := func() time.Time { at = at.Add(time.Minute); return at }
	err = st.Tx(ctx, func(tx *store.Tx) error {
		steps := []struct {
			evs []record.ClaimEvent
		}{
			{[]record.ClaimEvent{{ClaimID: "C-001", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: conf(0.5), SourceRef: ".vibe-science/CLAIM-LEDGER.md#toolu_1"}}},
			{[]record.ClaimEvent{{ClaimID: "C-002", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: conf(0.7)}}},
			{[]record.ClaimEvent{{ClaimID: "C-001", Type: "CONFIDENCE_CHANGED", OldStatus: "PROVISIONAL", NewStatus: "PROVISIONAL", Confidence: conf(0.62)}}},
			{[]record.ClaimEvent{{ClaimID: "C-003", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: conf(0.55)}}},
			{[]record.ClaimEvent{{ClaimID: "C-002", Type: "DISPUTED", OldStatus: "PROVISIONAL", NewStatus: "DISPUTED", Confidence: conf(0.4), R2Verdict: "WEAK", Narrative: "R2: confounded by guide GC content"}}},
			{[]record.ClaimEvent{{ClaimID: "C-004", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: conf(0.8)}}},
			{[]record.ClaimEvent{{ClaimID: "C-004", Type: "VERIFIED", OldStatus: "PROVISIONAL", NewStatus: "VERIFIED", Confidence: conf(0.8), GateID: "DQ4"}}},
			{[]record.ClaimEvent{{ClaimID: "C-005", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: conf(0.9)}}},
			{[]record.ClaimEvent{{ClaimID: "C-005", Type: "KILLED", OldStatus: "PROVISIONAL", NewStatus: "KILLED", KillReason: "ARTIFACT", Narrative: "batch effect"}}},
		}
		for _, s := range steps {
			if err := tx.AddClaimEvents(ctx, researchSession, f.proj, next(), s.evs); err != nil {
				return err
			}
		}
		for i, st := range []gate.Status{gate.StatusPass, gate.StatusPass, gate.StatusFail, gate.StatusWarn, gate.StatusPass, gate.StatusFail} {
			claimID := ""
			if i%2 == 0 {
				claimID = "C-001"
			}
			r := gate.Result{Gate: "DQ2", Status: st, Checks: []gate.Check{{Name: "min_auc", Status: st, Detail: fmt.Sprintf("run %d", i)}}}
			if _, err := tx.AddGateCheck(ctx, record.GateCheck{Session: researchSession, Project: f.proj, ClaimID: claimID, Result: r.Record(), At: next()}); err != nil {
				return err
			}
		}
		r := gate.Result{Gate: "DQ4", Status: gate.StatusPass, Checks: []gate.Check{{Name: "numbers", Status: gate.StatusPass}}}
		if _, err := tx.AddGateCheck(ctx, record.GateCheck{Session: researchSession, Project: f.proj, ClaimID: "C-004", Result: r.Record(), At: next()}); err != nil {
			return err
		}
		j0 := 7
		if _, err := tx.UpsertReview(ctx, record.R2Review{ReviewID: "R2-001", SessionID: researchSession, ProjectPath: f.proj,
			Mode: "INLINE", Claims: []string{"C-001", "C-002"}, J0Score: &j0, SFIKnown: true, SFIInjected: 3, SFICaught: 2,
			Weaknesses: []string{"D3"}, SourcePath: ".vibe-science/05-reviewer2/R2-001.md", At: next()}); err != nil {
			return err
		}
		score := 0.7
		for i, seed := range []record.SeedRecord{
			{SeedID: "SEED-20261120-001", ProjectPath: f.proj, Status: "PENDING_TRIAGE", Source: "SALVAGED_FROM_R2", Score: &score,
				CausalQuestion: "Does GC content confound the mismatch effect?", SalvagedFrom: "C-002"},
			{SeedID: "SEED-20261120-002", ProjectPath: f.proj, Status: "PENDING_TRIAGE", Source: "OBSERVATION",
				CausalQuestion: "Why do guides with <3 mismatches cluster?"},
		} {
			if _, err := tx.UpsertSeed(ctx, seed, researchSession, next()); err != nil {
				return fmt.Errorf("seed %d: %w", i, err)
			}
		}
		if _, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: f.proj, SessionID: researchSession, Check: "literature_stale",
			Level: "WARN", Message: "No literature search in the last 40 actions", Fingerprint: "lit-1", At: next()}); err != nil {
			return err
		}
		n := 40
		if _, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: researchSession, ProjectPath: f.proj,
			Query: "seed region mismatch specificity", Sources: []string{"pubmed", "biorxiv"}, KeyPapers: []string{"10.1038/nbt.2647"},
			Retrieved: []string{"10.1038/nbt.2647"}, ResultsCount: &n, Layer: "MCP", At: next()}); err != nil {
			return err
		}
		// Twelve resolved claims, confident ones mostly held: enough for a
		// Brier score and a reliability diagram.
		outcomes := []struct {
			p    float64
			held bool
		}{{0.9, true}, {0.85, true}, {0.8, false}, {0.75, true}, {0.7, true}, {0.6, false},
			{0.55, true}, {0.4, false}, {0.35, false}, {0.3, true}, {0.2, false}, {0.1, false}}
		for i, o := range outcomes {
			out := "REJECTED"
			if o.held {
				out = "VERIFIED"
			}
			if _, err := tx.AddCalibration(ctx, record.CalibrationEntry{ClaimID: fmt.Sprintf("C-%03d", 100+i), ProjectPath: f.proj,
				SessionID: researchSession, Predicted: o.p, Outcome: out, At: next()}); err != nil {
				return err
			}
		}
		// Memories: a note a newer, less trusted insight contradicts (the
		// note disputed, the insight disputing it), a hypothesis, a
		// forgotten note, and a decision a newer one supersedes.
		var ids []int64
		for _, m := range []record.NewMemory{
			{Kind: record.KindNote, Text: "Batch 3 failed QC on the GC-rich guides", Source: "cli"},
			{Kind: record.KindInsight, Text: "Batch 3 passed QC once re-run: the failure was the sequencer", Source: "import",
				Ref: "notes.jsonl:2", Trust: record.Trust(0.5)},
			{Kind: record.KindHypothesis, Text: "Seed-region <mismatches> drive the off-target rate", Source: "cli"},
			{Kind: record.KindNote, Text: "a note forgotten since", Source: "cli"},
			{Kind: record.KindDecision, Text: "Call off-target sites at a 1% read threshold", Source: "cli"},
			{Kind: record.KindDecision, Text: "Call off-target sites at a 0.1% read threshold", Source: "cli"},
		} {
			m.ProjectPath, m.SessionID, m.At = f.proj, researchSession, next()
			id, _, err := tx.AddMemory(ctx, m)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if _, err := tx.LinkConflict(ctx, ids[1], ids[0], at); err != nil {
			return err
		}
		if _, err := tx.LinkConflict(ctx, ids[5], ids[4], at); err != nil {
			return err
		}
		if err := tx.ForgetMemory(ctx, ids[3]); err != nil {
			return err
		}
		// A warning PostToolUse gave (DC0's, as a hook records it).
		v := verdict.New("DC0", verdict.Warn, verdict.Med, "results/sample.csv is no input or output of a planned step.", nil)
		v.Recommendation = "Record it in DESIGN.md under Deviations."
		return tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: researchSession, ProjectPath: f.proj, Event: "PostToolUse",
			Tool: "Bash", ToolUseID: "toolu_sample", At: next()}, []verdict.Verdict{v}, record.Decided{Kind: "warn", File: "results/sample.csv"})
	})
	if err != nil {
		t.Fatalf("script the research session: %v", err)
	}
	f.clock = at.Add(time.Minute)
	// Decisions of the real PreToolUse hook, now that .vibe-science/
	// exists: reviewer2 may not write the claim ledger (deny), installing
	// a package needs the user's approval (ask).
	f.runHook(t, "PreToolUse", ev("PreToolUse", fmt.Sprintf(
		`,"tool_name":"Write","agent_type":"vibe:reviewer2","tool_input":{"file_path":%q,"content":"x"},"tool_use_id":"toolu_deny"`,
		filepath.Join(f.proj, ".vibe-science", "CLAIM-LEDGER.md"))))
	f.runHook(t, "PreToolUse", ev("PreToolUse",
		`,"tool_name":"Bash","tool_input":{"command":"pip install numpy"},"tool_use_id":"toolu_ask"`))
}
