package integritycheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

const testBrief = `# Brief: Off-target scoring

## Constraints

### BC-001: Never change how guides are split
- severity: Critical
- action: Block
- applies-to: src/split.go#MakeSplits
- rationale: the held-out guides measure generalisation.

### BC-002: Report AUC with its interval
- severity: High
- action: WarnAndConfirm
- applies-to: internal/score/score.go#Score

### BC-003: Keep the CFD matrix as published
- severity: Medium
- action: WarnOnly
- applies-to: data/cfd/

## Decisions

### AD-001: Split by guide (2026-01-10)
- decision: split by guide, never by site.

## Anchors

- internal/score/score.go#Score
- docs/missing.py#later
`

const scoreV1 = "package score\n\n// Score scores.\nfunc Score(x float64) float64 { return x }\n"

// briefProject is a project with the test brief ingested.
func briefProject(t *testing.T) (*store.Store, project.Project, Ingested) {
	t.Helper()
	st := openStore(t)
	proj := newProject(t)
	writeFile(t, proj, "src/split.go", "package src\n\nfunc MakeSplits(n int) []int { return nil }\n")
	writeFile(t, proj, "internal/score/score.go", scoreV1)
	writeFile(t, proj, "docs/brief.md", testBrief)
	in, err := IngestBrief(context.Background(), st, proj, "docs/brief.md", []byte(testBrief), t0)
	if err != nil {
		t.Fatal(err)
	}
	return st, proj, in
}

func TestIngestBrief(t *testing.T) {
	ctx := context.Background()
	st, proj, in := briefProject(t)
	if in.Version.ID == 0 || in.Version.Constraints != 3 || in.Version.Decisions != 1 || in.Version.Anchors != 3 ||
		in.Version.SourcePath != "docs/brief.md" || in.Version.Title != "Off-target scoring" || !in.Version.IngestedAt.Equal(t0) {
		t.Errorf("version %+v", in.Version)
	}
	// The anchor whose file does not exist yet is stored unpinned.
	if len(in.PinErrors) != 1 || !strings.Contains(in.PinErrors[0].Error(), "pin anchor docs/missing.py#later") {
		t.Errorf("pin errors %v", in.PinErrors)
	}
	b, v, ok, err := CurrentBrief(ctx, st, proj)
	if err != nil || !ok || v.ID != in.Version.ID {
		t.Fatalf("current: %v %v %+v", ok, err, v)
	}
	var pinned []string
	for _, a := range b.Anchors {
		pinned = append(pinned, a.String()+" "+a.Signature+" "+map[bool]string{true: "hashed", false: "unhashed"}[a.Hash != ""])
	}
	want := []string{
		"internal/score/score.go#Score func Score(float64) float64 hashed",
		"docs/missing.py#later  unhashed",
		"src/split.go#MakeSplits func MakeSplits(int) []int hashed",
	}
	if !reflect.DeepEqual(pinned, want) {
		t.Errorf("pinned anchors\n got %q\nwant %q", pinned, want)
	}
	if !reflect.DeepEqual(b, in.Brief) {
		t.Errorf("stored brief differs from the ingested one:\n got %+v\nwant %+v", b, in.Brief)
	}

	// A second ingest is a new current version; history keeps both.
	again, err := IngestBrief(ctx, st, proj, "docs/brief.md", []byte(testBrief), t0.Add(day))
	if err != nil || again.Version.ID <= in.Version.ID {
		t.Fatalf("second ingest: %+v %v", again.Version, err)
	}
	hist, _ := st.BriefHistory(ctx, proj.Root, 0)
	if len(hist) != 2 || hist[0].ID != again.Version.ID {
		t.Errorf("history %+v", hist)
	}

	// A brief with problems is not stored and lists every problem.
	_, err = IngestBrief(ctx, st, proj, "bad.md", []byte("# Brief: x\n## Constraints\n### BC-1: t\n- severity: urgent\n- colour: red\n"), t0)
	var pe *ProblemsError
	if !errors.As(err, &pe) || fault.KindOf(err) != fault.Invalid {
		t.Fatalf("bad brief: %v", err)
	}
	var problems []string
	for _, p := range pe.Problems {
		problems = append(problems, p.Error())
	}
	wantProblems := []string{
		`bad.md:5: unknown field "colour" in constraint BC-1: use severity, action, applies-to, rationale or source`,
		`constraint BC-1 has severity "urgent": use Critical, High, Medium or Low`,
		`constraint BC-1 has action "": use Block, WarnAndConfirm, WarnOnly or LogOnly`,
	}
	if !reflect.DeepEqual(problems, wantProblems) {
		t.Errorf("problems\n got %q\nwant %q", problems, wantProblems)
	}
	if hist, _ := st.BriefHistory(ctx, proj.Root, 0); len(hist) != 2 {
		t.Errorf("a bad brief was stored: %d versions", len(hist))
	}
}

