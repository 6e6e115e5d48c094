package session

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var sessT0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

func TestNewCmdSessionsFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	list := []struct {
		argv []string
		want SessionsListOptions
		err  string
	}{
		{nil, SessionsListOptions{Limit: 20}, ""},
		{[]string{"--all", "--limit", "5", "--json", "--project", "/p"}, SessionsListOptions{All: true, Limit: 5, JSON: true, Project: "/p"}, ""},
		{[]string{"extra"}, SessionsListOptions{}, `unknown command "extra"`},
		{[]string{"--limit", "many"}, SessionsListOptions{}, `invalid argument "many" for "--limit"`},
		{[]string{"--limit", "0"}, SessionsListOptions{}, "--limit must be at least 1, not 0"},
		{[]string{"--limit", "-3"}, SessionsListOptions{}, "--limit must be at least 1, not -3"},
	}
	for _, c := range list {
		var got *SessionsListOptions
		err := clitest.Parse(NewCmdSessionsList(f, func(o *SessionsListOptions) error { got = o; return nil }), c.argv...)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("list %q: err %v, want %q", c.argv, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("list %q: %v", c.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("list %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}

	show := []struct {
		argv []string
		want SessionsShowOptions
		err  string
	}{
		{[]string{"abc123"}, SessionsShowOptions{ID: "abc123"}, ""},
		{[]string{"abc", "--json"}, SessionsShowOptions{ID: "abc", JSON: true}, ""},
		{nil, SessionsShowOptions{}, "accepts 1 arg(s), received 0"},
	}
	for _, c := range show {
		var got *SessionsShowOptions
		err := clitest.Parse(NewCmdSessionsShow(f, func(o *SessionsShowOptions) error { got = o; return nil }), c.argv...)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("show %q: err %v, want %q", c.argv, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("show %q: %v", c.argv, err)
		}
		got.IO, got.Store = cli.IO{}, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("show %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

func TestNewCmdSpineFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	tests := []struct {
		argv []string
		want SpineOptions
		err  string
	}{
		{nil, SpineOptions{Limit: 30}, ""},
		{[]string{"--all", "--session", "s1", "--action", "MODEL_TRAIN", "--tool", "Bash", "--since", "2d", "--limit", "3", "--json", "--project", "/p"},
			SpineOptions{All: true, Session: "s1", Action: "MODEL_TRAIN", Tool: "Bash", Since: 48 * time.Hour, Limit: 3, JSON: true, Project: "/p"}, ""},
		{[]string{"--since", "90s"}, SpineOptions{Since: 90 * time.Second, Limit: 30}, ""},
		{[]string{"--since", "soon"}, SpineOptions{}, "want a duration such as 90s, 30m, 24h, 7d or 2w"},
		{[]string{"x"}, SpineOptions{}, `unknown command "x"`},
		{[]string{"--limit", "0"}, SpineOptions{}, "--limit must be at least 1, not 0"},
	}
	for _, c := range tests {
		var got *SpineOptions
		err := clitest.Parse(NewCmdSpine(f, func(o *SpineOptions) error { got = o; return nil }), c.argv...)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.argv, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot, got.Now = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

// seedSessions records two sessions of root (the first ended, with a
// narrative and counters) and one of another project, with spine entries.
func seedSessions(t *testing.T, f *cli.Factory, root string) {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ended := sessT0.Add(time.Hour)
	dur := int64(1500)
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for _, s := range []record.SessionSeen{
			{ID: "aaaa1111-first", ProjectPath: root, At: sessT0, Start: true},
			{ID: "bbbb2222-second", ProjectPath: root, At: sessT0.Add(2 * time.Hour), Start: true},
			{ID: "cccc3333-other", ProjectPath: "/elsewhere", At: sessT0.Add(3 * time.Hour), Start: true},
		} {
			if err := tx.UpsertSession(ctx, s); err != nil {
				return err
			}
		}
		for _, e := range []record.SpineEntry{
			{SessionID: "aaaa1111-first", ProjectPath: root, At: sessT0.Add(time.Minute), ActionType: "DATA_LOAD", ToolName: "Read", ToolUseID: "t1", InputSummary: "data/raw.csv"},
			{SessionID: "aaaa1111-first", ProjectPath: root, At: sessT0.Add(2 * time.Minute), ActionType: "MODEL_TRAIN", ToolName: "Bash", ToolUseID: "t2", InputSummary: "python train.py", DurationMS: &dur},
			{SessionID: "bbbb2222-second", ProjectPath: root, At: sessT0.Add(2*time.Hour + time.Minute), ActionType: "CODE_EDIT", ToolName: "Edit", ToolUseID: "t3", InputSummary: "train.py"},
			{SessionID: "cccc3333-other", ProjectPath: "/elsewhere", At: sessT0.Add(3*time.Hour + time.Minute), ActionType: "CODE_EDIT", ToolName: "Edit", ToolUseID: "t4", InputSummary: "other.py"},
		} {
			if _, err := tx.AddSpine(ctx, e, nil); err != nil {
				return err
			}
		}
		return tx.SaveSummary(ctx, record.SessionSummary{ID: "aaaa1111-first", Narrative: "Loaded the raw data and trained a first model.",
			Counts: record.SessionCounts{TotalActions: 2, ClaimsCreated: 1, GatesPassed: 3, GatesFailed: 1}, EndedAt: &ended, EndReason: "logout"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunSessionsList(t *testing.T) {
	ctx := context.Background()
	f, out, errOut := clitest.New(t, clitest.Options{Now: sessT0})
	root := clitest.Project(t)
	o := &SessionsListOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 20}
	if err := runSessionsList(ctx, o); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errOut.String() != "no sessions recorded for this project yet\n" {
		t.Fatalf("empty: stdout %q, stderr %q", out, errOut)
	}

	seedSessions(t, f, root)
	errOut.Reset()
	if err := runSessionsList(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := "SESSION\tSTARTED\tENDED\tACTIONS\tCLAIMS +/x\tGATES ok/fail\n" +
		"bbbb2222\t2026-04-01 11:00\topen\t0\t0/0\t0/0\n" +
		"aaaa1111\t2026-04-01 09:00\t2026-04-01 10:00\t2\t1/0\t3/1\n"
	if out.String() != want || errOut.String() != "" {
		t.Errorf("list:\n%s\nwant:\n%s\nstderr %q", out, want, errOut)
	}

	out.Reset()
	o.All, o.Limit, o.JSON = true, 1, true
	if err := runSessionsList(ctx, o); err != nil {
		t.Fatal(err)
	}
	wantJSON := `[
  {
    "id": "cccc3333-other",
    "project": "/elsewhere",
    "started_at": "2026-04-01T12:00:00Z",
    "ended_at": null,
    "starts": 1,
    "actions": 0,
    "claims_created": 0,
    "claims_killed": 0,
    "gates_passed": 0,
    "gates_failed": 0
  }
]
`
	if out.String() != wantJSON {
		t.Errorf("--all --limit 1 --json:\n%s\nwant:\n%s", out, wantJSON)
	}
}

func TestRunSessionsShow(t *testing.T) {
	ctx := context.Background()
	f, out, _ := clitest.New(t, clitest.Options{Now: sessT0})
	root := clitest.Project(t)
	seedSessions(t, f, root)
	o := &SessionsShowOptions{IO: f.IO, Store: f.Store, ID: "aaaa"}
	if err := runSessionsShow(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := "session  aaaa1111-first\nproject  " + root + "\nstarted  2026-04-01 09:00 (started 1 time(s))\n" +
		"ended    2026-04-01 10:00 (logout)\n\nLoaded the raw data and trained a first model.\n\nrecent actions:\n" +
		"ID\tTIME\tSESSION\tACTION\tTOOL\tINPUT\n" +
		"2\t2026-04-01 09:02\taaaa1111\tMODEL_TRAIN\tBash\tpython train.py\n" +
		"1\t2026-04-01 09:01\taaaa1111\tDATA_LOAD\tRead\tdata/raw.csv\n"
	if out.String() != want {
		t.Errorf("show:\n%s\nwant:\n%s", out, want)
	}

	out.Reset()
	o.ID, o.JSON = "bbbb2222-second", true
	if err := runSessionsShow(ctx, o); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "recent_actions": [
    {
      "id": 3,
      "session": "bbbb2222-second",
      "recorded_at": "2026-04-01T11:01:00Z",
      "action": "CODE_EDIT",
      "tool": "Edit",
      "input": "train.py",
      "output": "",
      "input_sha256": "",
      "output_sha256": "",
      "duration_ms": null
    }
  ],
  "session": {
    "id": "bbbb2222-second",
    "project": "` + root + `",
    "started_at": "2026-04-01T11:00:00Z",
    "ended_at": null,
    "starts": 1,
    "actions": 0,
    "claims_created": 0,
    "claims_killed": 0,
    "gates_passed": 0,
    "gates_failed": 0
  }
}
`
	if out.String() != wantJSON {
		t.Errorf("show --json:\n%s\nwant:\n%s", out, wantJSON)
	}

	o.ID, o.JSON = "zzzz", false
	if err := runSessionsShow(ctx, o); err == nil || cli.ExitCode(err) != 1 {
		t.Errorf("unknown id: err %v (exit %d), want a not-found error", err, cli.ExitCode(err))
	}
}

func TestRunSpine(t *testing.T) {
	ctx := context.Background()
	f, out, _ := clitest.New(t, clitest.Options{Now: sessT0.Add(3 * time.Hour)})
	root := clitest.Project(t)
	seedSessions(t, f, root)
	o := &SpineOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, Limit: 30}
	if err := runSpine(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := "ID\tTIME\tSESSION\tACTION\tTOOL\tINPUT\n" +
		"3\t2026-04-01 11:01\tbbbb2222\tCODE_EDIT\tEdit\ttrain.py\n" +
		"2\t2026-04-01 09:02\taaaa1111\tMODEL_TRAIN\tBash\tpython train.py\n" +
		"1\t2026-04-01 09:01\taaaa1111\tDATA_LOAD\tRead\tdata/raw.csv\n"
	if out.String() != want {
		t.Errorf("spine:\n%s\nwant:\n%s", out, want)
	}

	// --since 2h, from 12:00: only the second session's entry; --tool and
	// --action filter; --all reaches the other project.
	for _, c := range []struct {
		name string
		set  func(o *SpineOptions)
		want string
	}{
		{"since", func(o *SpineOptions) { o.Since = 2 * time.Hour }, "3\t2026-04-01 11:01\tbbbb2222\tCODE_EDIT\tEdit\ttrain.py\n"},
		{"tool", func(o *SpineOptions) { o.Tool = "Bash" }, "2\t2026-04-01 09:02\taaaa1111\tMODEL_TRAIN\tBash\tpython train.py\n"},
		{"action", func(o *SpineOptions) { o.Action = "DATA_LOAD" }, "1\t2026-04-01 09:01\taaaa1111\tDATA_LOAD\tRead\tdata/raw.csv\n"},
		{"all, limit 1", func(o *SpineOptions) { o.All, o.Limit = true, 1 }, "4\t2026-04-01 12:01\tcccc3333\tCODE_EDIT\tEdit\tother.py\n"},
		{"session prefix", func(o *SpineOptions) { o.Session, o.Limit = "aaaa", 1 }, "2\t2026-04-01 09:02\taaaa1111\tMODEL_TRAIN\tBash\tpython train.py\n"},
	} {
		out.Reset()
		o := &SpineOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, Limit: 30}
		c.set(o)
		if err := runSpine(ctx, o); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.TrimPrefix(out.String(), "ID\tTIME\tSESSION\tACTION\tTOOL\tINPUT\n"); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}

	out.Reset()
	o = &SpineOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, Tool: "Bash", Limit: 30, JSON: true}
	if err := runSpine(ctx, o); err != nil {
		t.Fatal(err)
	}
	wantJSON := `[
  {
    "id": 2,
    "session": "aaaa1111-first",
    "recorded_at": "2026-04-01T09:02:00Z",
    "action": "MODEL_TRAIN",
    "tool": "Bash",
    "input": "python train.py",
    "output": "",
    "input_sha256": "",
    "output_sha256": "",
    "duration_ms": 1500
  }
]
`
	if out.String() != wantJSON {
		t.Errorf("--json:\n%s\nwant:\n%s", out, wantJSON)
	}
}

// TestRunSpineEmpty: no entry prints no bare header but says why, on
// stderr: nothing recorded yet, or nothing matching the filters.
func TestRunSpineEmpty(t *testing.T) {
	ctx := context.Background()
	f, out, errOut := clitest.New(t, clitest.Options{Now: sessT0})
	root := clitest.Project(t)
	o := &SpineOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, Limit: 30}
	if err := runSpine(ctx, o); err != nil {
		t.Fatal(err)
	}
	if want := "no tool call recorded for " + root + " yet: the hooks record each one a Claude Code session makes there\n"; out.String() != "" || errOut.String() != want {
		t.Errorf("stdout %q stderr %q, want only %q", out, errOut, want)
	}
	errOut.Reset()
	o.Tool = "Bash"
	if err := runSpine(ctx, o); err != nil {
		t.Fatal(err)
	}
	if want := "no spine entry of " + root + " matches these filters\n"; out.String() != "" || errOut.String() != want {
		t.Errorf("filtered: stdout %q stderr %q, want only %q", out, errOut, want)
	}
}

func TestSessionJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, sessionJSON{}, spineEntryJSON{})
}
