//go:build cgo

package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestSalientCandidates checks SalientCandidates against RecentMemories
// with the narratives left out, on memories that tie in created_at, some
// forgotten and superseded, beside another project; and that it reads
// idx_memories_salient alone, in order (no row, no sort).
func TestSalientCandidates(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	kinds := []string{record.KindNarrative, record.KindDecision, record.KindNarrative, record.KindNote, record.KindGateFailure}
	err := s.Tx(ctx, func(tx *Tx) error {
		for _, p := range []string{"/a", "/b"} {
			var ids []int64
			for i := 0; i < 60; i++ {
				id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: p, Kind: kinds[i%len(kinds)],
					Text: fmt.Sprintf("memory %d", i), Source: "hook", Trust: record.Trust(float64(i%3) / 2),
					At: t0.Add(time.Duration(i/4) * time.Minute), Checked: true})
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			for i := 0; i < 60; i += 7 {
				if _, err := tx.LinkConflict(ctx, ids[i], ids[(i*5+3)%60], t0); err != nil {
					return err
				}
			}
			for i := 2; i < 60; i += 11 {
				if err := tx.ForgetMemory(ctx, ids[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.RecentMemories(ctx, "/a", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var want []record.MemoryHead
	superseded := 0
	for _, m := range all {
		if m.Kind != record.KindNarrative {
			want = append(want, record.MemoryHead{ID: m.ID, Kind: m.Kind, Trust: m.Trust, OutrankedBy: m.OutrankedBy(), CreatedAt: m.CreatedAt})
			if m.SupersededBy != nil {
				superseded++
			}
		}
	}
	if superseded == 0 || len(want) < 20 {
		t.Fatalf("the fill left %d candidates, %d superseded: it no longer tests what it is for", len(want), superseded)
	}
	for _, limit := range []int{0, 1, 13, len(want), 200} {
		got, err := s.SalientCandidates(ctx, "/a", limit)
		if err != nil {
			t.Fatal(err)
		}
		w := want[:min(limit, len(want))]
		if !reflect.DeepEqual(got, w) && !(len(got) == 0 && len(w) == 0) {
			t.Errorf("SalientCandidates(%d) =\n%+v\nwant\n%+v", limit, got, w)
		}
	}
	plan := queryPlan(t, s, salientCandidatesSQL, "/a", 200)
	if !strings.Contains(plan, "COVERING INDEX idx_memories_salient") || strings.Contains(plan, "B-TREE") {
		t.Errorf("SalientCandidates reads more than its index: %s", plan)
	}
}
