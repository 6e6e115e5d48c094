package integritycheck

import (
	"context"
	"reflect"
	"testing"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

func TestCheckCycles(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		files  map[string]string
		result verdict.Result
		notes  []string
	}{
		{"no ledger", nil, verdict.Pass, nil},
		{"a chain", map[string]string{
			".vibe-science/CLAIM-LEDGER.md": "## C-001: a\n- status: PROVISIONAL\n- depends-on: C-002\n\n## C-002: b\n- status: PROVISIONAL\n",
		}, verdict.Pass, nil},
		{"two claims resting on each other", map[string]string{
			".vibe-science/CLAIM-LEDGER.md": "## C-001: a\n- status: PROVISIONAL\n- depends-on: C-002\n\n## C-002: b\n- status: PROVISIONAL\n- depends-on: C-001\n",
		}, verdict.Warn, []string{"C-001 → C-002 → C-001"}},
		{"a claim supported by a review that cites it", map[string]string{
			".vibe-science/CLAIM-LEDGER.md":              "## C-003: c\n- status: PROVISIONAL\n- evidence: RQ-001/05-reviewer2/r1.md\n",
			".vibe-science/RQ-001/05-reviewer2/r1.md":    "Review of C-003: holds.\n",
			".vibe-science/RQ-001/05-reviewer2/notes.md": "",
		}, verdict.Warn, []string{".vibe-science/RQ-001/05-reviewer2/r1.md → C-003 → .vibe-science/RQ-001/05-reviewer2/r1.md"}},
		{"a ledger at the top of the project", map[string]string{
			"CLAIM-LEDGER.md": "## C-005: e\n- status: PROVISIONAL\n- depends-on: C-005\n",
		}, verdict.Warn, []string{"C-005 → C-005"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proj := newProject(t)
			for rel, content := range c.files {
				writeFile(t, proj, rel, content)
			}
			vs, err := Check(ctx, nil, proj.Root, t0)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 1 || vs[0].Check != claim.CheckCircular || vs[0].Result != c.result {
				t.Fatalf("got %+v", vs)
			}
			if !reflect.DeepEqual(vs[0].Evidence.Notes, c.notes) {
				t.Errorf("cycles %q, want %q", vs[0].Evidence.Notes, c.notes)
			}
		})
	}
}

func TestCheckDriftPerDomainGolden(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	proj := newProject(t)
	writeFile(t, proj, ".vibe-science/CLAIM-LEDGER.md", "## C-001: a\n- status: PROVISIONAL\n- depends-on: C-002\n\n## C-002: b\n- depends-on: C-001\n")
	rows := []record.ThresholdChange{
		{ProjectPath: proj.Root, Domain: "generic", Key: "dq2.min_auc", Old: 0.55, New: 0.5, Bps: 909, Loosens: true, Direction: "lower_looser", At: t0.Add(-10 * day)},
		{ProjectPath: proj.Root, Domain: "crispr-off-target", Key: "dq2.max_fold_cv", Old: 0.5, New: 0.52, Bps: 400, Loosens: true, Direction: "higher_looser", At: t0.Add(-day)},
		// Out of the window: its domain is not reported at all.
		{ProjectPath: proj.Root, Domain: "particle-physics", Key: "dq2.min_auc", Old: 0.6, New: 0.5, Bps: 1667, Loosens: true, Direction: "lower_looser", At: t0.Add(-200 * day)},
		// Another project's history never counts.
		{ProjectPath: "/elsewhere", Domain: "generic", Key: "dq2.min_auc", Old: 0.5, New: 0.4, Bps: 2000, Loosens: true, Direction: "lower_looser", At: t0},
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.AddThresholdChanges(ctx, rows) }); err != nil {
		t.Fatal(err)
	}
	first, err := Check(ctx, st, proj.Root, t0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range first {
		got = append(got, v.Check+" "+string(v.Result)+" "+number(v, "total_bps"))
	}
	want := []string{"D1-circular-logic WARN ", "D3-threshold-drift PASS 400", "D3-threshold-drift WARN 909"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Running twice gives identical verdicts, byte for byte.
	second, _ := Check(ctx, st, proj.Root, t0)
	a, _ := verdict.Canonical(first)
	b, _ := verdict.Canonical(second)
	if string(a) != string(b) {
		t.Error("two runs differ")
	}
	golden(t, "check.golden.json", first)
}

func TestUnseen(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	proj := newProject(t)
	note := verdict.New("brief-anchors", verdict.Warn, verdict.Med, "drifted", map[string]string{"a": "1"})
	fresh := verdict.New("brief-anchors", verdict.Warn, verdict.Med, "drifted", map[string]string{"a": "2"})
	recorded := verdict.New("D1-circular-logic", verdict.Pass, verdict.Low, "no cycle", nil)
	deny := verdict.New("brief-constraint", verdict.HardBlock, verdict.High, "breaks BC-001", map[string]string{"c": "BC-001"})
	ask := verdict.New("brief-constraint", verdict.Warn, verdict.Med, "confirm BC-002", map[string]string{"c": "BC-002"})
	ask.Evidence.Notes = []string{brief.AskNote}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		return tx.AppendAdvisories(ctx, record.AdvisoryContext{ProjectPath: proj.Root, Event: "PreToolUse", At: t0},
			[]verdict.Verdict{note, recorded, deny, ask})
	}); err != nil {
		t.Fatal(err)
	}
	got, err := Unseen(ctx, st, proj, []verdict.Verdict{note, deny, fresh, ask, recorded, fresh})
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for _, v := range got {
		hashes = append(hashes, v.DecisionHash)
	}
	if want := []string{deny.DecisionHash, fresh.DecisionHash, ask.DecisionHash}; !reflect.DeepEqual(hashes, want) {
		t.Errorf("kept %v, want deny, fresh, ask", got)
	}
	// Without a store only repeats inside the batch go.
	got, _ = Unseen(ctx, nil, proj, []verdict.Verdict{note, note, deny})
	if len(got) != 2 || got[0].DecisionHash != note.DecisionHash || got[1].DecisionHash != deny.DecisionHash {
		t.Errorf("no store: %+v", got)
	}
}
