package recall

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var t0 = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestOpposite(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Gate DQ2 passed for C-12", "Gate DQ2 failed for C-12", true},
		{"The effect is significant at p < 0.01", "The effect is not significant at p < 0.01", true},
		{"The effect is significant", "The effect is insignificant", true},
		{"The effect is significant", "The effect is non-significant", true},
		{"Expression increased after treatment", "Expression decreased after treatment", true},
		{"C-7 VERIFIED by R2", "C-7 KILLED by R2", true},
		{"Hypothesis supported by the replication", "Hypothesis refuted by the replication", true},
		{"No off-target activity at site 4", "Off-target activity detected at site 4", true},
		{"The model didn't converge", "The model converged", true},
		// Agreement in other words.
		{"The gate did not pass", "The gate failed", false},
		{"Expression did not increase", "Expression decreased", false},
		{"Gate DQ2 passed for C-12", "Gate DQ2 passed for C-12 again", false},
		{"no effect on AUROC", "never any effect on AUROC", false},
		// Two oppositions are still one contradiction of outcome.
		{"Expression increased and the gate passed", "Expression decreased and the gate failed", true},
		// Numbers are not outcomes (Contradicts compares them).
		{"AUROC was 0.91", "AUROC was 0.62", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := Opposite(tt.a, tt.b); got != tt.want {
			t.Errorf("Opposite(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Opposite(tt.b, tt.a); got != tt.want {
			t.Errorf("Opposite(%q, %q) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestSimilarAndContradicts(t *testing.T) {
	tests := []struct {
		a, b        string
		similar     float64
		contradicts bool
	}{
		// {gate, dq2, "c 12"} both sides ("c" alone is one rune).
		{"Gate DQ2 passed for C-12", "Gate DQ2 failed for C-12", 1, true},
		// C-12 and C-40 are two claims: other subjects, whatever else is shared.
		{"Gate DQ2 passed for C-12", "Gate DQ3 failed for claim C-40 in the photonics project", 0, false},
		{"Gate DQ2 passed for C-12", "Gate DQ2 failed for C-40", 0, false},
		{"Gate DQ2 passed for claim C-12", "Gate DQ2 failed for claim C-12 after the re-run on batch 3", 4.0 / 7, false},
		{"batch effect is significant in cohort 2", "batch effect is not significant in cohort 2", 1, true},
		{"batch effect is significant in cohort 2", "batch effect is significant in cohort 2", 1, false},
	}
	for _, tt := range tests {
		if got := Similar(tt.a, tt.b); got != tt.similar {
			t.Errorf("Similar(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.similar)
		}
		if got := Contradicts(tt.a, tt.b); got != tt.contradicts {
			t.Errorf("Contradicts(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.contradicts)
		}
	}
}

func add(t *testing.T, st *store.Store, vec Vectors, kind, text string, at time.Time) (int64, *int64) {
	t.Helper()
	a, err := AddMemory(context.Background(), st, vec, record.NewMemory{ProjectPath: "/p", Kind: kind, Text: text, Source: "cli", At: at})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Conflicts) == 0 {
		return a.ID, nil
	}
	return a.ID, &a.Conflicts[0]
}

func TestAddMemoryRecordsConflictsBothWays(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	passed, c := add(t, st, nil, record.KindGateFailure, "Gate DQ2 passed for claim C-12 on the CHANGE-seq table", t0)
	if c != nil {
		t.Fatalf("first memory conflicts with %d", *c)
	}
	other, c := add(t, st, nil, record.KindNote, "Harmony integration uses day as the batch key", t0)
	if c != nil {
		t.Fatalf("unrelated memory conflicts with %d", *c)
	}
	failed, c := add(t, st, nil, record.KindGateFailure, "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", t0.Add(time.Hour))
	if c == nil || *c != passed {
		t.Fatalf("conflict = %v, want M-%d", c, passed)
	}
	for id, want := range map[int64]*int64{passed: &failed, failed: &passed, other: nil} {
		m, err := st.Memory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == nil && len(m.Conflicts) != 0:
			t.Errorf("M-%d conflicts with %v, want none", id, m.Conflicts)
		case want != nil && (len(m.Conflicts) != 1 || m.Conflicts[0] != *want):
			t.Errorf("M-%d conflicts with %v, want [%d]", id, m.Conflicts, *want)
		}
	}
	// A recall hit shows the conflict.
	res, err := Search(ctx, st, nil, Query{Project: "/p", Text: "DQ2 gate C-12", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || len(res.Hits[0].Conflicts) != 1 || len(res.Hits[1].Conflicts) != 1 {
		t.Fatalf("hits %+v, want both flagged", res.Hits)
	}
	// The newer outcome supersedes the older: first, and the older points
	// to it.
	if res.Hits[0].ID != failed || res.Hits[1].SupersededBy == nil || *res.Hits[1].SupersededBy != failed {
		t.Fatalf("hits %+v, want M-%d first and M-%d superseded by it", res.Hits, failed, passed)
	}
	// Adding the same text again is the same memory with its conflict.
	again, c := add(t, st, nil, record.KindGateFailure, "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", t0.Add(2*time.Hour))
	if again != failed || c == nil || *c != passed {
		t.Errorf("re-add = M-%d conflict %v, want M-%d conflict %d", again, c, failed, passed)
	}
}

func TestAddMemoryByVectors(t *testing.T) {
	st := openStore(t)
	first, _ := add(t, st, nil, record.KindClaimEvent, "C-3 supported: annealing raises intrinsic Q", t0)
	// Words differ too much for Jaccard, but the vectors say they are near.
	near := fixedVectors{hits: []VectorHit{{ID: first, Distance: 0.4}}} // cosine 0.92
	_, c := add(t, st, near, record.KindClaimEvent, "C-3 refuted after re-measuring the rings with per-ring coupling", t0.Add(time.Hour))
	if c == nil || *c != first {
		t.Errorf("conflict = %v, want M-%d (cosine 0.92)", c, first)
	}
	far := fixedVectors{hits: []VectorHit{{ID: first, Distance: 0.8}}} // cosine 0.68
	_, c = add(t, st, far, record.KindClaimEvent, "C-3 refuted once more, this time on run 3 dies", t0.Add(2*time.Hour))
	if c != nil {
		t.Errorf("conflict = M-%d, want none (cosine 0.68)", *c)
	}
	// A worker that cannot answer leaves the word rule.
	down := fixedVectors{err: ErrNoWorker}
	_, c = add(t, st, down, record.KindNote, "annealing raises intrinsic Q on every die", t0)
	if c != nil {
		t.Errorf("conflict = M-%d, want none", *c)
	}
}

func TestAddMemoryRejects(t *testing.T) {
	st := openStore(t)
	tests := []record.NewMemory{
		{Kind: record.KindNote, Text: "x"},
		{ProjectPath: "/p", Kind: record.KindNote, Text: "  ...  "},
		{ProjectPath: "/p", Kind: "gossip", Text: "a fact"},
		{ProjectPath: "/p", Kind: record.KindNote, Text: "a fact", Trust: record.Trust(1.5)},
	}
	for _, m := range tests {
		if _, err := AddMemory(context.Background(), st, nil, m); fault.KindOf(err) != fault.Invalid {
			t.Errorf("AddMemory(%+v) = %v, want an Invalid error", m, err)
		}
	}
}

func TestAddMemoryRevivesForgotten(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id, _ := add(t, st, nil, record.KindNote, "the cluster is down on the first Tuesday", t0)
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.ForgetMemory(ctx, id) }); err != nil {
		t.Fatal(err)
	}
	res, _ := Search(ctx, st, nil, Query{Project: "/p", Text: "cluster Tuesday"})
	if len(res.Hits) != 0 {
		t.Fatalf("forgotten memory recalled: %+v", res.Hits)
	}
	again, _ := add(t, st, nil, record.KindNote, "the cluster is down on the first Tuesday", t0)
	if again != id {
		t.Fatalf("re-add gave M-%d, want M-%d", again, id)
	}
	res, _ = Search(ctx, st, nil, Query{Project: "/p", Text: "cluster Tuesday"})
	if len(res.Hits) != 1 || res.Hits[0].ID != id {
		t.Fatalf("revived memory not recalled: %+v", res.Hits)
	}
}

// TestSupersedeNumbers adds contradicting numbers in both orders of time:
// the newer statement supersedes the older whichever was stored first,
// recall ranks the older down without hiding it, and statements about
// other subjects stay apart.
func TestSupersedeNumbers(t *testing.T) {
	ctx := context.Background()
	pairs := []struct{ old, new string }{
		{"Use a 1% read threshold for calling off-target sites", "Use a 0.1% read threshold for calling off-target sites"},
		{"The ViT runs use lr 3e-4 with cosine decay", "The ViT runs use lr 1e-3 with cosine decay"},
		{"The responder cohort has n=120 patients after QC", "The responder cohort has n=95 patients after QC"},
		{"Per-read alignment timeout is 500 ms on the cluster", "Per-read alignment timeout is 2 s on the cluster"},
	}
	for _, p := range pairs {
		for _, newFirst := range []bool{false, true} {
			st := openStore(t)
			var oldID, newID int64
			var a Added
			var err error
			addOld := func() {
				a, err = AddMemory(ctx, st, nil, record.NewMemory{ProjectPath: "/p", Kind: record.KindDecision, Text: p.old, Source: "cli", At: t0})
				oldID = a.ID
			}
			addNew := func() {
				a, err = AddMemory(ctx, st, nil, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: p.new, Source: "cli", At: t0.Add(24 * time.Hour)})
				newID = a.ID
			}
			unrelated, _ := add(t, st, nil, record.KindNote, "Mapping quality threshold of 20 for amplicon reads", t0.Add(time.Hour))
			if newFirst {
				addNew()
				addOld() // an import of an older fact
				if err != nil || a.SupersededBy == nil || *a.SupersededBy != newID || len(a.Supersedes) != 0 {
					t.Errorf("%q added after %q: %+v %v, want superseded by M-%d", p.old, p.new, a, err, newID)
				}
			} else {
				addOld()
				addNew()
				if err != nil || len(a.Supersedes) != 1 || a.Supersedes[0] != oldID || a.SupersededBy != nil {
					t.Errorf("%q added after %q: %+v %v, want it to supersede M-%d", p.new, p.old, a, err, oldID)
				}
			}
			old, _ := st.Memory(ctx, oldID)
			if old.SupersededBy == nil || *old.SupersededBy != newID {
				t.Errorf("%q: superseded by %v, want M-%d", p.old, old.SupersededBy, newID)
			}
			if m, _ := st.Memory(ctx, unrelated); m.SupersededBy != nil || len(m.Conflicts) != 0 {
				t.Errorf("unrelated memory linked: %+v", m)
			}
			// Both found, the newer first, the older pointing to it.
			res, err := Search(ctx, st, nil, Query{Project: "/p", Text: p.old, Limit: 5, Now: t0.Add(48 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			var order []int64
			for _, h := range res.Hits {
				if h.ID == oldID || h.ID == newID {
					order = append(order, h.ID)
				}
				if h.ID == oldID && (h.SupersededBy == nil || *h.SupersededBy != newID) {
					t.Errorf("hit %+v lacks its pointer to M-%d", h, newID)
				}
			}
			if len(order) != 2 || order[0] != newID {
				t.Errorf("%q: recall order %v, want M-%d before M-%d", p.old, order, newID, oldID)
			}
		}
	}
}

// TestManyToManyConflicts links one memory with several: each link is
// held on both sides, and the oldest points to the newest.
func TestManyToManyConflicts(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	a, _ := add(t, st, nil, record.KindNote, "The ring Q factor is 1.2 million after annealing", t0)
	b, cb := add(t, st, nil, record.KindNote, "The ring Q factor is 2.5 million after annealing", t0.Add(time.Hour))
	c, cc := add(t, st, nil, record.KindNote, "The ring Q factor is 0.9 million after annealing", t0.Add(2*time.Hour))
	if cb == nil || cc == nil {
		t.Fatalf("conflicts %v %v, want both linked", cb, cc)
	}
	want := map[int64][]int64{a: {b, c}, b: {a, c}, c: {a, b}}
	for id, w := range want {
		m, _ := st.Memory(ctx, id)
		if !reflect.DeepEqual(m.Conflicts, w) {
			t.Errorf("M-%d conflicts %v, want %v", id, m.Conflicts, w)
		}
		switch {
		case id == c && m.SupersededBy != nil:
			t.Errorf("newest M-%d superseded by %d", id, *m.SupersededBy)
		case id != c && (m.SupersededBy == nil || *m.SupersededBy != c):
			t.Errorf("M-%d superseded by %v, want M-%d", id, m.SupersededBy, c)
		}
	}
}

// TestImportSupersedes checks the import path: a file whose lines state
// a number twice links them, the later one superseding.
func TestImportSupersedes(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	in := `{"text": "Minimum depth per guide is 50 reads", "kind": "decision", "created_at": "2026-10-02T09:00:00Z"}
{"text": "Minimum depth per guide is 200 reads", "kind": "decision", "created_at": "2026-10-01T09:00:00Z"}
{"text": "Minimum depth per sample is 5000 reads", "kind": "decision", "created_at": "2026-10-03T09:00:00Z"}
`
	rep, err := Import(ctx, st, strings.NewReader(in), "/p", t0, nil)
	if err != nil || rep.Added != 3 || rep.Conflicts != 1 {
		t.Fatalf("import %+v %v", rep, err)
	}
	ms := memoriesOf(t, st, "/p")
	byText := map[string]record.MemoryRecord{}
	for _, m := range ms {
		byText[m.Text] = m
	}
	newer, older := byText["Minimum depth per guide is 50 reads"], byText["Minimum depth per guide is 200 reads"]
	if older.SupersededBy == nil || *older.SupersededBy != newer.ID || newer.SupersededBy != nil {
		t.Errorf("older %+v newer %+v: want the line dated later to supersede", older, newer)
	}
	if m := byText["Minimum depth per sample is 5000 reads"]; len(m.Conflicts) != 0 {
		t.Errorf("per-sample depth linked: %+v", m)
	}
}

// TestCheckPending is the hook path: memories stored unchecked (as the
// hooks store them) are linked by the worker's pass, once.
func TestCheckPending(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	hookAdd := func(kind, text string, at time.Time) int64 {
		t.Helper()
		var id int64
		err := st.Tx(ctx, func(tx *store.Tx) error {
			var err error
			id, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: kind, Text: text, Source: "hook", At: at})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	promoted := hookAdd(record.KindClaimEvent, "Claim C-12 PROMOTED: off-target rate tracks guide GC content", t0)
	killed := hookAdd(record.KindClaimEvent, "Claim C-12 KILLED: off-target rate tracks guide GC content", t0.Add(time.Hour))
	other := hookAdd(record.KindClaimEvent, "Claim C-13 PROMOTED: off-target rate tracks guide GC content", t0.Add(2*time.Hour))
	// A failed call and its later failure on another run are events, not
	// contradictions, though their numbers differ.
	f1 := hookAdd(record.KindFailure, "Bash: python3 train.py failed: exit status 1 after 40 s", t0)
	f2 := hookAdd(record.KindFailure, "Bash: python3 train.py failed: exit status 1 after 52 s", t0.Add(time.Hour))
	if m, _ := st.Memory(ctx, promoted); m.SupersededBy != nil {
		t.Fatalf("linked before the check: %+v", m)
	}
	n, links, err := CheckPending(ctx, st, 100)
	if err != nil || n != 5 || links != 1 {
		t.Fatalf("CheckPending = %d, %d, %v; want 5 checked, 1 link", n, links, err)
	}
	if m, _ := st.Memory(ctx, promoted); m.SupersededBy == nil || *m.SupersededBy != killed {
		t.Errorf("promoted: %+v, want superseded by M-%d", m, killed)
	}
	for _, id := range []int64{other, f1, f2} {
		if m, _ := st.Memory(ctx, id); len(m.Conflicts) != 0 {
			t.Errorf("M-%d linked: %+v", id, m)
		}
	}
	if n, _, err := CheckPending(ctx, st, 100); n != 0 || err != nil {
		t.Errorf("second pass checked %d (%v), want none", n, err)
	}
	// What the CLI adds is checked at once and never queued.
	add(t, st, nil, record.KindNote, "GC content is irrelevant for off-target rate", t0)
	if n, _, _ := CheckPending(ctx, st, 100); n != 0 {
		t.Errorf("a CLI memory was left for the worker")
	}
}
