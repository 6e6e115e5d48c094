package seeds

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/store"
)

func TestNewCmdSeedsFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want SeedsOptions
		err  string
	}{
		{[]string{}, SeedsOptions{Limit: 100}, ""},
		{[]string{"--status", "pending-triage", "--json", "--limit", "3", "--project", "/p"},
			SeedsOptions{Status: "PENDING_TRIAGE", JSON: true, Limit: 3, Project: "/p"}, ""},
		{[]string{"--status", "removed"}, SeedsOptions{Status: "REMOVED", Limit: 100}, ""},
		{[]string{"--status", "open"}, SeedsOptions{},
			`--status must be one of PENDING_TRIAGE, QUEUED, TESTING, KILLED, PROMOTED_TO_CLAIM, REMOVED, not "open"`},
		{[]string{"--limit", "-1"}, SeedsOptions{}, "--limit must be at least 1, not -1"},
	}
	for _, tt := range tests {
		f, _, _, _ := calTestFactory(t)
		var got *SeedsOptions
		cmd := NewCmdSeeds(f, func(o *SeedsOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("%q: err %v (exit %d), want %q", tt.argv, err, cli.ExitCode(err), tt.err)
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
}

const calSeedsFile = `# Serendipity log

## SEED-20260112-001: Bulged sites cleave more
- status: PENDING_TRIAGE
- source: SALVAGED_FROM_R2
- score: 13
- causal-question: Does a DNA bulge raise cleavage?
- discriminating-test: Match on mismatch count
- falsifiers: aligner artifact; open chromatin; one guide
- salvaged-from: C-006
- created: 2026-01-12

## SEED-20260114-002: Coverage drops on high GC
- status: QUEUED
- source: SCANNER
- score: 11
- causal-question: Does high GC make the score underestimate risk?
- discriminating-test: Stratify coverage by GC tertile
- falsifiers: a; b; c
- created: 2026-01-14
`

func TestRunSeeds(t *testing.T) {
	ctx := context.Background()
	f, out, errOut, root := calTestFactory(t)
	st := calSession(t, f, "s1", root)

	if err := runSeeds(ctx, &SeedsOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 100}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errOut.String() != "No seeds recorded for "+root+". Seeds are read from .vibe-science/SERENDIPITY.md each time it is written.\n" {
		t.Errorf("empty: out %q err %q", out.String(), errOut.String())
	}

	if _, err := seeds.Sync(ctx, st, root, "s1", []byte(calSeedsFile), calT0); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runSeeds(ctx, &SeedsOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 100}); err != nil {
		t.Fatal(err)
	}
	want := `ID                 STATUS          SCORE  SESSIONS PENDING  ESCALATED  QUESTION
SEED-20260112-001  PENDING_TRIAGE  13     1                            Does a DNA bulge raise cleavage?
SEED-20260114-002  QUEUED          11     -                            Does high GC make the score underestimate risk?
`
	if out.String() != want {
		t.Errorf("table:\n got %s\nwant %s", out.String(), want)
	}

	out.Reset()
	if err := runSeeds(ctx, &SeedsOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Status: "QUEUED", Limit: 100, JSON: true}); err != nil {
		t.Fatal(err)
	}
	wantJSON := `[
  {
    "seed_id": "SEED-20260114-002",
    "title": "Coverage drops on high GC",
    "status": "QUEUED",
    "source": "SCANNER",
    "score": 11,
    "causal_question": "Does high GC make the score underestimate risk?",
    "discriminating_test": "Stratify coverage by GC tertile",
    "sessions_pending": 1,
    "escalated": false,
    "created_session": "s1",
    "updated_at": "2026-01-14T09:00:00Z"
  }
]
`
	if out.String() != wantJSON {
		t.Errorf("json:\n got %s\nwant %s", out.String(), wantJSON)
	}
	if strings.Contains(out.String(), "REMOVED") {
		t.Error("unexpected removed seed")
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

// TestSeedJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestSeedJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, seedJSON{})
}
