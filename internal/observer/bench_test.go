package observer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tenKTree builds a project of about 10k files: 8,000 raw data files in 100
// folders and 500 processed ones under RQ-001/02-data, 500 scripts, and
// 1,000 source files outside .vibe-science that the observer must never
// touch; plus 2,000 recorded actions.
func tenKTree(b *testing.B) *env {
	b.Helper()
	e := newEnv(b)
	e.write("STATE.md", goodState, t0)
	e.write("RQ-001/02-data/DATA-DICTIONARY.md", "# Data dictionary\n\n## raw/*/*.csv\n\n## processed/*.parquet\n", t0)
	e.write("RQ-001/04-results/FINDINGS.md", "# Findings\n", t0)
	e.write("RQ-001/04-results/FINDINGS.json", "{}", t0)
	mk := func(dir string, n int, ext string) {
		os.MkdirAll(dir, 0o755)
		for i := 0; i < n; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d%s", i, ext)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for d := 0; d < 100; d++ {
		mk(e.proj.Path("RQ-001", "02-data", "raw", fmt.Sprintf("batch%03d", d)), 80, ".csv")
	}
	mk(e.proj.Path("RQ-001", "02-data", "processed"), 500, ".parquet")
	mk(e.proj.Path("RQ-001", "03-analysis"), 500, ".py")
	for d := 0; d < 10; d++ {
		mk(filepath.Join(e.proj.Root, "src", fmt.Sprintf("pkg%d", d)), 100, ".go")
	}
	types := []string{"CODE_EDIT", "MODEL_TRAIN", "EVALUATION", "FILE_READ"}
	var acts []string
	for i := 0; i < 2000; i++ {
		acts = append(acts, types[i%len(types)])
	}
	e.actions(t0.Add(time.Minute), acts...)
	return e
}

// BenchmarkRunWarm is the usual 10th-call check: the file facts are cached
// and nothing changed, so the run is stats, small listings and a few
// indexed reads, with no write.
func BenchmarkRunWarm(b *testing.B) {
	e := tenKTree(b)
	ctx := context.Background()
	now := t0.Add(2 * time.Hour)
	if _, err := Run(ctx, e.st, e.proj, "s1", now, Config{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(ctx, e.st, e.proj, "s1", now, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunCold lists the whole 02-data tree every time (the cache is
// dropped): the cost after the data folders changed.
func BenchmarkRunCold(b *testing.B) {
	e := tenKTree(b)
	ctx := context.Background()
	now := t0.Add(2 * time.Hour)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := e.st.DB().Exec("DELETE FROM meta WHERE key LIKE 'observer:%'"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Run(ctx, e.st, e.proj, "s1", now, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenHalts is PreToolUse's cost when no HALT is open.
func BenchmarkOpenHalts(b *testing.B) {
	e := tenKTree(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := OpenHalts(ctx, e.st, e.proj, t0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunWarmDrift is the warm run while a planned dataset stays
// unused: the design-drift check then searches the new spine entries and
// stats the 500 analysis scripts (reading none, as none changed).
func BenchmarkRunWarmDrift(b *testing.B) {
	e := tenKTree(b)
	e.write("RQ-001/DESIGN.md", driftDesign, t0)
	e.write("RQ-001/02-data/raw/changeseq.csv", "a\n1\n", t0)
	ctx := context.Background()
	now := t0.Add(2 * time.Hour)
	if _, err := Run(ctx, e.st, e.proj, "s1", now, Config{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(ctx, e.st, e.proj, "s1", now, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
