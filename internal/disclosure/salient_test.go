package disclosure

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// oldSessionMemories is sessionMemories as it was before it ranked heads
// (store.SalientCandidates) and read only the kept memories in full: it
// read the pool's full rows and ranked them. pool is where the candidates
// come from: oldPool is the code of that time, newRulePool the rule that
// replaced it.
func oldSessionMemories(ctx context.Context, st *store.Store, pool func(context.Context, *store.Store, string) ([]record.MemoryRecord, error),
	project, narrative string, now time.Time) (Part, error) {
	var picks []recall.Hit
	seen := map[int64]bool{}
	if strings.TrimSpace(narrative) != "" {
		kinds := []string{record.KindDecision, record.KindGateFailure, record.KindClaimEvent, record.KindSeed, record.KindNote,
			record.KindPattern, record.KindInsight, record.KindHypothesis, record.KindOpenThread}
		res, err := recall.Search(ctx, st, nil, recall.Query{Project: project, Text: narrative, Limit: SessionMemories / 2, Kinds: kinds, Now: now})
		if err != nil {
			return Part{}, fmt.Errorf("session context: %w", err)
		}
		for _, h := range res.Hits {
			seen[h.ID] = true
			picks = append(picks, h)
		}
	}
	recent, err := pool(ctx, st, project)
	if err != nil {
		return Part{}, fmt.Errorf("session context: %w", err)
	}
	type ranked struct {
		m     record.MemoryRecord
		score float64
	}
	rs := make([]ranked, 0, len(recent))
	for _, m := range recent {
		if seen[m.ID] || m.Kind == record.KindNarrative {
			continue
		}
		score := salience(m.Kind) * recall.Freshness(m.Kind, m.CreatedAt, now) * (0.5 + 0.5*m.Trust)
		if m.OutrankedBy() != nil {
			score *= recall.SupersededWeight
		}
		rs = append(rs, ranked{m, score})
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return rs[i].score > rs[j].score
		}
		return rs[i].m.ID > rs[j].m.ID
	})
	start := len(picks)
	for _, r := range rs {
		if len(picks) >= SessionMemories {
			break
		}
		picks = append(picks, recall.HitOf(r.m))
	}
	if err := recall.FillDisputes(ctx, st, picks[start:]); err != nil {
		return Part{}, err
	}
	lines := make([]string, len(picks))
	for i, p := range picks {
		lines[i] = MemoryLine(p)
	}
	return Part{Layer: LayerRecall, Priority: PriorityMemories, Title: "MEMORY (full text: vibe memory show ID)",
		Lines: lines, More: "vibe recall QUERY"}, nil
}

// oldPool is the pool before: the salientPool newest memories that are not
// forgotten, narratives included (and then thrown away).
func oldPool(ctx context.Context, st *store.Store, project string) ([]record.MemoryRecord, error) {
	return st.RecentMemories(ctx, project, salientPool)
}

// newRulePool is the pool now: the salientPool newest memories that are
// neither forgotten nor narratives, so narratives take no place in it.
func newRulePool(ctx context.Context, st *store.Store, project string) ([]record.MemoryRecord, error) {
	all, err := st.RecentMemories(ctx, project, 1<<30)
	var out []record.MemoryRecord
	for _, m := range all {
		if m.Kind != record.KindNarrative && len(out) < salientPool {
			out = append(out, m)
		}
	}
	return out, err
}

var salientKinds = []string{record.KindNarrative, record.KindNarrative, record.KindNarrative, record.KindDecision,
	record.KindGateFailure, record.KindClaimEvent, record.KindSeed, record.KindNote, record.KindAction, record.KindFailure,
	record.KindPattern, record.KindInsight, record.KindHypothesis, record.KindOpenThread, "custom"}

var salientWords = []string{"guide", "seq", "batch", "harmony", "gate", "dq1", "claim", "aligner", "drift", "calibration"}

