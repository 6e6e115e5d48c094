package permission

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/vibe-science/vibe/blueprints"
)

// BenchmarkCheckWrite is the common case on the hook path: a Write by a
// subagent inside the project.
func BenchmarkCheckWrite(b *testing.B) {
	prj := newProject(b)
	p := Default()
	req := prj.request("vibe:reviewer2", "Write", write("$ROOT/RQ-001/05-reviewer2/R2-002.yaml"), "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := p.Check(req); d.Action != Allow {
			b.Fatal(d.Reason)
		}
	}
}

// BenchmarkCheckBash is a typical analysis command with a cd, a pipe and
// redirections.
func BenchmarkCheckBash(b *testing.B) {
	prj := newProject(b)
	p := Default()
	req := prj.request("vibe:experimenter", "Bash",
		bash("cd RQ-001/03-analysis && python3 analysis.py --seed 1 2>&1 | tee ../04-results/run1.log > /dev/null"), "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := p.Check(req); d.Action != Allow {
			b.Fatal(d.Reason)
		}
	}
}

// BenchmarkCheckBashInline measures a command with inline Python code.
func BenchmarkCheckBashInline(b *testing.B) {
	prj := newProject(b)
	p := Default()
	req := prj.request("vibe:experimenter", "Bash",
		bash(`python3 -c "import pandas as pd; df = pd.read_csv('RQ-001/02-data/raw/counts.csv'); df.to_csv('RQ-001/02-data/processed/counts.csv')"`), "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := p.Check(req); d.Action != Allow {
			b.Fatal(d.Reason)
		}
	}
}

// BenchmarkParse is the cost a hook pays when the project has its own
// permissions.json (the default policy is compiled once per process).
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse([]byte(`{"mode": "team"}`)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefault is the first use of the default policy in a process:
// what every hook invocation pays once. Globs are cached across runs here,
// so this measures the JSON decoding and the rest of the compilation.
func BenchmarkDefault(b *testing.B) {
	raw, err := fs.ReadFile(blueprints.FS, DefaultFile)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := fromBytes(raw, hostPlaces()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadProjectPolicy is PreToolUse's cost of a TEAM project's
// permissions.json in the resident worker: a stat while the file is
// unchanged.
func BenchmarkLoadProjectPolicy(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, ".vibe-science"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".vibe-science", "permissions.json"), []byte(`{"mode": "team"}`), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if p, err := Load(dir); err != nil || !p.TeamMode() {
			b.Fatal(err)
		}
	}
}

// BenchmarkManPageCorpus is the analyser's cost per command over the
// man-page corpus (testdata/manpages.md), sent from the project root and
// from raw data, with a net, in a project of the usual size and in one of
// 5,000 files more: p50, p99 and the slowest command, per project (make
// bench reports them).
func BenchmarkManPageCorpus(b *testing.B) {
	corpus := readManCorpus(b)
	for _, size := range []struct {
		name  string
		extra int
	}{{"project", 0}, {"5000-files", 5000}} {
		b.Run(size.name, func(b *testing.B) {
			prj := newProject(b)
			grow(b, prj, size.extra)
			p := Default()
			var took []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				took = took[:0]
				for _, c := range corpus {
					for _, cwd := range []string{"", "RQ-001/02-data/raw"} {
						req := prj.request("", "Bash", bash(c.Command), cwd)
						req.Net = restoresAll{}
						t0 := time.Now()
						p.Check(req)
						took = append(took, time.Since(t0))
					}
				}
			}
			b.StopTimer()
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			q := func(f float64) float64 { return float64(took[int(f*float64(len(took)-1))].Microseconds()) }
			b.ReportMetric(q(0.5), "p50-µs/cmd")
			b.ReportMetric(q(0.99), "p99-µs/cmd")
			b.ReportMetric(q(1), "max-µs/cmd")
			b.ReportMetric(float64(len(took)), "cmds")
		})
	}
}
