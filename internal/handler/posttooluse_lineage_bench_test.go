package handler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/artifact"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/project"
)

// BenchmarkResults is what a call that rewrote a metrics file adds before
// the reply: its command parsed, the result read, hashed and classified.
func BenchmarkResults(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(filepath.Join(root, "analysis"), 0o755)
	os.MkdirAll(filepath.Join(root, "results"), 0o755)
	os.WriteFile(filepath.Join(root, "analysis", "train.py"), []byte("rows = open('data/sites.csv').read()\n"), 0o644)
	metrics := filepath.Join(root, "results", "metrics.json")
	os.WriteFile(metrics, []byte(`{"roc_auc": 0.8123, "n": 1000}`), 0o644)
	in, _ := json.Marshal(map[string]string{"command": "cd analysis && uv run python train.py --seed 42 > ../results/log.txt"})
	ev := &hook.Event{ToolName: "Bash", Cwd: root, ToolInput: in}
	scan := artifact.Scan{Root: root, Changes: []artifact.Change{{Abs: metrics, Rel: "results/metrics.json", Kind: "metrics", MtimeNS: time.Now().UnixNano()}}}
	since := time.Now().Add(-time.Second)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rs := results(ev, project.Project{Root: root}, scan, nil, since); len(rs) != 1 {
			b.Fatalf("%d results", len(rs))
		}
	}
}
