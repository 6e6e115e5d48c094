package hookrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TestPreToolUseChecksWhatTheProjectHolds: PreToolUse reads the HALT
// alerts and the brief only when one statement says they are there
// (store.PreToolProbe); with each present, a write is refused for it, and
// without them the same write is allowed.
func TestPreToolUseChecksWhatTheProjectHolds(t *testing.T) {
	r := newFaultRig(t)
	ctx := context.Background()
	os.MkdirAll(filepath.Join(r.project, "src"), 0o755)
	os.WriteFile(filepath.Join(r.project, "src", "split.go"), []byte("package src\n\nfunc MakeSplits(n int) []int { return nil }\n"), 0o644)
	edit := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_split",
		"tool_input": map[string]any{"file_path": filepath.Join(r.project, "src", "split.go"), "old_string": "nil", "new_string": "[]int{1}"}}
	if out, _ := r.run("pre-tool-use", edit); strings.Contains(out, "deny") {
		t.Fatalf("a project with neither HALT nor brief refused the edit: %s", out)
	}

	st, err := store.Open(ctx, r.dbPath(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := project.Resolve(r.project).Root
	var halt record.Alert
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		halt, _, err = tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: root, Check: "findings-json", Level: record.AlertHalt,
			Message: "FINDINGS.md is ahead of its JSON.", Fingerprint: "findings-json:HALT", At: time.Now()})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if out, _ := r.run("pre-tool-use", edit); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "FINDINGS.md is ahead") {
		t.Fatalf("an open HALT did not refuse the edit: %s", out)
	}

	if st, err = store.Open(ctx, r.dbPath(), store.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		_, err := tx.ResolveAlert(ctx, halt.ID, "user", "triaged", time.Now())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	briefText := "# Brief: Off-target scoring\n\n## Constraints\n\n### BC-001: Never change how guides are split\n- severity: Critical\n- action: Block\n- applies-to: src/split.go#MakeSplits\n- rationale: held-out guides.\n"
	if _, err := integritycheck.IngestBrief(ctx, st, project.Resolve(r.project), "brief.md", []byte(briefText), time.Now()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, _ := r.run("pre-tool-use", edit)
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "BC-001") || strings.Contains(out, "FINDINGS.md is ahead") {
		t.Fatalf("the brief's Critical constraint did not refuse the edit (or the resolved HALT still did): %s", out)
	}
}
