package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TestRescanSecrets: texts stored before the current secret rules (written
// here around the scrub, as an older vibe stored them) are scrubbed once:
// the spine, a memory (its index and its vector queue too), a mistake, a
// session's narrative, a provenance path, the append-only advisory log (a
// JSON input included), an alert; what holds no secret and the keys stay
// byte for byte; the advisory log is append-only again afterwards; the
// marker makes a second run read nothing; and no byte of a secret is left
// in the database file or its WAL.
func TestRescanSecrets(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const tok = "ghp_Q9xv2LmP7sR4tW8zK3nB6cJ1dF5gH0aE2iU4"
	const pw = "Hunter2Secret99"
	err = s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: t0}); err != nil {
			return err
		}
		if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "s1", ProjectPath: "/p", At: t0, ActionType: "run",
			ToolName: "Bash", ToolUseID: "tu1", InputSummary: "placeholder", OutputSummary: "AUC 0.81 (sha256 e3b0c44298fc)"},
			[]record.Touched{{Path: "data/x.csv", Op: "write"}}); err != nil {
			return err
		}
		if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: "placeholder memory", At: t0}); err != nil {
			return err
		}
		_, err := tx.AddMistake(ctx, record.Mistake{Project: "/p", Session: "s1", Target: "run x.py", Tool: "Bash", Tried: "x", Error: "placeholder", FailedAt: t0})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := s.DB()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE spine_entries SET input_summary = ?", []any{"$ GITHUB_TOKEN=" + tok + " git push"}},
		{"UPDATE provenance SET path = ?", []any{"out/" + tok + ".log"}},
		{"UPDATE memories SET text = ?", []any{"note: DB_PASSWORD=" + pw + " and token " + tok}},
		{"UPDATE mistakes SET error = ?", []any{"auth failed for https://ana:" + pw + "@db.example.org"}},
		{"UPDATE sessions SET narrative_summary = ?", []any{"pushed with " + tok}},
		{`INSERT INTO advisories (session_id, project_path, event, check_name, result, severity, reason, evidence, input, decision_hash, ts)
VALUES ('s1', '/p', 'PreToolUse', 'permission', 'HARD_BLOCK', 'HIGH', ?, ?, ?, 'h1', 1)`,
			[]any{"refused: echo " + tok, `{"notes":["curl -u ana:` + pw + ` https://x"]}`, `{"command":"export API_KEY=\"` + pw + `\""}`}},
		{`INSERT INTO observer_alerts (project_path, check_name, level, message, fingerprint, created_at) VALUES ('/p', 'c', 'WARN', ?, 'f1', 1)`,
			[]any{"token " + tok + " seen in a log"}},
	} {
		if _, err := raw.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if pending, err := s.RescanPending(ctx); err != nil || !pending {
		t.Fatalf("pending %v %v, want true", pending, err)
	}
	rep, err := s.RescanSecrets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Done || rep.Changed != 7 || rep.Memories != 1 {
		t.Errorf("report %+v, want 7 rows changed, 1 memory", rep)
	}
	text := func(q string) string {
		var v string
		if err := raw.QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	for q, want := range map[string]string{
		"SELECT input_summary FROM spine_entries":                "$ GITHUB_TOKEN=[REDACTED] git push",
		"SELECT output_summary FROM spine_entries":               "AUC 0.81 (sha256 e3b0c44298fc)",
		"SELECT path FROM provenance":                            "out/[REDACTED].log",
		"SELECT text FROM memories":                              "note: DB_PASSWORD=[REDACTED] and token [REDACTED]",
		"SELECT error FROM mistakes":                             "auth failed for https://ana:[REDACTED]@db.example.org",
		"SELECT target FROM mistakes":                            "run x.py",
		"SELECT narrative_summary FROM sessions":                 "pushed with [REDACTED]",
		"SELECT reason FROM advisories":                          "refused: echo [REDACTED]",
		"SELECT evidence FROM advisories":                        `{"notes":["curl -u [REDACTED] https://x"]}`, // gitleaks' curl-auth-user takes the user too
		"SELECT input FROM advisories":                           `{"command":"export API_KEY=\"[REDACTED]\""}`,
		"SELECT message FROM observer_alerts":                    "token [REDACTED] seen in a log",
		"SELECT status FROM embed_queue":                         "pending",
		"SELECT content_hash FROM memories":                      record.ContentHash(record.KindNote, "note: DB_PASSWORD=[REDACTED] and token [REDACTED]"),
		"SELECT value FROM meta WHERE key = '" + RescanKey + "'": privacy.Version(),
	} {
		if got := text(q); got != want {
			t.Errorf("%s = %q, want %q", q, got, want)
		}
	}
	if _, err := raw.ExecContext(ctx, "UPDATE advisories SET reason = 'x'"); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("the advisory log takes updates after the rescan: %v", err)
	}
	hits, err := s.SearchMemories(ctx, record.TextQuery{Project: "/p", Match: `"Hunter2Secret99"`, Limit: 5})
	if err != nil || len(hits) != 0 {
		t.Errorf("the memory index still finds the password: %v %v", hits, err)
	}
	if _, err := raw.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, memories_fts, row)"); err != nil {
		t.Fatal(err)
	}
	var n int
	raw.QueryRowContext(ctx, "SELECT count(*) FROM temp.terms WHERE term LIKE 'hunter2%' OR term LIKE '%q9xv2%'").Scan(&n)
	if n != 0 {
		t.Errorf("%d secret terms left in the memory index", n)
	}
	again, err := s.RescanSecrets(ctx)
	if err != nil || again.Done || again.Rows != 0 {
		t.Errorf("second run %+v %v, want nothing read", again, err)
	}
	s.Close()
	for _, p := range []string{path, path + "-wal"} {
		b, _ := os.ReadFile(p)
		for _, sec := range []string{tok, tok[4:20], pw, strings.ToLower(pw)} {
			if bytes.Contains(b, []byte(sec)) {
				t.Errorf("%s holds %q", filepath.Base(p), sec)
			}
		}
	}
}
