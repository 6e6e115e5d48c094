package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchTree is the observer bench's tree: 8,000 raw files in 100 folders,
// 500 processed files, 500 analysis scripts, a features table; with
// outside, also 50,000 files beside the research (OutsideResearch).
func benchTree(b *testing.B, outside bool) string {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	rq := filepath.Join(root, ".vibe-science", "RQ-001")
	mk := func(dir string, n int, name, content string) {
		os.MkdirAll(dir, 0o755)
		for i := 0; i < n; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf(name, i)), []byte(content), 0o644)
		}
	}
	for d := 0; d < 100; d++ {
		mk(filepath.Join(rq, "02-data", "raw", fmt.Sprintf("batch%03d", d)), 80, "f%04d.csv", "a,b\n1,2\n")
	}
	mk(filepath.Join(rq, "02-data", "processed"), 500, "part%04d.parquet", "PAR1")
	mk(filepath.Join(rq, "03-analysis"), 500, "step%04d.py", "print(1)\n")
	os.WriteFile(filepath.Join(rq, "02-data", "processed", "features.csv"), []byte("a,label\n1,0\n"), 0o644)
	if outside {
		outsideResearch(root, mk)
	}
	return root
}

// outsideResearch lays 50,000 files beside a project's research, in the
// folders a code base has: a Python package (with JSON and Markdown files
// that look like metrics and findings), a web front end's node_modules, a
// virtual environment and documentation, as bench/artifacts.go does for
// make bench.
func outsideResearch(root string, mk func(dir string, n int, name, content string)) {
	for d := 0; d < 200; d++ {
		pkg := filepath.Join(root, "src", "pipeline", fmt.Sprintf("mod%03d", d))
		mk(pkg, 90, "part%03d.py", "def f():\n    return 1\n")
		mk(pkg, 5, "metrics%d.json", `{"auc": 0.91, "folds": [0.9, 0.92]}`)
		mk(pkg, 5, "FINDINGS%d.md", "# Findings\n\n## F1: x\n\nAUC 0.91.\n")
	}
	for d := 0; d < 100; d++ {
		mk(filepath.Join(root, "web", "node_modules", fmt.Sprintf("pkg%03d", d)), 100, "f%03d.js", "module.exports = 1\n")
	}
	for d := 0; d < 100; d++ {
		mk(filepath.Join(root, ".venv", "lib", "python3.11", "site-packages", fmt.Sprintf("p%03d", d)), 100, "m%03d.py", "x = 1\n")
	}
	for d := 0; d < 50; d++ {
		mk(filepath.Join(root, "docs", fmt.Sprintf("s%02d", d)), 100, "page%03d.md", "# Page\n\nText 0.5.\n")
	}
}

// BenchmarkScanNoChange is the cost every PostToolUse pays when nothing
// changed, in the resident worker (the second look on: the kernel's
// change reports), without and with 50,000 files outside the research
// folders.
func BenchmarkScanNoChange(b *testing.B) {
	roots := []string{benchTree(b, false), benchTree(b, true)}
	for k, outside := range []bool{false, true} {
		root := roots[k]
		b.Run(fmt.Sprintf("outside50k=%v", outside), func(b *testing.B) {
			d, _ := domainFor()
			tr := NewTracker()
			since := time.Now().Add(time.Hour)
			tr.Scan(root, d, nil, since, nil)
			tr.Scan(root, d, nil, since, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if s := tr.Scan(root, d, nil, since, nil); len(s.Changes) != 0 {
					b.Fatal(s.Changes)
				}
			}
		})
	}
}

// BenchmarkScanFirstLook is the cost of the first look at a project in a
// process (a worker's first call, or every call without a worker), without
// and with 50,000 files outside the research folders.
func BenchmarkScanFirstLook(b *testing.B) {
	roots := []string{benchTree(b, false), benchTree(b, true)}
	for k, outside := range []bool{false, true} {
		root := roots[k]
		b.Run(fmt.Sprintf("outside50k=%v", outside), func(b *testing.B) {
			d, _ := domainFor()
			since := time.Now().Add(time.Hour)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				NewTracker().Scan(root, d, nil, since, nil)
			}
		})
	}
}
