package integrity

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// FuzzDiffThresholds feeds arbitrary config pairs to the decoder: no panic,
// the same answer twice, sorted keys, sizes never negative, and Drift over
// the result counts exactly the sum of the sizes.
func FuzzDiffThresholds(f *testing.F) {
	f.Add([]byte(`{"dq2":{"min_auc":0.55,"r":[1,2]}}`), []byte(`{"dq2":{"min_auc":0.5,"r":[1,3]}}`))
	f.Add([]byte(`{"a":0}`), []byte(`{"a":-1e-300}`))
	f.Add([]byte(`{"a":1e308}`), []byte(`{"a":-1e308}`))
	f.Add([]byte(`{}`), []byte(`[]`))
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, old, new []byte) {
		c1, err1 := DiffThresholds("d", old, new, at, nil)
		c2, err2 := DiffThresholds("d", old, new, at, nil)
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(c1, c2) {
			t.Fatal("DiffThresholds is not deterministic")
		}
		sum := 0
		for i, c := range c1 {
			if i > 0 && c1[i-1].Key >= c.Key {
				t.Fatalf("keys not sorted: %q then %q", c1[i-1].Key, c.Key)
			}
			if c.Bps < 0 || c.Bps > MaxBps || c.Old == c.New {
				t.Fatalf("bad change %+v", c)
			}
			sum = addBps(sum, c.Bps)
		}
		if r := Drift("d", c1, at, 0); r.TotalBps != sum || len(r.Changes) != len(c1) {
			t.Fatalf("Drift total %d, want %d", r.TotalBps, sum)
		}
		_ = DriftVerdictFor(Drift("d", nil, at, 0), c1)
	})
}

// FuzzBreakers feeds arbitrary JSON to the breaker config: no panic, and a
// config that decodes always has a valid mode for every known dependency.
func FuzzBreakers(f *testing.F) {
	f.Add([]byte(`{"worker":"warn"}`))
	f.Add([]byte(`{"database":"FAIL","vec":"skip"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var b Breakers
		if err := json.Unmarshal(raw, &b); err != nil {
			return
		}
		for _, dep := range []string{DepDatabase, DepWorker, DepVec, DepBrief} {
			if !b[dep].Valid() {
				t.Fatalf("decoded %s without a valid mode for %s: %v", raw, dep, b)
			}
		}
	})
}
