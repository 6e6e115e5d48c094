package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestSessionStartShowsWhatOtherPackagesRecorded: each part SessionStart
// takes from other packages reaches the context when its rows exist (the
// pending seeds have their golden case): an open alert, a protected file
// changed this week, an R2 calibration hint, a fix made repeatedly, a gate
// failing repeatedly. A project without them shows none of their titles.
func TestSessionStartShowsWhatOtherPackagesRecorded(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	judged := func(id string, score int, weak ...string) record.R2Review {
		return record.R2Review{ReviewID: id, SessionID: "earlier", Mode: "BATCH", J0Score: &score, Weaknesses: weak, At: now.Add(-time.Hour)}
	}
	for _, tc := range []struct {
		name string
		seed func(tx *store.Tx, project string) error
		want string
	}{
		{"nothing recorded", func(*store.Tx, string) error { return nil }, ""},
		{"open alert", func(tx *store.Tx, project string) error {
			_, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: project, SessionID: "earlier", Check: "drift",
				Level: record.AlertWarn, Message: "coverage drifted to 0.71 on fold 3", Fingerprint: "f1", At: now.Add(-time.Hour)})
			return err
		}, "coverage drifted to 0.71 on fold 3"},
		{"protected file changed", func(tx *store.Tx, project string) error {
			return tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: "earlier", ProjectPath: project, Event: "PostToolUse", At: now.Add(-time.Hour)},
				[]verdict.Verdict{{Check: handler.CheckProtectedChange, Result: verdict.Warn, Reason: "raw/d.csv changed.", Recommendation: "Restore it from the download."}})
		}, "PROTECTED FILES CHANGED"},
		{"R2 calibration", func(tx *store.Tx, project string) error {
			for i, r := range []record.R2Review{judged("R2-1", 10, "escalation"), judged("R2-2", 12, "escalation"), judged("R2-3", 13)} {
				r.ProjectPath, r.At = project, r.At.Add(time.Duration(i)*time.Minute)
				if _, err := tx.UpsertReview(ctx, r); err != nil {
					return err
				}
			}
			return nil
		}, "R2 weakest on escalation"},
		{"repeated fix", func(tx *store.Tx, project string) error {
			for i := range 2 {
				if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "earlier", ProjectPath: project, At: now.Add(-time.Hour),
					ActionType: "BUG_FIX", ToolName: "Edit", ToolUseID: "toolu_fix_" + string(rune('a'+i)), InputSummary: "fix the fold split in split.py"}, nil); err != nil {
					return err
				}
			}
			return nil
		}, "Same fix made repeatedly"},
		{"gate failing", func(tx *store.Tx, project string) error {
			for range 2 {
				if _, err := tx.AddGateCheck(ctx, record.GateCheck{Session: "earlier", Project: project,
					Result: record.GateResult{Gate: "DQ1", Status: record.GateFail}, At: now.Add(-time.Hour)}); err != nil {
					return err
				}
			}
			return nil
		}, "Gates failing most: DQ1 (2×)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, project, st := hookHome(t)
			err := st.Tx(ctx, func(tx *store.Tx) error {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "earlier", ProjectPath: project, At: now.Add(-2 * time.Hour), Start: true}); err != nil {
					return err
				}
				return tc.seed(tx, project)
			})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(map[string]any{"session_id": "now", "cwd": project, "hook_event_name": "SessionStart", "source": "startup"})
			var out bytes.Buffer
			hookrun.Main(handler.SessionStart, &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{},
				Now: time.Now, Getenv: func(k string) string { return env[k] }})
			var reply struct {
				HookSpecificOutput struct {
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
				t.Fatalf("reply %q: %v", out.String(), err)
			}
			text := reply.HookSpecificOutput.AdditionalContext
			if tc.want == "" {
				for _, title := range []string{"ALERT", "PROTECTED FILES CHANGED", "R2 CALIBRATION", "Same fix", "Gates failing"} {
					if strings.Contains(text, title) {
						t.Errorf("a project with nothing recorded shows %q:\n%s", title, text)
					}
				}
				return
			}
			if !strings.Contains(text, tc.want) {
				t.Errorf("context lacks %q:\n%s", tc.want, text)
			}
		})
	}
}