// fillSalient writes n memories to project (and as many to another
// project, at the same times) that tie wherever they can: a few creation
// times, a few trusts, every kind (narratives the most common), some
// superseded by a contradiction, some forgotten (one of them a superseder,
// which hands its place to the next), words the last narrative shares.
func fillSalient(t *testing.T, st *store.Store, seed uint64, n int) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 15))
	trusts := []float64{0, 0.5, 0.7, 1}
	must(t, st.Tx(ctx, func(tx *store.Tx) error {
		for _, p := range []string{project, project + "-other"} {
			var ids []int64
			for i := 0; i < n; i++ {
				var text strings.Builder
				for j := 0; j < 4; j++ {
					text.WriteString(salientWords[r.IntN(len(salientWords))] + " ")
				}
				fmt.Fprintf(&text, "#%d", i)
				at := now.Add(-time.Duration(r.IntN(12)) * 36 * time.Hour)
				id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: p, Kind: salientKinds[r.IntN(len(salientKinds))],
					Text: text.String(), Source: "hook", Trust: record.Trust(trusts[r.IntN(len(trusts))]), At: at, Checked: true})
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			for i := 0; n > 0 && i < n/4+1; i++ {
				a, b := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
				if _, err := tx.LinkConflict(ctx, a, b, now); err != nil {
					return err
				}
			}
			for i := 0; n > 0 && i < n/10+1; i++ {
				if err := tx.ForgetMemory(ctx, ids[r.IntN(len(ids))]); err != nil {
					return err
				}
			}
		}
		return nil
	}))
}

// TestSalientMatchesOracle compares the memory section with the code it
// replaced on tricky data: up to salientPool memories it must be the
// same as the old code; beyond, the same as the old code under the new
// pool rule (the salientPool newest memories that are not narratives).
func TestSalientMatchesOracle(t *testing.T) {
	ctx := context.Background()
	narratives := []string{"", "re-ran DQ1 on the GUIDE-seq table after the aligner fix; Harmony batch drift"}
	whens := []time.Time{now, now.Add(20 * 24 * time.Hour), now.Add(400 * 24 * time.Hour)}
	var superseded, lines int
	for _, n := range []int{0, 1, 7, 120, 190, 260, 450} {
		for seed := uint64(1); seed <= 3; seed++ {
			st := openStore(t)
			fillSalient(t, st, seed, n)
			kept := 0
			must(t, st.ExportMemories(ctx, project, func(record.MemoryRecord) error { kept++; return nil }))
			for _, narrative := range narratives {
				for _, when := range whens {
					name := fmt.Sprintf("n=%d seed=%d narrative=%t now=%s", n, seed, narrative != "", when.Format("2006-01-02"))
					got, err := sessionMemories(ctx, st, nil, project, narrative, when)
					must(t, err)
					want, err := oldSessionMemories(ctx, st, newRulePool, project, narrative, when)
					must(t, err)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s: got\n%s\nwant (old code, new pool rule)\n%s", name, strings.Join(got.Lines, "\n"), strings.Join(want.Lines, "\n"))
					}
					if kept <= salientPool {
						old, err := oldSessionMemories(ctx, st, oldPool, project, narrative, when)
						must(t, err)
						if !reflect.DeepEqual(got, old) {
							t.Errorf("%s: %d memories, got\n%s\nwant (old code)\n%s", name, kept, strings.Join(got.Lines, "\n"), strings.Join(old.Lines, "\n"))
						}
					}
					lines += len(got.Lines)
					for _, l := range got.Lines {
						if strings.Contains(l, "superseded by") {
							superseded++
						}
					}
				}
			}
		}
	}
	// The data must reach the cases it is for.
	if superseded == 0 || lines == 0 {
		t.Errorf("the fill showed %d lines, %d superseded: it no longer exercises the ranking", lines, superseded)
	}
}

// TestSalientPoolSkipsNarratives states the pool rule that changed:
// narratives no longer take places in the pool, so a decision older than
// salientPool narratives is still offered (the old pool held only the
// narratives and showed nothing).
func TestSalientPoolSkipsNarratives(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var decision int64
	must(t, st.Tx(ctx, func(tx *store.Tx) error {
		id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, Kind: record.KindDecision,
			Text: "use GUIDE-seq reads only", Source: "cli", At: now.Add(-30 * 24 * time.Hour)})
		decision = id
		if err != nil {
			return err
		}
		for i := 0; i < salientPool+50; i++ {
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, Kind: record.KindNarrative,
				Text: fmt.Sprintf("session %d: tool calls only", i), Source: "hook", At: now.Add(-time.Duration(i) * time.Hour)}); err != nil {
				return err
			}
		}
		return nil
	}))
	got, err := sessionMemories(ctx, st, nil, project, "", now)
	must(t, err)
	if len(got.Lines) != 1 || !strings.Contains(got.Lines[0], MemoryID(decision)) {
		t.Errorf("lines = %q, want the decision [%s] alone", got.Lines, MemoryID(decision))
	}
	old, err := oldSessionMemories(ctx, st, oldPool, project, "", now)
	must(t, err)
	if len(old.Lines) != 0 {
		t.Errorf("the old pool showed %q; this test no longer shows the change", old.Lines)
	}
}
