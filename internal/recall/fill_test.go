package recall

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
)

func TestFill(t *testing.T) {
	ctx := context.Background()
	texts := func() []string {
		st := openStore(t)
		if err := Fill(ctx, st, "/bench", 300, t0); err != nil {
			t.Fatal(err)
		}
		var out []string
		kinds := map[string]bool{}
		err := st.ExportMemories(ctx, "/bench", func(m record.MemoryRecord) error {
			if strings.Contains(m.Text, "{") || m.Source != "bench" || m.CreatedAt.After(t0) || t0.Sub(m.CreatedAt) > 366*24*3600e9 {
				t.Errorf("memory %+v", m)
			}
			kinds[m.Kind] = true
			out = append(out, m.Kind+"|"+m.Text)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(kinds) != len(Kinds) {
			t.Errorf("kinds %v, want all of %v", kinds, Kinds)
		}
		stats, _ := st.Stats(ctx)
		if stats.Memories != 300 || stats.QueuePending != 300 {
			t.Errorf("stats %+v, want 300 memories, 300 queued", stats)
		}
		return out
	}
	a, b := texts(), texts()
	if len(a) != 300 || !reflect.DeepEqual(a, b) {
		t.Errorf("two fills of 300 differ or are short: %d vs %d", len(a), len(b))
	}
}