func TestBriefWrite(t *testing.T) {
	ctx := context.Background()
	st, proj, _ := briefProject(t)
	cases := []struct {
		rel     string
		results []verdict.Result
		ask     bool
		reason  string
	}{
		{"src/split.go", []verdict.Result{verdict.HardBlock}, false,
			`Writing src/split.go breaks research-brief constraint BC-001 "Never change how guides are split" (Critical, Block), which applies to src/split.go#MakeSplits; leave this file alone, or change the brief first (` + "`vibe brief ingest FILE`" + `) if the research has changed.`},
		{"./internal/score/score.go", []verdict.Result{verdict.Warn}, true,
			`Writing internal/score/score.go touches research-brief constraint BC-002 "Report AUC with its interval" (High, WarnAndConfirm), which applies to internal/score/score.go#Score; the user must confirm this write.`},
		{"data/cfd/matrix.csv", []verdict.Result{verdict.Warn}, false,
			`Writing data/cfd/matrix.csv touches research-brief constraint BC-003 "Keep the CFD matrix as published" (Medium, WarnOnly), which applies to data/cfd/; make sure the change respects it.`},
		{"README.md", nil, false, ""},
	}
	for _, c := range cases {
		vs := BriefWrite(ctx, st, proj, c.rel)
		var results []verdict.Result
		for _, v := range vs {
			results = append(results, v.Result)
		}
		if !reflect.DeepEqual(results, c.results) {
			t.Errorf("%s: results %v, want %v", c.rel, results, c.results)
			continue
		}
		if len(vs) == 1 && (vs[0].Reason != c.reason || brief.NeedsConfirm(vs[0]) != c.ask || vs[0].Check != brief.CheckConstraint) {
			t.Errorf("%s:\n got %s ask=%v\nwant %s ask=%v", c.rel, vs[0].Reason, brief.NeedsConfirm(vs[0]), c.reason, c.ask)
		}
	}
	// No brief: nothing to enforce.
	if vs := BriefWrite(ctx, st, newProject(t), "src/split.go"); vs != nil {
		t.Errorf("no brief: %+v", vs)
	}
}

func TestBriefWriteUnreadableBriefTripsTheBreaker(t *testing.T) {
	ctx := context.Background()
	st, proj, _ := briefProject(t)
	st.Close()
	for name, s := range map[string]Reads{"closed store": st, "no store": nil} {
		vs := BriefWrite(ctx, s, proj, "src/split.go")
		if len(vs) != 1 || vs[0].Check != "circuit-breaker" || vs[0].Result != verdict.Warn ||
			!strings.Contains(vs[0].Reason, "research brief's constraints were not checked") {
			t.Errorf("%s: %+v", name, vs)
		}
		if v, ok := AnchorEdited(ctx, s, proj, "internal/score/score.go"); !ok || v.Check != "circuit-breaker" {
			t.Errorf("%s: anchor check %v %+v", name, ok, v)
		}
	}
}

