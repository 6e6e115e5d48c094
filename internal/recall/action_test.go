package recall

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// An action records what the agent did; it shares a fact's words and
// numbers without stating anything about it, so it never disputes or
// supersedes one, however it is stored: by `vibe memory add`, by a hook
// (checked later by the worker) or by an import.
var actionCases = []struct{ fact, action string }{
	{"SpCas9 guide length is 20 nt", "searched PubMed for SpCas9 guide length 17 nt"},
	{"train.py with lr 0.01 reaches loss 0.3", "ran train.py with lr 0.001 loss 0.3"},
	{"batch 3 QC passed on the depth filter", "ran QC on batch 3 with the depth filter: failed to start"},
	{"guide length matters for SpCas9 editing", "searched PubMed for SpCas9 guide length editing: no results"},
}

func TestActionsNeverContradictFacts(t *testing.T) {
	ctx := context.Background()
	for _, tt := range actionCases {
		for _, path := range []string{"add", "hook", "import"} {
			st := openStore(t)
			fact := addSourced(t, st, tt.fact, record.SourceModel, "", t0)
			switch path {
			case "add":
				a, err := AddMemory(ctx, st, nil, record.NewMemory{ProjectPath: "/p", Kind: record.KindAction, Text: tt.action,
					Source: "hook", At: t0.Add(time.Hour)})
				if err != nil || len(a.Conflicts) != 0 {
					t.Errorf("%s: action %q linked %+v (%v), want no conflict", path, tt.action, a, err)
				}
			case "hook":
				if err := st.Tx(ctx, func(tx *store.Tx) error {
					_, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindAction, Text: tt.action,
						Source: "hook", At: t0.Add(time.Hour)})
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if _, links, err := CheckPending(ctx, st, 10); err != nil || links != 0 {
					t.Errorf("%s: action %q made %d links (%v), want none", path, tt.action, links, err)
				}
			case "import":
				in := `{"kind": "action", "text": "` + tt.action + `", "created_at": "2026-10-01T10:00:00Z"}` + "\n"
				if rep, err := Import(ctx, st, strings.NewReader(in), "/p", t0.Add(2*time.Hour), nil); err != nil || rep.Conflicts != 0 {
					t.Errorf("%s: action %q: %+v (%v), want no conflict", path, tt.action, rep, err)
				}
			}
			if r, err := st.Memory(ctx, fact.ID); err != nil || r.State() != record.MemoryCurrent {
				t.Errorf("%s: fact %q is %q after the action %q, want current", path, tt.fact, r.State(), tt.action)
			}
		}
	}
}

// TestFactsStillContradict is the ordinary counterpart: two facts (or a
// fact and a decision) on the same subject still contradict.
func TestFactsStillContradict(t *testing.T) {
	st := openStore(t)
	addSourced(t, st, "batch 3 QC passed on the depth filter", record.SourceModel, "", t0)
	a, err := AddMemory(context.Background(), st, nil, record.NewMemory{ProjectPath: "/p", Kind: record.KindDecision,
		Text: "batch 3 QC failed on the depth filter", Source: "cli", At: t0.Add(time.Hour)})
	if err != nil || len(a.Supersedes) != 1 {
		t.Errorf("a decision of the opposite outcome: %+v (%v), want it to supersede the note", a, err)
	}
}
