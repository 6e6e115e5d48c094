package gate

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

func TestRun(t *testing.T) {
	d := generic(t)
	dir := t.TempDir()
	art := filepath.Join(dir, "V0.json")
	writeFile(t, art, `{}`)
	tests := []struct {
		id     string
		in     Inputs
		err    error
		errMsg string
		gate   string
	}{
		{id: "DQ1", err: ErrMissingInput, errMsg: "run gate DQ1: pass --features FILE: missing gate input"},
		{id: "dq2", err: ErrMissingInput, errMsg: "run gate DQ2: pass --metrics FILE: missing gate input"},
		{id: "DQ3", err: ErrMissingInput, errMsg: "run gate DQ3: pass --calibration FILE: missing gate input"},
		{id: "DQ4", err: ErrMissingInput, errMsg: "run gate DQ4: pass --findings FILE: missing gate input"},
		{id: "DD0", err: ErrMissingInput, errMsg: "run gate DD0: pass --dictionary FILE: missing gate input"},
		{id: "DD0", in: Inputs{Dictionary: "d.md"}, err: ErrMissingInput, errMsg: "run gate DD0: pass --features FILE (or the columns in use): missing gate input"},
		{id: "DC0", err: ErrMissingInput, errMsg: "run gate DC0: pass --design FILE: missing gate input"},
		{id: "V0", err: ErrMissingInput, errMsg: "run gate V0: pass --artifact FILE: missing gate input"},
		{id: "L-1", err: ErrNotComputable, errMsg: "run gate L-1: it is judged from the literature searches recorded in the session, by the PreToolUse hook and vibe gate check: gate not computable from files"},
		{id: "G3", err: ErrNotComputable, errMsg: "run gate G3: it is a prompt-level gate; perform it and record `Gate G3: PASS|FAIL — what you checked` in PROGRESS.md: gate not computable from files"},
		{id: "X9", errMsg: `run gate: "X9" is not a gate id (see vibe gate list)`},
		{id: "v0", in: Inputs{Artifact: art}, gate: "V0"},
	}
	for _, tt := range tests {
		r, err := Run(tt.id, tt.in, d)
		if tt.errMsg != "" {
			if err == nil || err.Error() != tt.errMsg || (tt.err != nil && !errors.Is(err, tt.err)) {
				t.Errorf("Run(%s) err %v, want %q", tt.id, err, tt.errMsg)
			}
			continue
		}
		if err != nil || r.Gate != tt.gate || r.Status != StatusFail || r.Inputs[0] != art {
			t.Errorf("Run(%s) = %+v, %v", tt.id, r, err)
		}
	}
}

func TestParseDesign(t *testing.T) {
	d, probs := ParseDesign([]byte(design))
	if len(probs) > 0 {
		t.Fatalf("problems %q", probs)
	}
	for i := range d.Steps {
		d.Steps[i].line, d.Steps[i].fields = 0, nil
	}
	for i := range d.Deviations {
		d.Deviations[i].line = 0
	}
	want := Design{RQ: "RQ-007", Title: "Test design",
		Steps: []Step{
			{Number: 1, Title: "Download", Inputs: []string{}, Outputs: []string{"03-data/raw/a.csv"}, Gates: []string{"G0"}},
			{Number: 2, Title: "Features", Inputs: []string{"03-data/raw/a.csv"}, Outputs: []string{"03-data/features.csv", "03-data/runs/*/metrics.json"}, Gates: []string{"DQ1", "DD0"}},
		},
		Deviations: []Deviation{{ID: "DEV-001", Date: "2026-01-09", Step: 2, What: "Dropped a column", Why: "it leaked the label", Files: []string{"03-data/features_v2.csv"}}},
	}
	if !equalJSON(t, d, want) {
		t.Errorf("parsed %+v\nwant %+v", d, want)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ga, err1 := canonicalOf(a)
	gb, err2 := canonicalOf(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return ga == gb
}

func canonicalOf(v any) (string, error) {
	raw, err := verdict.Canonical(v)
	return string(raw), err
}
