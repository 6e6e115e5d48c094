package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestExportResearchRecord: vibe export writes the project's research
// record as Markdown (sessions and narratives, the spine, claims with
// their events, gate results, reviews, seeds, alerts) into
// .vibe-science/RECORD.md, and STATE.md links it (issue 16, finding 7).
func TestExportResearchRecord(t *testing.T) {
	f, out, errOut := gateTestFactory(t, nil)
	ctx := context.Background()
	root := clitest.MkVibeDir(t, t.TempDir())
	other := clitest.MkVibeDir(t, t.TempDir())
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conf := 0.7
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for _, s := range []struct{ id, p string }{{"sess-aaaa1111", root}, {"sess-other", other}} {
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: s.id, ProjectPath: s.p, At: gateT0, Start: true}); err != nil {
				return err
			}
		}
		if err := tx.SaveSummary(ctx, record.SessionSummary{ID: "sess-aaaa1111", Narrative: "Trained the baseline | tuned theta.\nSecond line."}); err != nil {
			return err
		}
		if _, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: "sess-aaaa1111", ProjectPath: root, Query: "GUIDE-seq",
			Layer: "WEBSEARCH", At: gateT0, Retrieved: []string{"10.1038/nbt.3117"}}); err != nil {
			return err
		}
		if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "sess-aaaa1111", ProjectPath: root, At: gateT0, ActionType: "MODEL_TRAIN",
			ToolName: "Bash", InputSummary: "python train.py --seed 1"}, nil); err != nil {
			return err
		}
		if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "sess-other", ProjectPath: other, At: gateT0, ActionType: "FILE_WRITE",
			ToolName: "Write", InputSummary: "elsewhere.md"}, nil); err != nil {
			return err
		}
		if err := tx.AddClaimEvents(ctx, "sess-aaaa1111", root, gateT0, []record.ClaimEvent{
			{ClaimID: "C-001", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: &conf, Narrative: "AUC beats baseline"},
			{ClaimID: "C-001", Type: "KILLED", OldStatus: "PROVISIONAL", NewStatus: "KILLED", KillReason: "leakage"},
		}); err != nil {
			return err
		}
		if _, err := tx.AddGateCheck(ctx, record.GateCheck{Session: "sess-aaaa1111", Project: root, ClaimID: "C-001", At: gateT0,
			Result: gate.Result{Gate: "DQ4", Status: gate.StatusFail, Checks: []gate.Check{{Name: "numbers", Status: gate.StatusFail, Detail: "0.86 not in JSON"}}}.Record()}); err != nil {
			return err
		}
		if _, err := tx.UpsertReview(ctx, record.R2Review{ReviewID: "R2-20260302-001", SessionID: "sess-aaaa1111", ProjectPath: root,
			Mode: "FORCED", Claims: []string{"C-001"}, At: gateT0}); err != nil {
			return err
		}
		if _, err := tx.UpsertSeed(ctx, record.SeedRecord{SeedID: "SEED-001", ProjectPath: root, Status: "PENDING", Title: "GC bias",
			CausalQuestion: "Does GC content drive the error?"}, "sess-aaaa1111", gateT0); err != nil {
			return err
		}
		if _, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: root, SessionID: "sess-aaaa1111", Check: "drift", Level: "WARN",
			Message: "threshold loosened", Fingerprint: "fp1", At: gateT0}); err != nil {
			return err
		}
		v := verdict.New("DQ4", verdict.Block, verdict.High, "0.86 in FINDINGS.md is not in FINDINGS.json.", nil)
		v.Recommendation = "Write the number from FINDINGS.json."
		if err := tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: "sess-aaaa1111", ProjectPath: root, Event: "PreToolUse",
			Tool: "Write", At: gateT0}, []verdict.Verdict{v}, record.Decided{Kind: "deny", File: "RQ-001/04-results/FINDINGS.md"}); err != nil {
			return err
		}
		pass := verdict.New("DQ1", verdict.Pass, verdict.Low, "DQ1 PASS", nil)
		if err := tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: "sess-aaaa1111", ProjectPath: root, Event: "PostToolUse",
			Tool: "Bash", At: gateT0}, []verdict.Verdict{pass}, record.Decided{Kind: "recorded"}); err != nil {
			return err
		}
		for _, m := range []record.NewMemory{
			{ProjectPath: root, Kind: record.KindNote, Text: "batch 3 was re-run", Source: "cli", At: gateT0},
			{ProjectPath: root, Kind: record.KindInsight, Text: "GC | content explains the error", Source: "import", Ref: "notes.jsonl:4",
				Trust: record.Trust(0.5), At: gateT0.Add(time.Minute)},
			{ProjectPath: root, Kind: record.KindAction, Text: "MODEL_TRAIN: python train.py", Source: "hook", At: gateT0},
			{ProjectPath: other, Kind: record.KindNote, Text: "another project's note", Source: "cli", At: gateT0},
		} {
			if _, _, err := tx.AddMemory(ctx, m); err != nil {
				return err
			}
		}
		// M-2 contradicts M-1 and is newer: M-1 is superseded, M-2 disputed.
		_, err := tx.LinkConflict(ctx, 2, 1, gateT0.Add(time.Minute))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	findings := filepath.Join(root, ".vibe-science", "RQ-001", "04-results", "FINDINGS.md")
	os.MkdirAll(filepath.Dir(findings), 0o755)
	if err := os.WriteFile(findings, []byte("# Findings\n\nAs in doi:10.1038/nbt.3117 and doi:10.9999/fabricated.2021.001.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runExport(ctx, &ExportOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, Project: root}); err != nil {
		t.Fatalf("export: %v\n%s", err, errOut)
	}
	record := filepath.Join(root, ".vibe-science", "RECORD.md")
	raw, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	for _, want := range []string{
		"# Research record: " + filepath.Base(root) + "\n",
		"\n## Sessions\n",
		"### Session sess-aaa (started 2026-03-02 10:30 UTC)\n",
		"Trained the baseline | tuned theta.\nSecond line.\n",
		"\n## Research spine\n",
		"| 2026-03-02 10:30 | sess-aaa | MODEL_TRAIN | Bash | python train.py --seed 1 |\n",
		"\n## Claims\n",
		"### C-001\n",
		"| 2026-03-02 10:30 | CREATED | → PROVISIONAL | 0.70 | AUC beats baseline |\n",
		"| 2026-03-02 10:30 | KILLED | PROVISIONAL → KILLED |  | killed: leakage |\n",
		"\n## Citations\n\nEvery DOI, PMID, PMCID, arXiv id and ISBN the research files cite",
		"| status | id | cited in | retrieved by |\n|---|---|---|---|\n" +
			"| invalid | doi:10.9999/fabricated.2021.001 | .vibe-science/RQ-001/04-results/FINDINGS.md:3 | cannot exist: its prefix 10.9999 is a prefix no registration agency has assigned, the usual placeholder of invented references |\n" +
			"| retrieved | doi:10.1038/nbt.3117 | .vibe-science/RQ-001/04-results/FINDINGS.md:3 | search 1 (WEBSEARCH \"GUIDE-seq\", session sess-aaa) |\n\n## Gate results",
		"\n## Gate results\n",
		"| 2026-03-02 10:30 | DQ4 | C-001 | FAIL | 0.86 not in JSON |\n",
		"\n## Reviews\n",
		"| 2026-03-02 10:30 | R2-20260302-001 | FORCED | C-001 |",
		"\n## Serendipity seeds\n",
		"| SEED-001 | PENDING |  | GC bias: Does GC content drive the error? |\n",
		"\n## Observer alerts\n",
		"| 2026-03-02 10:30 | WARN | drift | threshold loosened | open |\n",
		"\n## Decisions\n\nWhat vibe's hooks denied, blocked, asked and warned (`vibe decisions` lists them too).\n\n" +
			"| time (UTC) | session | hook | decision | check | tool | file | message | fix |\n|---|---|---|---|---|---|---|---|---|\n" +
			"| 2026-03-02 10:30 | sess-aaa | PreToolUse | deny | DQ4 | Write | RQ-001/04-results/FINDINGS.md | 0.86 in FINDINGS.md is not in FINDINGS.json. | Write the number from FINDINGS.json. |\n\n## Reviews",
		"\n## Memories\n\nWhat recall searches, oldest first, but the actions and narratives the spine and the sessions above hold. " +
			"Trust runs from 0 to 1 and starts at its source's (code 1.00, person 1.00, paper 0.85, blog 0.50, model 0.35); " +
			"trust settles a contradiction, then recency: a superseded memory is contradicted by a newer one at least as trusted, " +
			"a disputing one contradicts an older, better-sourced one (which stays current), a disputed one contradicts another and stands.\n\n" +
			"| memory | time (UTC) | kind | trust | source | state | text |\n|---|---|---|---|---|---|---|\n" +
			// The newer memory is less trusted (0.5): it disputes the older one, which stays current.
			"| M-1 | 2026-03-02 10:30 | note | 1.00 | cli | disputed by M-2 (newer, less trusted) | batch 3 was re-run |\n" +
			"| M-2 | 2026-03-02 10:31 | insight | 0.50 | import: notes.jsonl:4 | disputes M-1 (better sourced, current) | GC \\| content explains the error |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("record lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "elsewhere.md") || strings.Contains(md, "sess-oth") || strings.Contains(md, "another project's note") ||
		strings.Contains(md, "MODEL_TRAIN: python") || strings.Contains(md, "DQ1 PASS") {
		t.Errorf("another project's records leaked into the export:\n%s", md)
	}
	if out.String() != "wrote "+record+" (1 session, 1 spine entry, 1 claim, 2 citations, 1 gate result, 1 decision, 1 review, 1 seed, 1 alert, 2 memories)\n" {
		t.Errorf("stdout %q", out)
	}
	state, err := os.ReadFile(filepath.Join(root, ".vibe-science", "STATE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(state), "- research record: [RECORD.md](RECORD.md), written by `vibe export`") {
		t.Errorf("STATE.md does not link the record:\n%s", state)
	}

	// To stdout, nothing written.
	out.Reset()
	if err := runExport(ctx, &ExportOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, Project: other, Output: "-"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| FILE_WRITE | Write | elsewhere.md |") {
		t.Errorf("stdout export:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(other, ".vibe-science", "RECORD.md")); !os.IsNotExist(err) {
		t.Errorf("--output - wrote a file: %v", err)
	}
}

var gateT0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

// gateTestFactory shows tables as a 200-column terminal does (root's
// output_test.go checks the pipe form).
func gateTestFactory(t *testing.T, env map[string]string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: gateT0, Env: env, TTY: true, Width: 200})
}
