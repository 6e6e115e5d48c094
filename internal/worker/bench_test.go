package worker

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/vibe-science/vibe/internal/store"
)

func TestBenchKNNRuns(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	times, err := BenchKNN(ctx, st, 300)
	if err != nil || times.P50 <= 0 || times.SQLP50 <= 0 || times.Load <= 0 {
		t.Fatalf("BenchKNN = %+v, %v", times, err)
	}
	s, err := st.Stats(ctx)
	if err != nil || s.Vectors != 300 || s.Memories != 300 {
		t.Errorf("stats = %+v, %v", s, err)
	}
}
