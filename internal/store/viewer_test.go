package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

func addSpine(t *testing.T, s *Store, e record.SpineEntry) int64 {
	t.Helper()
	var id int64
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		id, err = tx.AddSpine(context.Background(), e, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestViewerSpineQueries(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	reviewSession(t, s, "s2", "/p", t0)
	reviewSession(t, s, "o1", "/other", t0)
	if head, err := s.SpineHead(ctx, "/p"); err != nil || head != 0 {
		t.Fatalf("head of an empty spine: %d, %v", head, err)
	}
	rows := []record.SpineEntry{
		{SessionID: "s1", ProjectPath: "/p", ActionType: "COMMAND", ToolName: "Bash", InputSummary: "$ echo 100% done"},
		{SessionID: "s1", ProjectPath: "/p", ActionType: "FILE_READ", ToolName: "Read", InputSummary: "data/a_b.csv"},
		{SessionID: "o1", ProjectPath: "/other", ActionType: "COMMAND", ToolName: "Bash", InputSummary: "$ echo 100% done"},
		{SessionID: "s2", ProjectPath: "/p", ActionType: "COMMAND", ToolName: "Bash", InputSummary: "$ ls", OutputSummary: "README.MD"},
		{SessionID: "s2", ProjectPath: "/p", ActionType: "FILE_READ", ToolName: "Read", InputSummary: "data/axb.csv"},
	}
	var ids []int64
	for i, e := range rows {
		e.At = t0.Add(time.Duration(i) * time.Second)
		e.ToolUseID = fmt.Sprintf("tu%d", i)
		ids = append(ids, addSpine(t, s, e))
	}
	page := func(q record.SpineQuery) []int64 {
		t.Helper()
		es, err := s.SpinePage(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		q    record.SpineQuery
		want []int64
	}{
		{"project, newest first", record.SpineQuery{Project: "/p"}, []int64{ids[4], ids[3], ids[1], ids[0]}},
		{"one session", record.SpineQuery{Project: "/p", Session: "s1"}, []int64{ids[1], ids[0]}},
		{"tool", record.SpineQuery{Project: "/p", Tool: "Read"}, []int64{ids[4], ids[1]}},
		{"action", record.SpineQuery{Project: "/p", ActionType: "COMMAND"}, []int64{ids[3], ids[0]}},
		{"search is case-insensitive and reads the output", record.SpineQuery{Project: "/p", Search: "readme.md"}, []int64{ids[3]}},
		{"% in a search is a character", record.SpineQuery{Project: "/p", Search: "100%"}, []int64{ids[0]}},
		{"_ in a search is a character", record.SpineQuery{Project: "/p", Search: "a_b"}, []int64{ids[1]}},
		{"page back", record.SpineQuery{Project: "/p", BeforeID: ids[3], Limit: 1}, []int64{ids[1]}},
		{"session page back", record.SpineQuery{Project: "/p", Session: "s2", BeforeID: ids[4]}, []int64{ids[3]}},
		{"id range", record.SpineQuery{Project: "/p", AfterID: ids[0], BeforeID: ids[4]}, []int64{ids[3], ids[1]}},
	} {
		if got := page(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if top, err := s.SpineMaxID(ctx); err != nil || top != ids[4] {
		t.Errorf("max id %d, %v, want %d", top, err, ids[4])
	}
	if head, err := s.SpineHead(ctx, "/p"); err != nil || head != ids[4] {
		t.Errorf("head %d, %v, want %d", head, err, ids[4])
	}
	counts, top, err := s.SpineCounts(ctx, "/p", "", 0)
	want := []record.SpineCount{{Tool: "Bash", Action: "COMMAND", Count: 2}, {Tool: "Read", Action: "FILE_READ", Count: 2}}
	if err != nil || top != ids[4] || !reflect.DeepEqual(counts, want) {
		t.Errorf("counts %v top %d %v, want %v top %d", counts, top, err, want, ids[4])
	}
	counts, top, err = s.SpineCounts(ctx, "/p", "", ids[3])
	if want := []record.SpineCount{{Tool: "Read", Action: "FILE_READ", Count: 1}}; err != nil || top != ids[4] || !reflect.DeepEqual(counts, want) {
		t.Errorf("counts after %d: %v top %d %v, want %v", ids[3], counts, top, err, want)
	}
	counts, top, err = s.SpineCounts(ctx, "/p", "", ids[4])
	if err != nil || top != ids[4] || counts != nil {
		t.Errorf("counts with nothing new: %v top %d %v", counts, top, err)
	}
	counts, _, err = s.SpineCounts(ctx, "/p", "s1", 0)
	if want := []record.SpineCount{{Tool: "Bash", Action: "COMMAND", Count: 1}, {Tool: "Read", Action: "FILE_READ", Count: 1}}; err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("session counts %v %v, want %v", counts, err, want)
	}
}

func TestViewerClaimAndGateQueries(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	c := func(v float64) *float64 { return &v }
	steps := [][]record.ClaimEvent{
		{{ClaimID: "C-001", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: c(0.5)}},
		{{ClaimID: "C-002", Type: "CREATED", NewStatus: "PROVISIONAL", Confidence: c(0.7)}},
		{{ClaimID: "C-001", Type: "R2_REVIEWED", R2Verdict: "WEAK"}},
		{{ClaimID: "C-001", Type: "KILLED", OldStatus: "PROVISIONAL", NewStatus: "KILLED", KillReason: "ARTIFACT"}},
	}
	for i, evs := range steps {
		if err := s.Tx(ctx, func(tx *Tx) error {
			return tx.AddClaimEvents(ctx, "s1", "/p", t0.Add(time.Duration(i)*time.Minute), evs)
		}); err != nil {
			t.Fatal(err)
		}
	}
	sums, err := s.ClaimSummaries(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].ClaimID != "C-001" || sums[0].Status != "KILLED" || *sums[0].Confidence != 0.5 ||
		sums[0].Events != 3 || !sums[0].FirstAt.Equal(t0) || !sums[0].LastAt.Equal(t0.Add(3*time.Minute)) ||
		sums[1].ClaimID != "C-002" || sums[1].Status != "PROVISIONAL" || *sums[1].Confidence != 0.7 {
		t.Errorf("summaries %+v", sums)
	}
	hist, err := s.ClaimHistory(ctx, "/p", "C-001")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range hist {
		types = append(types, e.Type+"/"+e.NewStatus+"/"+e.R2Verdict+"/"+e.KillReason)
	}
	if want := []string{"CREATED/PROVISIONAL//", "R2_REVIEWED//WEAK/", "KILLED/KILLED//ARTIFACT"}; !reflect.DeepEqual(types, want) {
		t.Errorf("history %v, want %v", types, want)
	}
	if hist[0].SessionID != "s1" || !hist[2].At.Equal(t0.Add(3*time.Minute)) || hist[1].Confidence != nil {
		t.Errorf("history rows %+v", hist)
	}
	for i, st := range []record.GateStatus{record.GatePass, record.GateFail, record.GateWarn, record.GateFail} {
		addGateCheck(t, s, record.GateCheck{Session: "s1", Project: "/p", Result: record.GateResult{Gate: "DQ1", Status: st}, At: t0.Add(time.Duration(i) * time.Minute)})
	}
	addGateCheck(t, s, record.GateCheck{Session: "s1", Project: "/p", Result: record.GateResult{Gate: "DQ4", Status: record.GatePass}, At: t0})
	addGateCheck(t, s, record.GateCheck{Session: "s1", Project: "/q", Result: record.GateResult{Gate: "DQ4", Status: record.GateFail}, At: t0})
	gs, err := s.GateSummaries(ctx, "/p")
	want := []record.GateSummary{
		{GateID: "DQ1", Pass: 1, Warn: 1, Fail: 2, LastStatus: "FAIL", LastAt: t0.Add(3 * time.Minute)},
		{GateID: "DQ4", Pass: 1, LastStatus: "PASS", LastAt: t0},
	}
	if err != nil || !reflect.DeepEqual(gs, want) {
		t.Errorf("gate summaries %+v %v, want %+v", gs, err, want)
	}
}

// TestViewerMemoryPage: the memories page filters by kind and state, and
// each state's SQL selects exactly the memories whose State() it is.
func TestViewerMemoryPage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := addMem(t, s, "/p", record.KindNote, "batch 3 failed QC", t0)
	b := addMem(t, s, "/p", record.KindInsight, "batch 3 passed QC after the re-run", t0.Add(time.Hour))
	c := addMem(t, s, "/p", record.KindNote, "GC content explains the error", t0.Add(2*time.Hour))
	d := addMem(t, s, "/p", record.KindNote, "a note to forget", t0.Add(3*time.Hour))
	addMem(t, s, "/other", record.KindNote, "another project", t0)
	var e, f int64 // a paper's decision and model output that disputes it
	if err := s.Tx(ctx, func(tx *Tx) error {
		var err error
		if e, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindDecision, Text: "guide length 20 nt",
			Source: "cli", Trust: record.Trust(0.85), At: t0.Add(4 * time.Hour)}); err != nil {
			return err
		}
		if f, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindDecision, Text: "guide length 17 nt",
			Source: "cli", Trust: record.Trust(0.35), At: t0.Add(5 * time.Hour)}); err != nil {
			return err
		}
		if _, err := tx.LinkConflict(ctx, f, e, t0.Add(5*time.Hour)); err != nil { // f disputes e
			return err
		}
		if _, err := tx.LinkConflict(ctx, b, a, t0.Add(time.Hour)); err != nil { // b supersedes a
			return err
		}
		return tx.ForgetMemory(ctx, d)
	}); err != nil {
		t.Fatal(err)
	}
	ids := func(q record.MemoryQuery) []int64 {
		t.Helper()
		q.Project = "/p"
		ms, err := s.MemoryPage(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		out := []int64{}
		for _, m := range ms {
			if q.State != "" && m.State() != q.State {
				t.Errorf("state %s listed M-%d, whose state is %s", q.State, m.ID, m.State())
			}
			out = append(out, m.ID)
		}
		return out
	}
	for _, c := range []struct {
		q    record.MemoryQuery
		want []int64
	}{
		{record.MemoryQuery{}, []int64{f, e, c, b, a}},
		{record.MemoryQuery{Kind: record.KindNote}, []int64{c, a}},
		{record.MemoryQuery{State: record.MemoryCurrent}, []int64{c}},
		{record.MemoryQuery{State: record.MemoryDisputed}, []int64{e, b}},
		{record.MemoryQuery{State: record.MemoryDisputing}, []int64{f}},
		{record.MemoryQuery{State: record.MemorySuperseded}, []int64{a}},
		{record.MemoryQuery{State: record.MemoryForgotten}, []int64{d}},
		{record.MemoryQuery{BeforeID: c}, []int64{b, a}},
		{record.MemoryQuery{Limit: 1}, []int64{f}},
	} {
		if got := ids(c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
	counts, err := s.ProjectMemoryCounts(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(counts); got != "{[{decision 2} {note 2} {insight 1}] [{current 1} {disputed 2} {disputing 1} {superseded 1} {forgotten 1}]}" {
		t.Errorf("counts %s", got)
	}
}
