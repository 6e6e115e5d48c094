package calibration

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestNewCmdCalibrationFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want CalibrationOptions
		err  string
	}{
		{[]string{}, CalibrationOptions{Bins: 10}, ""},
		{[]string{"--bins", "5", "--json", "--project", "/p"}, CalibrationOptions{Bins: 5, JSON: true, Project: "/p"}, ""},
		{[]string{"--bins", "0"}, CalibrationOptions{}, "--bins must be between 1 and 100, not 0"},
		{[]string{"extra"}, CalibrationOptions{}, `unknown command "extra" for "calibration"`},
	}
	for _, tt := range tests {
		f, _, _, _ := calTestFactory(t)
		var got *CalibrationOptions
		cmd := NewCmdCalibration(f, func(o *CalibrationOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.argv, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
	f, _, _, _ := calTestFactory(t)
	cmd := NewCmdCalibration(f, func(*CalibrationOptions) error { return nil })
	cmd.SetArgs([]string{"--bins", "101"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); cli.ExitCode(err) != 2 {
		t.Errorf("--bins 101: exit %d (%v), want 2", cli.ExitCode(err), err)
	}
}

func calAddOutcomes(t *testing.T, st *store.Store, root string, outcomes ...string) {
	t.Helper()
	ctx := context.Background()
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		for i, o := range outcomes {
			f := strings.Fields(o)
			var p float64
			json.Unmarshal([]byte(f[1]), &p)
			if _, err := tx.AddCalibration(ctx, record.CalibrationEntry{ClaimID: f[0], ProjectPath: root, SessionID: "s1",
				Predicted: p, Outcome: f[2], At: calT0.Add(time.Duration(i) * time.Minute)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestRunCalibration(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := calTestFactory(t)
	st := calSession(t, f, "s1", root)

	calAddOutcomes(t, st, root, "C-001 0.9 VERIFIED", "C-002 0.8 VERIFIED", "C-003 0.8 CONFOUNDED")
	if err := runCalibration(ctx, &CalibrationOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Bins: 10}); err != nil {
		t.Fatal(err)
	}
	want := root + ": 3 claim outcomes recorded; the Brier score and ECE need at least 10 (7 more). " +
		"An outcome is recorded when a claim in CLAIM-LEDGER.md becomes VERIFIED or KILLED.\n"
	if out.String() != want {
		t.Errorf("not ready:\n got %q\nwant %q", out.String(), want)
	}

	calAddOutcomes(t, st, root, "C-004 0.7 VERIFIED", "C-005 0.6 ARTIFACT", "C-006 0.3 REJECTED", "C-007 0.2 REJECTED",
		"C-008 0.2 ROBUST", "C-009 0.1 REJECTED", "C-010 0.95 VERIFIED")
	out.Reset()
	if err := runCalibration(ctx, &CalibrationOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Bins: 10}); err != nil {
		t.Fatal(err)
	}
	want = root + `: 10 claim outcomes
Brier score  0.1923  (0 is perfect; always saying 0.5 scores 0.25)
ECE          0.2650  (10 bins; the held share's distance from the stated confidence)

BIN        N  CONFIDENCE  HELD   GAP
0.10-0.20  1  0.100       0.000  0.100
0.20-0.30  2  0.200       0.500  0.300
0.30-0.40  1  0.300       0.000  0.300
0.60-0.70  1  0.600       0.000  0.600
0.70-0.80  1  0.700       1.000  0.300
0.80-0.90  2  0.800       0.500  0.300
0.90-1.00  2  0.925       1.000  0.075
`
	if out.String() != want {
		t.Errorf("ready:\n got %s\nwant %s", out.String(), want)
	}

	out.Reset()
	if err := runCalibration(ctx, &CalibrationOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Bins: 2, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var j calibrationJSON
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if j.Project != root || j.Outcomes != 10 || !j.Ready || j.Brier == nil || math.Abs(*j.Brier-0.19225) > 1e-12 || len(j.Bins) != 2 ||
		j.Bins[0].N != 4 || j.Bins[1].N != 6 || len(j.Points) != 10 {
		t.Errorf("json: %s", out.String())
	}

	// Another project has no outcomes: JSON says not ready, with null scores.
	out.Reset()
	other := clitest.MkVibeDir(t, t.TempDir())
	if err := runCalibration(ctx, &CalibrationOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: other, Bins: 10, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"ready": false`) || !strings.Contains(out.String(), `"brier": null`) ||
		!strings.Contains(out.String(), `"points": []`) {
		t.Errorf("empty json: %s", out.String())
	}
}

var calT0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

// calTestFactory shows tables as a 200-column terminal does, and makes a
// project.
func calTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer, string) {
	f, out, errOut := clitest.New(t, clitest.Options{Now: calT0, TTY: true, Width: 200})
	return f, out, errOut, clitest.Project(t)
}

func calSession(t *testing.T, f *cli.Factory, id, root string) *store.Store {
	return clitest.Session(t, f, id, root, calT0)
}
