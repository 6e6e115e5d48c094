package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/ledger"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
)

// TestSessionStartRecordsAfterItsReply: in the resident process a
// SessionStart writes the session's row and the ledger baseline after its
// reply, as work the next hook waits for (AfterOrdered); its state line
// already numbers the session. With a seed waiting, the session is
// recorded before the reply, since ticking the seed counts it.
func TestSessionStartRecordsAfterItsReply(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	for _, tc := range []struct {
		name     string
		seed     bool
		deferred bool
	}{
		{"no seed waiting", false, true},
		{"a seed waiting", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			proj := project.Project{Root: dir}
			if err := os.MkdirAll(filepath.Dir(proj.Path(ledger.FileName)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(proj.Path(ledger.FileName), []byte("# Claim ledger\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off", "CLAUDE_PROJECT_DIR": dir}
			st, err := store.Open(ctx, config.Resolve(func(k string) string { return env[k] }).DB, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			err = st.Tx(ctx, func(tx *store.Tx) error {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "earlier", ProjectPath: dir, At: now.Add(-2 * time.Hour), Start: true}); err != nil {
					return err
				}
				if !tc.seed {
					return nil
				}
				_, err := tx.UpsertSeed(ctx, record.SeedRecord{SeedID: "S-01", ProjectPath: dir, CreatedSession: "earlier",
					Status: "PENDING_TRIAGE", Title: "CTCF proximity", CreatedAt: now.Add(-time.Hour)}, "earlier", now.Add(-time.Hour))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			recorded := func() bool {
				t.Helper()
				n, err := st.SessionNumber(ctx, dir, "")
				if err != nil {
					t.Fatal(err)
				}
				var baseline bool
				err = st.Tx(ctx, func(tx *store.Tx) (err error) {
					_, baseline, err = tx.LedgerSnapshot(ctx, dir, proj.Rel(proj.Path(ledger.FileName)))
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if (n == 2) != baseline {
					t.Fatalf("the session row (%d sessions) and the ledger baseline (%v) were not written together", n, baseline)
				}
				return n == 2
			}

			var later []func(context.Context)
			raw, _ := json.Marshal(map[string]any{"session_id": "now", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"})
			var out bytes.Buffer
			e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{}, Now: time.Now,
				Getenv:       func(k string) string { return env[k] },
				After:        func(f func(context.Context)) { later = append(later, f) },
				AfterOrdered: func(f func(context.Context)) { later = append(later, f) }}
			e.UseStore(st)
			hookrun.Main(handler.SessionStart, e)
			if !strings.Contains(out.String(), "session 2 ·") {
				t.Errorf("the state line does not number this session 2:\n%s", out.String())
			}
			if got := recorded(); got == tc.deferred {
				t.Fatalf("session recorded before the reply: %v, want %v", got, !tc.deferred)
			}
			for _, f := range later {
				f(ctx)
			}
			if !recorded() {
				t.Fatal("the session start was not recorded after the reply")
			}
		})
	}
}
