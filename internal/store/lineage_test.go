package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestLineage: rows by content hash (any path), the newest per path with
// its detail, a path's history newest first; a detail is scrubbed.
func TestLineage(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "v.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 11, 24, 10, 14, 0, 0, time.UTC)
	rows := []record.Lineage{
		{Project: "/p", Path: "FINDINGS.json", SHA256: "aa", Writer: "hand", By: "Write", Tool: "Write", Session: "s1", ToolUseID: "t1", At: at},
		{Project: "/p", Path: "results/metrics.json", SHA256: "bb", Writer: "computation", By: "python3 a.py", Tool: "Bash", At: at.Add(time.Minute)},
		{Project: "/p", Path: "copy.json", SHA256: "aa", Writer: "unknown", By: "Bash: cp", Tool: "Bash", At: at.Add(2 * time.Minute)},
		{Project: "/q", Path: "FINDINGS.json", SHA256: "aa", Writer: "computation", At: at},
		{Project: "/p", Path: "FINDINGS.json", SHA256: "cc", Writer: "computation", By: "python3 b.py", Tool: "Bash", At: at.Add(3 * time.Minute)},
	}
	var ids []int64
	if err := st.Tx(ctx, func(tx *Tx) error {
		for _, r := range rows {
			id, err := tx.AddLineage(ctx, r)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetLineageDetail(ctx, ids[4], []byte(`{"command": "API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP python3 b.py"}`)); err != nil {
		t.Fatal(err)
	}
	got, err := st.LineageOf(ctx, "/p", "aa")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != "FINDINGS.json" || got[0].Writer != "hand" || got[0].By != "Write" || got[0].Session != "s1" ||
		got[0].ToolUseID != "t1" || !got[0].At.Equal(at) || got[1].Path != "copy.json" || got[1].Writer != "unknown" {
		t.Errorf("LineageOf(aa) = %+v", got)
	}
	latest, err := st.LatestLineage(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, l := range latest {
		paths = append(paths, l.Path+"@"+l.SHA256)
	}
	if want := []string{"FINDINGS.json@cc", "copy.json@aa", "results/metrics.json@bb"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("LatestLineage = %q, want %q", paths, want)
	}
	if d := string(latest[0].Detail); d == "" || d == `{"command": "API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP python3 b.py"}` {
		t.Errorf("detail %q: not kept, or not scrubbed", d)
	}
	hist, err := st.LineageHistory(ctx, "/p", "FINDINGS.json", 10)
	if err != nil || len(hist) != 2 || hist[0].SHA256 != "cc" || hist[1].SHA256 != "aa" || hist[1].Detail != nil {
		t.Errorf("LineageHistory = %+v, %v", hist, err)
	}
}