func TestAnchorEdited(t *testing.T) {
	ctx := context.Background()
	st, proj, _ := briefProject(t)
	const rel = "internal/score/score.go"
	if _, ok := AnchorEdited(ctx, st, proj, rel); ok {
		t.Fatal("unchanged file reported")
	}
	// A body-only change leaves the signature, so the anchor holds.
	writeFile(t, proj, rel, "package score\n\n// Score scores twice.\nfunc Score(y float64) float64 { return 2 * y }\n")
	if v, ok := AnchorEdited(ctx, st, proj, rel); ok {
		t.Fatalf("body change reported: %s", v.Reason)
	}
	// A file with no anchor is never re-checked.
	writeFile(t, proj, "README.md", "x")
	if _, ok := AnchorEdited(ctx, st, proj, "README.md"); ok {
		t.Fatal("unanchored file reported")
	}

	writeFile(t, proj, rel, "package score\n\nfunc Score(x, w float64) float64 { return x * w }\n")
	v, ok := AnchorEdited(ctx, st, proj, rel)
	if !ok {
		t.Fatal("signature change not reported")
	}
	wantReason := "The research brief has drifted: anchor internal/score/score.go#Score moved (signature changed from " +
		"`func Score(float64) float64` to `func Score(float64, float64) float64`). Constraints that rest on it: " +
		`BC-002 "Report AUC with its interval". Check that the code still follows the brief, then re-ingest it with ` +
		"`vibe brief ingest docs/brief.md` so the anchors are pinned again."
	if v.Check != brief.CheckAnchorsName || v.Result != verdict.Warn || v.Reason != wantReason {
		t.Errorf("drift note:\n got %s %s %s\nwant WARN %s", v.Check, v.Result, v.Reason, wantReason)
	}
	if !reflect.DeepEqual(v.Evidence.Paths, []string{rel}) {
		t.Errorf("paths %v", v.Evidence.Paths)
	}

	// Once recorded, the same drift is not repeated.
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		return tx.AppendAdvisories(ctx, record.AdvisoryContext{ProjectPath: proj.Root, Event: "PostToolUse", At: t0}, []verdict.Verdict{v})
	}); err != nil {
		t.Fatal(err)
	}
	if again, ok := AnchorEdited(ctx, st, proj, rel); ok {
		t.Errorf("repeated: %s", again.Reason)
	}
	// A further change is a new decision; a deleted file is missing.
	if err := os.Remove(filepath.Join(proj.Root, rel)); err != nil {
		t.Fatal(err)
	}
	v, ok = AnchorEdited(ctx, st, proj, rel)
	if !ok || !strings.HasPrefix(v.Reason, "The research brief has drifted: anchor internal/score/score.go#Score is missing (file internal/score/score.go no longer exists).") {
		t.Errorf("missing: %v %s", ok, v.Reason)
	}
}

