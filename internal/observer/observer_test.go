package observer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

type env struct {
	t    testing.TB
	st   *store.Store
	proj project.Project
	n    int
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	proj := project.Project{Root: root}
	if err := os.MkdirAll(proj.VibeDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &env{t: t, st: st, proj: proj}
}

// write creates a file under .vibe-science with the given mtime.
func (e *env) write(rel, content string, mtime time.Time) string {
	e.t.Helper()
	p := e.proj.Path(filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// actions records spine entries of session s1, one a minute from start.
func (e *env) actions(start time.Time, types ...string) {
	e.t.Helper()
	ctx := context.Background()
	err := e.st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: e.proj.Root, At: start}); err != nil {
			return err
		}
		for i, typ := range types {
			e.n++
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "s1", ProjectPath: e.proj.Root,
				At: start.Add(time.Duration(i) * time.Minute), ActionType: typ, ToolName: "Write",
				ToolUseID: fmt.Sprintf("t%d", e.n)}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func repeat(typ string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = typ
	}
	return out
}

func (e *env) run(now time.Time) []Alert {
	e.t.Helper()
	raised, err := Run(context.Background(), e.st, e.proj, "s1", now, Config{})
	if err != nil {
		e.t.Fatal(err)
	}
	return raised
}

func (e *env) open() []Alert {
	e.t.Helper()
	as, err := e.st.Alerts(context.Background(), record.AlertFilter{Project: e.proj.Root})
	if err != nil {
		e.t.Fatal(err)
	}
	return as
}

func (e *env) all() []Alert {
	e.t.Helper()
	as, err := e.st.Alerts(context.Background(), record.AlertFilter{Project: e.proj.Root, IncludeResolved: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return as
}

// summary renders alerts as "LEVEL check" items, for exact comparisons.
func summary(as []Alert) string {
	var out []string
	for _, a := range as {
		s := a.Level + " " + a.Check
		if a.Resolved {
			s += " (" + a.Resolution + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

const goodState = "# State\n\nphase: analysis\n\n## Next\n- train\n"

func TestForensicC6(t *testing.T) {
	// C6: PostToolUse runs the observer checks periodically, every 10 tool uses.
	for _, c := range []struct {
		calls, every int
		want         bool
	}{
		{0, 10, false}, {1, 10, false}, {9, 10, false}, {10, 10, true}, {11, 10, false}, {15, 10, false},
		{20, 10, true}, {30, 10, true}, {10, 0, true}, {5, 0, false}, {20, -3, true}, {1, 1, true}, {7, 7, true}, {8, 7, false},
	} {
		if got := Due(c.calls, c.every); got != c.want {
			t.Errorf("Due(%d, %d) = %v, want %v", c.calls, c.every, got, c.want)
		}
	}

	// The lead's loop: count the session's calls after recording each, run
	// the observer when Due. STATE.md is missing until call 12: the run at
	// call 10 raises that, the run at call 20 resolves it, and the times on
	// the alert show exactly when the observer ran.
	ctx := context.Background()
	e := newEnv(t)
	var ranAt []int
	callTime := func(call int) time.Time { return t0.Add(time.Duration(call) * time.Minute) }
	for call := 1; call <= 25; call++ {
		e.actions(callTime(call), "CODE_EDIT")
		if call == 12 {
			e.write("STATE.md", goodState, callTime(call))
		}
		var n int
		if err := e.st.Tx(ctx, func(tx *store.Tx) error {
			var err error
			n, err = tx.SessionToolCalls(ctx, "s1")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if n != call {
			t.Fatalf("call %d counted as %d", call, n)
		}
		if Due(n, 10) {
			ranAt = append(ranAt, call)
			e.run(callTime(call))
		}
	}
	if fmt.Sprint(ranAt) != "[10 20]" {
		t.Fatalf("observer ran at calls %v, want [10 20]", ranAt)
	}
	all := e.all()
	if summary(all) != "WARN state-stale (observer: STATE.md was updated)" || !all[0].CreatedAt.Equal(callTime(10)) ||
		!all[0].ResolvedAt.Equal(callTime(20)) {
		t.Fatalf("alerts %+v", all)
	}
}

func TestStateStaleness(t *testing.T) {
	e := newEnv(t)
	state := e.write("STATE.md", goodState, t0)
	e.actions(t0.Add(time.Hour), "CODE_EDIT")
	first := t0.Add(time.Hour)

	if got := e.run(first.Add(23 * time.Hour)); len(got) != 0 {
		t.Fatalf("23 h: %v", summary(got))
	}
	warn := e.run(first.Add(25 * time.Hour))
	if summary(warn) != "WARN state-stale" {
		t.Fatalf("25 h: %q", summary(warn))
	}
	want := "Work has gone on for 25 h since STATE.md was last updated (LAW 7: the project must be resumable from its files): write where the work stands and the next step in .vibe-science/STATE.md, outside vibe's markers; at 72 h (3 days) this becomes a HALT."
	if warn[0].Message != want {
		t.Fatalf("message\n%s\nwant\n%s", warn[0].Message, want)
	}
	if warn[0].Fingerprint != fmt.Sprintf("state-stale:WARN:%d", t0.UnixMilli()) {
		t.Fatalf("fingerprint %s", warn[0].Fingerprint)
	}
	if got := e.run(first.Add(30 * time.Hour)); len(got) != 0 {
		t.Fatalf("an open alert was raised again: %v", summary(got))
	}
	halt := e.run(first.Add(73 * time.Hour))
	if summary(halt) != "HALT state-stale" || !strings.Contains(halt[0].Message, "writes are denied until .vibe-science/STATE.md says where the work stands") {
		t.Fatalf("73 h: %+v", halt)
	}
	if got := summary(e.all()); got != "HALT state-stale; WARN state-stale (observer: STATE.md was updated)" {
		// the WARN gave way to the HALT
		t.Fatalf("after escalation: %q", got)
	}

	// vibe rewriting its own section is not an update.
	if _, err := resume.UpdateState(state, "- updated: now\n- facts"); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(state, first.Add(74*time.Hour), first.Add(74*time.Hour))
	e.run(first.Add(75 * time.Hour))
	halts, err := OpenHalts(context.Background(), e.st, e.proj, first.Add(75*time.Hour))
	if err != nil || len(halts) != 1 {
		t.Fatalf("HALT must stand after vibe's own rewrite: %v %v", summary(halts), err)
	}

	// The researcher's edit resolves it at the next PreToolUse.
	raw, _ := os.ReadFile(state)
	os.WriteFile(state, append([]byte("Where we are: ablations done.\n"), raw...), 0o644)
	os.Chtimes(state, first.Add(76*time.Hour), first.Add(76*time.Hour))
	halts, err = OpenHalts(context.Background(), e.st, e.proj, first.Add(76*time.Hour))
	if err != nil || len(halts) != 0 {
		t.Fatalf("HALT must clear after the update: %v %v", summary(halts), err)
	}
	if got := summary(e.open()); got != "" {
		t.Fatalf("open after update: %q", got)
	}
	// The clock restarts at the first action after the update.
	e.actions(first.Add(77*time.Hour), "CODE_EDIT")
	if got := e.run(first.Add(77*time.Hour + 23*time.Hour)); len(got) != 0 {
		t.Fatalf("clock did not restart: %v", summary(got))
	}
}

func TestStateStalenessIgnoresTimeAway(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.actions(t0.Add(-time.Hour), "CODE_EDIT")    // before the update: irrelevant
	e.actions(t0.Add(200*time.Hour), "CODE_EDIT") // back after a week away
	if got := e.run(t0.Add(201 * time.Hour)); len(got) != 0 {
		t.Fatalf("a week away counted as stale work: %v", summary(got))
	}
	// No action at all since the update: nothing to judge.
	e2 := newEnv(t)
	e2.write("STATE.md", goodState, t0)
	if got := e2.run(t0.Add(1000 * time.Hour)); len(got) != 0 {
		t.Fatalf("no work, no staleness: %v", summary(got))
	}
}

func TestStateMissingAndNoVibeDir(t *testing.T) {
	e := newEnv(t)
	got := e.run(t0)
	if summary(got) != "WARN state-stale" || got[0].Fingerprint != "state-stale:missing" ||
		got[0].Message != "STATE.md is missing (LAW 7: the project must be resumable from its files): run `vibe init`, which creates only missing files, then write in .vibe-science/STATE.md where the work stands and the next step." {
		t.Fatalf("%+v", got)
	}
	e.write("STATE.md", goodState, t0)
	e.run(t0.Add(time.Minute))
	if summary(e.all()) != "WARN state-stale (observer: STATE.md was updated)" {
		t.Fatalf("%q", summary(e.all()))
	}

	plain := newEnv(t)
	os.RemoveAll(plain.proj.VibeDir())
	plain.actions(t0, repeat("CODE_EDIT", 40)...)
	if got := plain.run(t0.Add(100 * time.Hour)); got != nil || len(plain.all()) != 0 {
		t.Fatalf("a project without .vibe-science got alerts: %v", summary(plain.all()))
	}
}

func TestFindingsNewerThanJSON(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.write("RQ-001/04-results/FINDINGS.json", "{}", t0)
	md := e.write("RQ-001/04-results/FINDINGS.md", "# Findings\n", t0.Add(20*time.Minute))
	e.write("RQ-002-x/findings-stage4.md", "x", t0.Add(3*time.Hour))
	e.write("RQ-002-x/findings-stage4.json", "{}", t0)
	e.write("RQ-003/04-results/FINDINGS.md", "no json: DQ4's business", t0.Add(9*time.Hour))

	got := e.run(t0.Add(10 * time.Hour))
	if summary(got) != "WARN findings-json" {
		t.Fatalf("%q", summary(got))
	}
	want := ".vibe-science/RQ-002-x/findings-stage4.md is 3 h newer than findings-stage4.json (single source of truth, gate DQ4): rerun the script that writes findings-stage4.json so the numbers come from it, or correct FINDINGS from the JSON; DQ4 checks every number at the next write."
	if got[0].Message != want {
		t.Fatalf("message\n%s\nwant\n%s", got[0].Message, want)
	}
	os.Chtimes(md, t0.Add(45*time.Minute), t0.Add(45*time.Minute))
	got = e.run(t0.Add(11 * time.Hour))
	if summary(got) != "WARN findings-json" || !strings.HasPrefix(got[0].Message, ".vibe-science/RQ-001/04-results/FINDINGS.md is 45 min newer than FINDINGS.json") {
		t.Fatalf("%+v", got)
	}
	// Regenerating the JSON clears that alert.
	e.write("RQ-001/04-results/FINDINGS.json", "{}", t0.Add(time.Hour))
	e.run(t0.Add(12 * time.Hour))
	if got := summary(e.open()); got != "WARN findings-json" || !strings.Contains(e.open()[0].Message, "RQ-002-x") {
		t.Fatalf("open %q", got)
	}
}

const dictText = "# Data dictionary\n\n## processed/features.csv\n\n| column | type | unit | description |\n|---|---|---|---|\n| a | float | - | x |\n\n" +
	"## `processed/folds/*.csv`\n\nMade from raw/guideseq.csv by the extraction script.\n\n```\n## raw/quoted.csv\n```\n"

func TestUndocumentedDataFiles(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	data := "RQ-001/02-data/"
	e.write(data+"DATA-DICTIONARY.md", dictText, t0)
	for _, f := range []string{"processed/features.csv", "processed/folds/f1.csv", "processed/folds/f2.csv",
		"raw/guideseq.csv", "raw/.hidden.csv", "raw/NOTES.md", "raw/quoted.csv", "raw/b.csv", "raw/c.csv"} {
		e.write(data+f, "x", t0)
	}
	// Three undocumented (quoted.csv, b.csv, c.csv): not more than 3.
	if got := e.run(t0); len(got) != 0 {
		t.Fatalf("3 undocumented: %v", summary(got))
	}
	e.write(data+"raw/d.csv", "x", t0)
	got := e.run(t0.Add(time.Minute))
	want := "4 data files under .vibe-science/RQ-001/02-data are not in its data dictionary (gate DD0, skill/vibe/formats/data-dictionary.md): raw/b.csv, raw/c.csv, raw/d.csv, raw/quoted.csv; add a `## <path>` section (a glob such as `raw/*.csv` covers many files) with its | column | type | unit | description | table for each."
	if summary(got) != "WARN data-undocumented" || got[0].Message != want {
		t.Fatalf("%+v\nwant %s", got, want)
	}
	// Documenting them with a glob clears the alert.
	e.write(data+"DATA-DICTIONARY.md", dictText+"\n## raw/*.csv\n\n| column | type | unit | description |\n|---|---|---|---|\n| x | float | - | y |\n", t0.Add(time.Hour))
	if got := e.run(t0.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("after the glob: %v", summary(got))
	}
	if got := summary(e.all()); got != "WARN data-undocumented (observer: the data files are documented (or the count changed))" {
		t.Fatalf("%q", got)
	}

	// A data folder with no dictionary says to create one.
	for i := 0; i < 6; i++ {
		e.write(fmt.Sprintf("RQ-002/02-data/raw/s%d.tsv", i), "x", t0)
	}
	got = e.run(t0.Add(2 * time.Hour))
	if summary(got) != "WARN data-undocumented" || !strings.Contains(got[0].Message, "; create .vibe-science/RQ-002/02-data/DATA-DICTIONARY.md with") ||
		!strings.HasPrefix(got[0].Message, "6 data files under .vibe-science/RQ-002/02-data") || !strings.Contains(got[0].Message, "raw/s4.tsv, …") {
		t.Fatalf("%+v", got)
	}
}

func TestDataCache(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.proj.Root, "02-data")
	os.MkdirAll(filepath.Join(dir, "raw", "deep"), 0o755)
	for _, f := range []string{"raw/a.csv", "raw/deep/b.csv"} {
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), []byte("x"), 0o644)
	}
	budget := 100
	c := listData(dir, &budget)
	if c.Count != 2 || fmt.Sprint(c.Sample) != "[raw/a.csv raw/deep/b.csv]" || c.HasDict || c.Truncated || len(c.Dirs) != 3 {
		t.Fatalf("%+v", c)
	}
	if !c.valid(dir) {
		t.Fatal("fresh cache invalid")
	}
	// Rewriting a file's content changes no folder: still valid.
	os.WriteFile(filepath.Join(dir, "raw", "a.csv"), []byte("yy"), 0o644)
	if !c.valid(dir) {
		t.Fatal("content change invalidated the listing")
	}
	// A new file deep down changes its folder's mtime.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "raw", "deep"), old, old)
	c = listData(dir, &budget)
	os.WriteFile(filepath.Join(dir, "raw", "deep", "c.csv"), []byte("x"), 0o644)
	if c.valid(dir) {
		t.Fatal("a new file did not invalidate the listing")
	}
	// A dictionary appearing invalidates it too.
	budget = 100
	c = listData(dir, &budget)
	os.WriteFile(filepath.Join(dir, "data-dictionary.md"), []byte("## raw/a.csv\n"), 0o644)
	if c.valid(dir) {
		t.Fatal("a new dictionary did not invalidate the listing")
	}
	budget = 100
	c = listData(dir, &budget)
	if c.Count != 2 || !c.HasDict {
		t.Fatalf("lower-case dictionary: %+v", c)
	}
	// The budget bounds the walk.
	budget = 2
	c = listData(dir, &budget)
	if !c.Truncated || budget != 0 {
		t.Fatalf("budget: %+v %d", c, budget)
	}
}

func TestPhaseDrift(t *testing.T) {
	cases := []struct {
		name, state string
		actions     []string
		want        string
	}{
		// The JavaScript observer read this as TRAINING_CYCLE and never matched.
		{"yaml lines read one at a time", "---\nphase: training\ncycle: 3\n---\n", repeat("MODEL_TRAIN", 12), ""},
		{"drift", "phase: brainstorm\n", append(repeat("MODEL_TRAIN", 7), repeat("EVALUATION", 5)...), "WARN phase-drift"},
		{"neutral actions do not count", "phase: brainstorm\n", append(repeat("FILE_READ", 15), repeat("MODEL_TRAIN", 5)...), ""},
		{"half is not a majority", "stage: 5\n", append(repeat("MODEL_TRAIN", 5), repeat("FINDINGS", 5)...), ""},
		{"stage number", "**Stage:** 4 (ablations)\n", append(repeat("LITERATURE", 2), repeat("DATA_LOAD", 1)...), ""},
		{"unknown phase", "phase: frobnicate\n", repeat("MODEL_TRAIN", 12), "INFO phase-drift"},
		{"no phase line", "# State\n", repeat("MODEL_TRAIN", 12), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.write("STATE.md", c.state, t0)
			e.actions(t0, repeat("LITERATURE", 1)...)
			e.actions(t0.Add(time.Minute), c.actions...)
			got := e.run(t0.Add(time.Hour))
			if summary(got) != c.want {
				t.Fatalf("%q, want %q (%+v)", summary(got), c.want, got)
			}
		})
	}

	e := newEnv(t)
	e.write("STATE.md", "# S\n\nphase: brainstorm\n", t0)
	e.actions(t0, append(repeat("MODEL_TRAIN", 7), append(repeat("EVALUATION", 5), "FILE_READ", "LITERATURE")...)...)
	got := e.run(t0.Add(time.Hour))
	want := `STATE.md says phase "brainstorm", but 12 of the last 13 research actions lie outside that phase (MODEL_TRAIN 7, EVALUATION 5): if the work has moved on, update the phase line in STATE.md; if not, return to the phase's work or log the deviation in DESIGN.md (design compliance, DC0).`
	if len(got) != 1 || got[0].Message != want {
		t.Fatalf("%+v\nwant %s", got, want)
	}
	// Moving the phase on clears it.
	e.write("STATE.md", "# S\n\nphase: analysis\n", t0.Add(2*time.Hour))
	e.run(t0.Add(2 * time.Hour))
	if summary(e.open()) != "" {
		t.Fatalf("open %q", summary(e.open()))
	}

	u := newEnv(t)
	u.write("STATE.md", "# S\n\nphase: frobnicate\n", t0)
	got = u.run(t0)
	if len(got) != 1 || got[0].Message != `STATE.md line 3 says phase "frobnicate", which vibe does not recognise, so phase drift is not checked: name one of brainstorm, discovery, data, analysis, validation, review, synthesis, or a stage number 0–5.` {
		t.Fatalf("%+v", got)
	}
}

func TestLookupPhase(t *testing.T) {
	for value, want := range map[string]string{
		"training": "analysis", "Stage 2 (tuning)": "analysis", "0": "brainstorm", "phase 0": "brainstorm",
		"S4": "validation", "5": "synthesis", "data extraction": "data", "Literature review": "discovery",
		"write-up": "synthesis", "R2 review": "review", "validation of C-004": "validation", "stage-3": "analysis",
		"frobnicate": "", "7": "", "": "",
	} {
		p, ok := lookupPhase(value)
		if p.name != want || ok != (want != "") {
			t.Errorf("lookupPhase(%q) = %q %v, want %q", value, p.name, ok, want)
		}
	}
}

func TestLiteratureDrought(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.actions(t0, repeat("CODE_EDIT", 29)...)
	if got := e.run(t0.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("29 actions: %v", summary(got))
	}
	e.actions(t0.Add(29*time.Minute), "CODE_EDIT")
	got := e.run(t0.Add(time.Hour))
	want := "No literature search in the last 30 recorded actions of this project (stale knowledge; gate L-1 needs one before a new direction): search before the next direction or claim (/vibe:search, WebSearch or a literature MCP tool); vibe records the search by itself."
	if summary(got) != "WARN literature-drought" || got[0].Message != want || got[0].Fingerprint != "literature-drought:s1" {
		t.Fatalf("%+v", got)
	}
	// A recorded search inside the window clears it.
	ctx := context.Background()
	if err := e.st.Tx(ctx, func(tx *store.Tx) error {
		_, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: "s1", ProjectPath: e.proj.Root,
			Query: "off-target prediction", Layer: "WEBSEARCH", At: t0.Add(20 * time.Minute)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.run(t0.Add(2 * time.Hour))
	if summary(e.open()) != "" {
		t.Fatalf("open %q", summary(e.open()))
	}
	// A search before the window, or one that does not count for L-1, does not help.
	l := newEnv(t)
	l.write("STATE.md", goodState, t0)
	l.actions(t0, repeat("CODE_EDIT", 40)...)
	if err := l.st.Tx(ctx, func(tx *store.Tx) error {
		for i, gc := range []string{"", record.LiteratureUncounted} {
			at := []time.Time{t0.Add(5 * time.Minute), t0.Add(35 * time.Minute)}[i]
			if _, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: "s1", ProjectPath: l.proj.Root,
				Query: "q", Layer: "WEBSEARCH", GateContext: gc, At: at}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := l.run(t0.Add(time.Hour)); summary(got) != "WARN literature-drought" {
		t.Fatalf("old or uncounted searches: %v", summary(got))
	}
}

func (e *env) seed(id, status string, pending int) {
	e.t.Helper()
	if _, err := e.st.DB().Exec(`INSERT INTO serendipity_seeds (seed_id, project_path, created_session, status, source,
sessions_pending, created_at, updated_at) VALUES (?, ?, 's1', ?, 'SCANNER', ?, 0, 0)
ON CONFLICT(project_path, seed_id) DO UPDATE SET status = excluded.status, sessions_pending = excluded.sessions_pending`,
		id, e.proj.Root, status, pending); err != nil {
		e.t.Fatal(err)
	}
}

func TestSeedsPending(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.actions(t0, "CODE_EDIT")
	e.seed("SEED-20261101-001", "PENDING_TRIAGE", 4)
	e.seed("SEED-20261101-002", "PENDING_TRIAGE", 5)
	e.seed("SEED-20261101-003", "PENDING_TRIAGE", 10)
	e.seed("SEED-20261101-004", "QUEUED", 12)
	got := e.run(t0)
	if summary(got) != "HALT seed-pending; WARN seed-pending" {
		t.Fatalf("%q", summary(got))
	}
	if got[0].Message != "Seed SEED-20261101-003 has waited for triage for 10 sessions (LAW 5: triage seeds within 5); writes are denied until it is triaged: set its status in .vibe-science/SERENDIPITY.md to QUEUED, TESTING, KILLED or PROMOTED_TO_CLAIM (with a resolution when you close it), and this alert resolves itself." {
		t.Fatalf("HALT message %s", got[0].Message)
	}
	if got[1].Message != "Seed SEED-20261101-002 has waited for triage for 5 sessions (LAW 5: triage seeds within 5): set its status in .vibe-science/SERENDIPITY.md to QUEUED, TESTING, KILLED or PROMOTED_TO_CLAIM; at 10 sessions this becomes a HALT." {
		t.Fatalf("WARN message %s", got[1].Message)
	}
	ctx := context.Background()
	halts, err := OpenHalts(ctx, e.st, e.proj, t0)
	if err != nil || len(halts) != 1 {
		t.Fatalf("%v %v", summary(halts), err)
	}
	// SERENDIPITY.md stays writable under a seed HALT; other files do not.
	if len(Blocking(halts, ".vibe-science/SERENDIPITY.md")) != 0 || len(Blocking(halts, "src/model.py")) != 1 ||
		len(Blocking(halts, ".vibe-science/STATE.md")) != 1 {
		t.Fatal("Blocking exemptions")
	}
	// Triage in SERENDIPITY.md (parsed into the table) clears the HALT at the next PreToolUse.
	e.seed("SEED-20261101-003", "QUEUED", 10)
	halts, err = OpenHalts(ctx, e.st, e.proj, t0.Add(time.Minute))
	if err != nil || len(halts) != 0 {
		t.Fatalf("after triage: %v %v", summary(halts), err)
	}
	if got := summary(e.all()); got != "WARN seed-pending; HALT seed-pending (observer: the seed was triaged (or its level changed))" {
		t.Fatalf("%q", got)
	}
}

func TestDismissedAlertIsNotRaisedAgain(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.actions(t0, repeat("CODE_EDIT", 30)...)
	got := e.run(t0.Add(time.Hour))
	if len(got) != 1 {
		t.Fatalf("%v", summary(got))
	}
	ctx := context.Background()
	if err := e.st.Tx(ctx, func(tx *store.Tx) error {
		_, err := tx.ResolveAlert(ctx, got[0].ID, record.ResolvedByUser, "reading code today", t0.Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if again := e.run(t0.Add(2 * time.Hour)); len(again) != 0 {
		t.Fatalf("raised again in the same session: %v", summary(again))
	}
	if got := summary(e.all()); got != "WARN literature-drought (user: reading code today)" {
		t.Fatalf("%q", got)
	}
}

func TestHaltVerdictAndHelpers(t *testing.T) {
	halts := []Alert{
		{ID: 3, Check: CheckSeeds, Level: Halt, Message: "Seed X waits.", Fingerprint: "seed-pending:X:HALT", CreatedAt: t0},
		{ID: 7, Check: CheckState, Level: Halt, Message: "STATE.md is stale.", Fingerprint: "state-stale:HALT:1", CreatedAt: t0.Add(time.Minute)},
		{ID: 8, Check: CheckData, Level: Warn, Message: "warn only", CreatedAt: t0.Add(time.Hour)},
	}
	v := HaltVerdict(halts)
	want := "Writes are denied while 2 observer HALT alerts are open: [#7 state-stale] STATE.md is stale. Once fixed: `vibe alerts resolve 7`. [#3 seed-pending] Seed X waits. Once fixed: `vibe alerts resolve 3`."
	if v.Result != verdict.HardBlock || v.Severity != verdict.High || v.Check != CheckHalt || v.Reason != want {
		t.Fatalf("%+v", v)
	}
	if len(v.Evidence.Notes) != 2 || v.Recommendation == "" || v.DecisionHash == "" {
		t.Fatalf("%+v", v)
	}
	if string(v.Input) != `[{"check":"state-stale","fingerprint":"state-stale:HALT:1","id":7},{"check":"seed-pending","fingerprint":"seed-pending:X:HALT","id":3}]` {
		t.Fatalf("input %s", v.Input)
	}
	if one := HaltVerdict(halts[1:2]); !strings.HasPrefix(one.Reason, "Writes are denied while an observer HALT alert is open: [#7") {
		t.Fatalf("%s", one.Reason)
	}
	if p := HaltVerdict(halts[2:]); p.Result != verdict.Pass {
		t.Fatalf("no HALT: %+v", p)
	}
	if p := HaltVerdict(nil); p.Result != verdict.Pass || p.Reason != "no observer HALT alert is open" {
		t.Fatalf("nil: %+v", p)
	}

	if got := Blocking(halts, ".vibe-science/STATE.md"); len(got) != 1 || got[0].ID != 3 {
		t.Fatalf("Blocking STATE.md: %v", got)
	}
	if got := Blocking(halts, ""); len(got) != 2 {
		t.Fatalf("Blocking unknown target: %v", got)
	}

	vs := Verdicts([]Alert{halts[0], halts[2], {ID: 9, Check: CheckPhase, Level: Info, Message: "unknown"}})
	if len(vs) != 3 || vs[0].Result != verdict.Block || vs[1].Result != verdict.Warn || vs[1].Severity != verdict.Med ||
		vs[2].Result != verdict.Warn || vs[2].Severity != verdict.Low || vs[0].Reason != "Observer HALT #3: Seed X waits." ||
		vs[0].Check != "observer-seed-pending" {
		t.Fatalf("%+v", vs)
	}

	lines := Lines([]Alert{halts[2], halts[0], halts[1]}, 2)
	wantLines := []string{
		"HALT #7 state-stale: STATE.md is stale. (once fixed: `vibe alerts resolve 7`)",
		"HALT #3 seed-pending: Seed X waits. (once fixed: `vibe alerts resolve 3`)",
		"… 1 more: `vibe alerts list`",
	}
	if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("%q", lines)
	}
}

func TestSortMostSevereFirst(t *testing.T) {
	as := []Alert{
		{ID: 1, Level: Info, CreatedAt: t0.Add(9 * time.Hour)},
		{ID: 2, Level: Warn, CreatedAt: t0},
		{ID: 3, Level: Halt, CreatedAt: t0},
		{ID: 4, Level: Warn, CreatedAt: t0.Add(time.Hour)},
		{ID: 5, Level: Halt, CreatedAt: t0},
	}
	Sort(as)
	var ids []int64
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	if fmt.Sprint(ids) != "[5 3 4 2 1]" {
		t.Fatalf("%v", ids)
	}
}

func TestUserHash(t *testing.T) {
	base := userHash([]byte("# S\n\nphase: data\n"))
	same := []string{
		"# S\n\nphase: data\n",
		"# S\r\n\r\nphase: data\r\n",
		"# S\n\nphase: data\n\n" + resume.BeginMarker + "\n- updated: x\n" + resume.EndMarker + "\n",
		"# S\n\nphase: data\n\n" + resume.BeginMarker + "\n- something else entirely\n" + resume.EndMarker + "\n\n",
		"# S\n\nphase: data",
	}
	for _, s := range same {
		if userHash([]byte(s)) != base {
			t.Errorf("%q hashes differently from the plain file", s)
		}
	}
	for _, s := range []string{
		"# S\n\nphase: analysis\n",
		"# S\n\nphase: data\n" + resume.BeginMarker + "\n" + resume.EndMarker + "\nnote after\n",
	} {
		if userHash([]byte(s)) == base {
			t.Errorf("%q: a change by the researcher was not seen", s)
		}
	}
}

func TestDictionaryLists(t *testing.T) {
	d := parseDictionary([]byte(dictText))
	for rel, want := range map[string]bool{
		"processed/features.csv": true, "processed/folds/f1.csv": true, "processed/folds/sub/f1.csv": false,
		"raw/guideseq.csv": true, "raw/quoted.csv": false, "features.csv": false, "raw/other.csv": false,
	} {
		if got := d.lists(rel); got != want {
			t.Errorf("lists(%q) = %v, want %v", rel, got, want)
		}
	}
	if (dictionary{}).lists("x") {
		t.Error("an absent dictionary documents nothing")
	}
}

// TestCacheDecodingIsKeptPerText: the decoded cache is reused only while
// the stored text is the same, and a run's changes to its copy never leak
// into the next run.
func TestCacheDecodingIsKeptPerText(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	set := func(raw string) {
		t.Helper()
		if err := e.st.Tx(ctx, func(tx *store.Tx) error { return tx.SetObserverCache(ctx, cacheKey(e.proj), raw) }); err != nil {
			t.Fatal(err)
		}
	}
	set(`{"data":{"RQ-001/02-data":{"dirs":{".":1},"count":7}}}`)
	c, err := loadCache(ctx, e.st, e.proj)
	if err != nil || c.Data["RQ-001/02-data"].Count != 7 {
		t.Fatalf("first load: %+v %v", c, err)
	}
	c.Data["RQ-002/02-data"] = dataCache{Count: 99}
	delete(c.Data, "RQ-001/02-data")
	c, err = loadCache(ctx, e.st, e.proj)
	if err != nil || len(c.Data) != 1 || c.Data["RQ-001/02-data"].Count != 7 {
		t.Fatalf("a run's changes leaked into the kept decoding: %+v %v", c, err)
	}
	set(`{"data":{"RQ-001/02-data":{"dirs":{".":1},"count":3}}}`)
	if c, err = loadCache(ctx, e.st, e.proj); err != nil || c.Data["RQ-001/02-data"].Count != 3 {
		t.Fatalf("a changed text was not decoded again: %+v %v", c, err)
	}
	set(`{"data":`)
	if c, err = loadCache(ctx, e.st, e.proj); err != nil || c.Data != nil {
		t.Fatalf("a damaged text must give an empty cache: %+v %v", c, err)
	}
}

// TestUnplannedDataIsNotAskedToBeDocumented: with a design, the data files
// it does not plan (scratch copies, samples: DC0's deviations, warned about
// once) are not counted as undocumented; a deviation that names them, or a
// research question without a design, counts them again.
func TestUnplannedDataIsNotAskedToBeDocumented(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	data := "RQ-001/02-data/"
	e.write(data+"DATA-DICTIONARY.md", dictText, t0)
	design := "# Design: x\n\n## Planned steps\n\n### Step 1: Extract\n- inputs: 02-data/raw/guideseq.csv\n- outputs: 02-data/processed/features.csv\n\n## Deviations\n\nNone yet.\n"
	e.write("RQ-001/DESIGN.md", design, t0)
	for _, f := range []string{"processed/features.csv", "raw/guideseq.csv", "processed/a.csv", "processed/b.csv", "processed/c.csv", "processed/d.csv"} {
		e.write(data+f, "x", t0)
	}
	if got := e.run(t0); len(got) != 0 {
		t.Fatalf("four unplanned scratch files: %v", summary(got))
	}
	e.write("RQ-001/DESIGN.md", strings.Replace(design, "None yet.", "### DEV-001: 2026-11-20\n- what: kept four tables\n- why: to compare\n- files: 02-data/processed/*.csv\n", 1), t0.Add(time.Minute))
	got := e.run(t0.Add(time.Minute))
	if summary(got) != "WARN data-undocumented" || !strings.HasPrefix(got[0].Message, "4 data files under .vibe-science/RQ-001/02-data are not in its data dictionary") {
		t.Fatalf("once a deviation keeps them: %+v", got)
	}
}
