package tamper

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchProject lays out the scenario: a ledger, 10 reviews and
// 10,000 raw-data files in 10 folders.
func benchProject(b *testing.B) (root, home string) {
	b.Helper()
	root, _ = filepath.EvalSymlinks(b.TempDir())
	home = b.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(ledger, "# Claim ledger\n"+strings.Repeat("## C-001\nstatus: PROPOSED\n", 50))
	for i := 0; i < 10; i++ {
		write(fmt.Sprintf("%s/review-%02d.md", r2dir, i), strings.Repeat("review text\n", 100))
	}
	write(config, `{"domain":"generic"}`)
	write(".claude/settings.json", `{}`)
	for d := 0; d < 10; d++ {
		for i := 0; i < 1000; i++ {
			write(fmt.Sprintf("%s/s%02d/f%04d.csv", raw, d, i), fmt.Sprintf("x,y\n%d,%d\n", d, i))
		}
	}
	return root, home
}

// BenchmarkCheck: the check after a tool call that changed nothing (stat
// only), the same at Stop (every file), the first sight of the project,
// and loading the saved index in a fresh process (the path of vibe-hook
// when no resident process runs).
func BenchmarkCheck(b *testing.B) {
	root, home := benchProject(b)
	start := time.Now()
	g := New(Options{Home: home})
	rep, err := g.Check(Call{Root: root, Now: t0})
	if err != nil || !rep.FirstSight || rep.Pending != 0 {
		b.Fatalf("%+v %v", rep, err)
	}
	b.Logf("first sight: %d files in %v", rep.Files, time.Since(start))

	probe, _ := g.Check(Call{Root: root, Tool: "Bash", Now: t0})
	full, _ := g.Check(Call{Root: root, Full: true, Now: t0})
	b.Logf("stat calls: %d per call, %d at Stop", probe.Stats, full.Stats)
	// The floor: the same number of bare stat calls on the project's files.
	var paths []string
	for rel := range g.projects[root].ix.Files {
		paths = append(paths, filepath.Join(root, filepath.FromSlash(rel)))
	}
	b.Run("bare-lstat-per-call", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths[:probe.Stats] {
				lstat(p)
			}
		}
	})
	b.Run("no-change", func(b *testing.B) {
		for b.Loop() {
			rep, err := g.Check(Call{Root: root, Tool: "Bash", Now: t0})
			if err != nil || len(rep.Findings) != 0 {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
	// A call that wrote a new file into a watched folder holding 200 others
	// (an analysis output): the folder is listed again.
	os.MkdirAll(filepath.Join(root, ".vibe-science", "RQ-001", "03-analysis"), 0o755)
	for i := 0; i < 200; i++ {
		os.WriteFile(filepath.Join(root, ".vibe-science", "RQ-001", "03-analysis", fmt.Sprintf("out%03d.csv", i)), []byte("1\n"), 0o644)
	}
	g.Check(Call{Root: root, Tool: "Bash", Now: t0})
	n := 0
	b.Run("wrote-in-watched-folder", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			n++
			if err := os.WriteFile(filepath.Join(root, ".vibe-science", "RQ-001", "03-analysis", fmt.Sprintf("new%06d.csv", n)), []byte("1\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			rep, err := g.Check(Call{Root: root, Tool: "Bash", Now: t0})
			if err != nil || len(rep.Findings) != 0 {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
	// The researcher edits the ledger: the edit is accepted, the snapshot
	// takes the new content and the index is saved.
	b.Run("accepted-ledger-edit", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(ledger)), []byte(fmt.Sprintf("# ledger %d\n", i)), 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			rep, err := g.Check(Call{Root: root, Tool: "Edit", Named: []string{ledger}, Direct: true, Now: t0})
			if err != nil || len(rep.Findings) != 0 {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
	b.Run("stop-full", func(b *testing.B) {
		for b.Loop() {
			rep, err := g.Check(Call{Root: root, Full: true, Now: t0})
			if err != nil || len(rep.Findings) != 0 {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
	b.Run("fresh-process", func(b *testing.B) {
		for b.Loop() {
			rep, err := New(Options{Home: home}).Check(Call{Root: root, Tool: "Bash", Now: t0})
			if err != nil || rep.FirstSight || len(rep.Findings) != 0 {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
	b.Run("first-sight-bounded", func(b *testing.B) {
		for b.Loop() {
			h := b.TempDir()
			rep, err := New(Options{Home: h}).Check(Call{Root: root, Now: t0, Clock: time.Now})
			if err != nil || !rep.FirstSight {
				b.Fatalf("%+v %v", rep, err)
			}
			b.ReportMetric(float64(rep.Pending), "unread")
		}
	})
	b.Run("first-sight-whole", func(b *testing.B) {
		for b.Loop() {
			h := b.TempDir()
			rep, err := New(Options{Home: h}).Check(Call{Root: root, Now: t0})
			if err != nil || !rep.FirstSight {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
}
