package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Facts counts a session's actions and lists its corrections (BUG_FIX and
// DESIGN_CHANGE entries) in order, its own only; a session without any has
// none (and Facts skips their query).
func TestFactsCountsAndCorrections(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	add := func(session string, entries ...[2]string) {
		t.Helper()
		err := s.Tx(ctx, func(tx *Tx) error {
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: session, ProjectPath: "/p", At: t0, Start: true}); err != nil {
				return err
			}
			for i, e := range entries {
				if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: session, ProjectPath: "/p", At: t0.Add(time.Duration(i) * time.Second),
					ActionType: e[0], ToolName: "Edit", ToolUseID: fmt.Sprintf("%s-%d", session, i), InputSummary: e[1]}, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("s1", [2]string{"COMMAND", "$ make"}, [2]string{"BUG_FIX", "fix fold split"}, [2]string{"DOCUMENTATION", "notes"},
		[2]string{"DESIGN_CHANGE", "hold out guides"}, [2]string{"COMMAND", "$ make test"})
	add("s2", [2]string{"BUG_FIX", "another session's fix"})
	add("s3", [2]string{"COMMAND", "$ ls"}, [2]string{"DOCUMENTATION", "readme"})
	add("s4", [2]string{"DESIGN_CHANGE", "one decision"})

	facts := func(session string) record.SessionFacts {
		t.Helper()
		var f record.SessionFacts
		if err := s.Tx(ctx, func(tx *Tx) (err error) { f, err = tx.Facts(ctx, session); return err }); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := facts("s1")
	if f.Total != 5 || !reflect.DeepEqual(f.Actions, map[string]int{"COMMAND": 2, "BUG_FIX": 1, "DOCUMENTATION": 1, "DESIGN_CHANGE": 1}) {
		t.Errorf("s1 actions %v total %d", f.Actions, f.Total)
	}
	var got [][2]string
	for _, c := range f.Corrections {
		got = append(got, [2]string{c.ActionType, c.InputSummary})
	}
	if want := [][2]string{{"BUG_FIX", "fix fold split"}, {"DESIGN_CHANGE", "hold out guides"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("s1 corrections %v, want %v", got, want)
	}
	if f := facts("s3"); f.Total != 2 || len(f.Corrections) != 0 {
		t.Errorf("s3: total %d, corrections %v", f.Total, f.Corrections)
	}
	if f := facts("s4"); len(f.Corrections) != 1 || f.Corrections[0].InputSummary != "one decision" {
		t.Errorf("s4 corrections %v", f.Corrections)
	}
}
