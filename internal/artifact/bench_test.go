package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkScanNoChange is the cost every PostToolUse pays when nothing
// changed, on the observer bench's tree: 8,000 raw files in 100 folders,
// 500 processed files, 500 analysis scripts, plus a features table.
func BenchmarkScanNoChange(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	rq := filepath.Join(root, ".vibe-science", "RQ-001")
	mk := func(dir string, n int, name string) {
		os.MkdirAll(dir, 0o755)
		for i := 0; i < n; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf(name, i)), []byte("a,b\n1,2\n"), 0o644)
		}
	}
	for d := 0; d < 100; d++ {
		mk(filepath.Join(rq, "02-data", "raw", fmt.Sprintf("batch%03d", d)), 80, "f%04d.csv")
	}
	mk(filepath.Join(rq, "02-data", "processed"), 500, "part%04d.parquet")
	mk(filepath.Join(rq, "03-analysis"), 500, "step%04d.py")
	os.WriteFile(filepath.Join(rq, "02-data", "processed", "features.csv"), []byte("a,label\n1,0\n"), 0o644)
	d, _ := domainFor()
	tr := NewTracker()
	since := time.Now().Add(time.Hour)
	tr.Scan(root, d, nil, since, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s := tr.Scan(root, d, nil, since, nil); len(s.Changes) != 0 {
			b.Fatal(s.Changes)
		}
	}
}
