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

	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TestSessionStartRecordsAfterItsReply: in the resident process a
// SessionStart writes the session's row after its reply, as work the next
// hook waits for (AfterOrdered); its state line already numbers the
// session. The ledger baseline is taken before the reply (the session's
// first ledger edit is diffed against it). With a seed waiting, the
// session is recorded before the reply, since ticking the seed counts it.
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
			env, dir, st := hookHome(t)
			proj := project.Project{Root: dir}
			if err := os.MkdirAll(filepath.Dir(proj.Path(claimcheck.FileName)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(proj.Path(claimcheck.FileName), []byte("# Claim ledger\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := st.Tx(ctx, func(tx *store.Tx) error {
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
					_, baseline, err = tx.LedgerSnapshot(ctx, dir, proj.Rel(proj.Path(claimcheck.FileName)))
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if !baseline {
					t.Fatal("no ledger baseline before the reply")
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

// TestSessionStartWrittenLateLeavesAnEndedSessionEnded: the worker lets a
// hook go on after waiting a fifth of its budget for earlier hooks'
// records, so a SessionEnd can overtake the row its SessionStart writes
// after the reply; that row, written late, must not reopen the session.
func TestSessionStartWrittenLateLeavesAnEndedSessionEnded(t *testing.T) {
	ctx := context.Background()
	env, dir, st := hookHome(t)
	run := func(h hookrun.Spec, ev map[string]any, later *[]func(context.Context), at time.Time) {
		raw, _ := json.Marshal(ev)
		e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
			Now: func() time.Time { return at }, Getenv: func(k string) string { return env[k] }}
		if later != nil {
			e.After = func(f func(context.Context)) { *later = append(*later, f) }
			e.AfterOrdered = e.After
		}
		e.UseStore(st)
		hookrun.Main(h, e)
	}
	var later []func(context.Context)
	start := time.Now().UTC()
	run(handler.SessionStart, map[string]any{"session_id": "s1", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"}, &later, start)
	run(handler.SessionEnd, map[string]any{"session_id": "s1", "cwd": dir, "hook_event_name": "SessionEnd", "reason": "other"}, nil, start.Add(time.Second))
	if len(later) == 0 {
		t.Fatal("SessionStart left nothing for after its reply: the test proves nothing")
	}
	for _, f := range later {
		f(ctx)
	}
	s, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if s.EndedAt == nil {
		t.Errorf("the deferred SessionStart record reopened an ended session (ended_at NULL, start_count %d)", s.StartCount)
	}
}

// hookHome is a VIBE_HOME and a project folder for a handler test, the
// database open; env is what the handlers read (the worker off).
func hookHome(t *testing.T) (env map[string]string, dir string, st *store.Store) {
	t.Helper()
	home := t.TempDir()
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(dir, ".vibe-science"), 0o755) // a vibe project (project.OptedIn)
	env = map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off", "CLAUDE_PROJECT_DIR": dir}
	st, err := store.Open(context.Background(), config.Resolve(func(k string) string { return env[k] }).DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return env, dir, st
}
