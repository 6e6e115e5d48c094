package worker

import (
	"context"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
)

// TestWorkerLinksHookMemories: memories written as the hooks write them
// (unchecked) are linked by the worker's poll, without a model, and the
// newer contradicting one supersedes the older.
func TestWorkerLinksHookMemories(t *testing.T) {
	p := testHome(t)
	ids := seedMemories(t, p, "Minimum read threshold is 1% for off-target calls",
		"Minimum read threshold is 0.1% for off-target calls")
	openWorker(t, fastConfig(p, &fakeLoader{}, "none"))
	ctx := context.Background()
	st, err := store.Open(ctx, p.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eventually(t, 10*time.Second, "older memory superseded", func() bool {
		m, err := st.Memory(ctx, ids[0])
		return err == nil && m.SupersededBy != nil && *m.SupersededBy == ids[1]
	})
}