func TestBriefContext(t *testing.T) {
	ctx := context.Background()
	st, proj, in := briefProject(t)
	text, degraded, err := BriefContext(ctx, st, proj, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if text != in.Brief.Context(0, 0) || !strings.Contains(text, "BC-001") || !strings.Contains(text, "AD-001") {
		t.Errorf("context:\n%s", text)
	}
	// docs/missing.py does not exist yet, so the brief starts degraded.
	if degraded.Result != verdict.Warn || !strings.Contains(degraded.Reason, "docs/missing.py#later missing") {
		t.Errorf("degraded at ingest: %s %s", degraded.Result, degraded.Reason)
	}
	writeFile(t, proj, "src/split.go", "package src\n\nfunc MakeSplits(n, k int) []int { return nil }\n")
	_, degraded, _ = BriefContext(ctx, st, proj, 0, 0)
	if !strings.Contains(degraded.Reason, "2 of 3 anchors no longer match the code (docs/missing.py#later missing, src/split.go#MakeSplits drifted)") {
		t.Errorf("degraded after drift: %s", degraded.Reason)
	}
	// A tight cap truncates with a marker.
	short, _, _ := BriefContext(ctx, st, proj, 120, 1)
	if brief.Tokens(short) > 120 || strings.Contains(short, "BC-002") || !strings.Contains(short, "vibe brief show") {
		t.Errorf("capped context (%d tokens):\n%s", brief.Tokens(short), short)
	}
	// No brief: nothing at all.
	text, degraded, err = BriefContext(ctx, st, newProject(t), 0, 0)
	if text != "" || degraded.Check != "" || err != nil {
		t.Errorf("no brief: %q %+v %v", text, degraded, err)
	}
}

// TestBriefCopyEnforcesWithTheDatabaseDown: ingest writes a private copy
// beside the database; with the store closed or absent, a Critical
// constraint still denies from it; a damaged copy trips the breaker, which
// the user's settings can set to fail.
func TestBriefCopyEnforcesWithTheDatabaseDown(t *testing.T) {
	ctx := context.Background()
	st, proj, _ := briefProject(t)
	copyPath := BriefCopy(st.Path(), proj.Root)
	if info, err := os.Stat(copyPath); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("copy %s: %v %v", copyPath, info, err)
	}
	st.Close()
	for name, s := range map[string]Reads{"closed store": st, "no store": nil} {
		vs := BriefWriteWith(ctx, s, copyPath, proj, "src/split.go", integrity.DefaultBreakers())
		if len(vs) != 1 || vs[0].Result != verdict.HardBlock || !strings.Contains(vs[0].Reason, "BC-001") {
			t.Errorf("%s: %+v", name, vs)
		}
	}
	// The copy beside the database gone with it (a lost VIBE_HOME/db): the
	// project's own copy, written at ingest, still denies.
	projectCopy := filepath.Join(proj.Root, filepath.FromSlash(ProjectBriefFile))
	if vs := BriefWriteWith(ctx, nil, BriefCopy(st.Path(), "/elsewhere"), proj, "src/split.go", integrity.DefaultBreakers()); len(vs) != 1 || vs[0].Result != verdict.HardBlock {
		t.Errorf("only the project's copy: %+v", vs)
	}
	// No copy and no database: no brief was ever ingested here.
	os.Remove(projectCopy)
	if vs := BriefWriteWith(ctx, nil, BriefCopy(st.Path(), "/elsewhere"), proj, "src/split.go", integrity.DefaultBreakers()); vs != nil {
		t.Errorf("no copy: %+v", vs)
	}
	os.WriteFile(copyPath, []byte("{not json"), 0o600)
	strict := integrity.Breakers{integrity.DepBrief: integrity.ModeFail}
	vs := BriefWriteWith(ctx, nil, copyPath, proj, "src/split.go", strict)
	if len(vs) != 1 || vs[0].Check != "circuit-breaker" || vs[0].Result != verdict.Block || !strings.Contains(vs[0].Evidence.Notes[0], "is damaged") {
		t.Errorf("damaged copy, breaker fail: %+v", vs)
	}
}

// TestBriefCopyIsWrittenForAnOlderIngest: a brief stored before copies
// existed gets its copy on the first check with the database up.
func TestBriefCopyIsWrittenForAnOlderIngest(t *testing.T) {
	ctx := context.Background()
	st, proj, _ := briefProject(t)
	copyPath := BriefCopy(st.Path(), proj.Root)
	os.Remove(copyPath)
	BriefWriteWith(ctx, st, copyPath, proj, "README.md", integrity.DefaultBreakers())
	if vs := BriefWriteWith(ctx, nil, copyPath, proj, "src/split.go", integrity.DefaultBreakers()); len(vs) != 1 || vs[0].Result != verdict.HardBlock {
		t.Errorf("after the rewrite: %+v", vs)
	}
}
