package worker

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store"
)

// TestWorkerRescansStoredSecretsOnce: a memory an older vibe stored with a
// token in it is scrubbed by the resident process at its start (and queued
// for a new vector), the rules' version is recorded, the log says so, and
// nothing is pending afterwards.
func TestWorkerRescansStoredSecretsOnce(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	ids := seedMemories(t, p, "placeholder")
	ctx := context.Background()
	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const tok = "ghp_Q9xv2LmP7sR4tW8zK3nB6cJ1dF5gH0aE2iU4"
	if _, err := st.DB().Exec("UPDATE memories SET text = ? WHERE id = ?", "pushed with "+tok, ids[0]); err != nil {
		t.Fatal(err)
	}
	st.Close()
	w := openWorker(t, fastConfig(p, &fakeLoader{}, "fake"))
	eventually(t, 10*time.Second, "the rules' version is recorded", func() bool {
		var v string
		w.store().DB().QueryRow("SELECT value FROM meta WHERE key = ?", store.RescanKey).Scan(&v)
		return v == privacy.Version()
	})
	var text string
	w.store().DB().QueryRow("SELECT text FROM memories WHERE id = ?", ids[0]).Scan(&text)
	if text != "pushed with [REDACTED]" {
		t.Errorf("memory text %q after the worker's start", text)
	}
	eventually(t, 5*time.Second, "the rescan is logged", func() bool {
		log, _ := os.ReadFile(LatestLog(p.Logs))
		return strings.Contains(string(log), "rescanned ") && strings.Contains(string(log), "1 rewritten (1 memories queued")
	})
	if pending, err := w.store().RescanPending(ctx); err != nil || pending {
		t.Errorf("still pending: %v %v", pending, err)
	}
}
