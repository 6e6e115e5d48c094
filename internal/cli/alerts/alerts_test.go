package alerts

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestNewCmdAlertsFlags(t *testing.T) {
	list := []struct {
		argv []string
		want AlertsListOptions
	}{
		{[]string{}, AlertsListOptions{Limit: 50}},
		{[]string{"--all", "--json", "--limit", "5", "--project", "/p"}, AlertsListOptions{All: true, JSON: true, Limit: 5, Project: "/p"}},
	}
	for _, c := range list {
		f, _, _ := initTestFactory(t)
		var got *AlertsListOptions
		cmd := NewCmdAlertsList(f, func(o *AlertsListOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("list %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}

	resolve := []struct {
		argv []string
		want AlertsResolveOptions
		err  string
	}{
		{[]string{"12"}, AlertsResolveOptions{ID: 12}, ""},
		{[]string{"#7", "--note", "rewrote STATE.md", "--json"}, AlertsResolveOptions{ID: 7, Note: "rewrote STATE.md", JSON: true}, ""},
		{[]string{"seven"}, AlertsResolveOptions{}, "alert id \"seven\" is not a number: give the id `vibe alerts list` shows, e.g. `vibe alerts resolve 12`"},
		{[]string{"0"}, AlertsResolveOptions{}, "alert id \"0\" is not a number"},
		{[]string{}, AlertsResolveOptions{}, "accepts 1 arg(s), received 0"},
	}
	for _, c := range resolve {
		f, _, _ := initTestFactory(t)
		var got *AlertsResolveOptions
		cmd := NewCmdAlertsResolve(f, func(o *AlertsResolveOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("resolve %q: err %v, want %q", c.argv, err, c.err)
			}
			if err != nil && strings.Contains(c.err, "not a number") && cli.ExitCode(err) != 2 {
				t.Errorf("resolve %q: exit %d, want 2", c.argv, cli.ExitCode(err))
			}
			continue
		}
		if err != nil {
			t.Fatalf("resolve %q: %v", c.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot, got.Now = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("resolve %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

func seedAlerts(t *testing.T, f *cli.Factory, root string) {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for i, a := range []record.NewAlert{
			{ProjectPath: root, Check: "phase-drift", Level: record.AlertInfo, Message: "STATE.md names an unknown phase.", Fingerprint: "a"},
			{ProjectPath: root, Check: "literature-drought", Level: record.AlertWarn, Message: "No literature search lately.", Fingerprint: "b"},
			{ProjectPath: root, Check: "state-stale", Level: record.AlertHalt, Message: "STATE.md is stale.", Fingerprint: "c"},
			{ProjectPath: "/elsewhere", Check: "state-stale", Level: record.AlertHalt, Message: "Other project.", Fingerprint: "c"},
		} {
			a.At = initT0.Add(time.Duration(i) * time.Minute)
			a.SessionID = "s1"
			if _, _, err := tx.RaiseAlert(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunAlerts(t *testing.T) {
	f, out, errOut := initTestFactory(t)
	root := project.Resolve(t.TempDir()).Root
	clitest.MkVibeDir(t, root)
	ctx := context.Background()

	list := &AlertsListOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 50}
	if err := runAlertsList(ctx, list); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.String() != "no open alerts for this project\n" {
		t.Fatalf("empty: %q %q", out, errOut)
	}
	errOut.Reset()

	seedAlerts(t, f, root)
	if err := runAlertsList(ctx, list); err != nil {
		t.Fatal(err)
	}
	want := "#3  HALT  state-stale  2026-11-22 09:02\n" +
		"    STATE.md is stale.\n" +
		"    writes are denied until it is resolved: fix the cause, then `vibe alerts resolve 3`\n" +
		"\n#2  WARN  literature-drought  2026-11-22 09:01\n" +
		"    No literature search lately.\n" +
		"\n#1  INFO  phase-drift  2026-11-22 09:00\n" +
		"    STATE.md names an unknown phase.\n"
	if out.String() != want {
		t.Fatalf("list:\n%s\nwant:\n%s", out, want)
	}

	out.Reset()
	res := &AlertsResolveOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, ID: 3, Note: "updated STATE.md"}
	if err := runAlertsResolve(ctx, res); err != nil {
		t.Fatal(err)
	}
	if out.String() != "resolved alert #3 (HALT state-stale): user: updated STATE.md\n" {
		t.Fatalf("resolve: %q", out)
	}
	out.Reset()
	err := runAlertsResolve(ctx, res)
	if err == nil || cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "alert 3 is already resolved (user: updated STATE.md): nothing to do") {
		t.Fatalf("again: %v (exit %d)", err, cli.ExitCode(err))
	}
	err = runAlertsResolve(ctx, &AlertsResolveOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, ID: 99})
	if fault.KindOf(err) != fault.NotFound || cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "no alert 99 (see `vibe alerts list --all`)") {
		t.Fatalf("unknown: %v", err)
	}
	if err := runAlertsResolve(ctx, &AlertsResolveOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, ID: 4}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "resolved alert #4 (HALT state-stale) of project /elsewhere: user: resolved\n" {
		t.Fatalf("other project: %q", out)
	}

	out.Reset()
	list.All = true
	if err := runAlertsList(ctx, list); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "#3  HALT  state-stale  2026-11-22 09:02\n    STATE.md is stale.\n    resolved 2026-11-22 09:00 (user: updated STATE.md)\n") ||
		!strings.HasPrefix(out.String(), "#2  WARN") {
		t.Fatalf("list --all:\n%s", out)
	}

	out.Reset()
	list.All, list.JSON = false, true
	if err := runAlertsList(ctx, list); err != nil {
		t.Fatal(err)
	}
	wantJSON := `[
  {
    "id": 2,
    "project": "` + root + `",
    "session": "s1",
    "level": "WARN",
    "check": "literature-drought",
    "message": "No literature search lately.",
    "fingerprint": "b",
    "created_at": "2026-11-22T09:01:00Z",
    "resolved": false,
    "resolved_at": null
  },
  {
    "id": 1,
    "project": "` + root + `",
    "session": "s1",
    "level": "INFO",
    "check": "phase-drift",
    "message": "STATE.md names an unknown phase.",
    "fingerprint": "a",
    "created_at": "2026-11-22T09:00:00Z",
    "resolved": false,
    "resolved_at": null
  }
]
`
	if out.String() != wantJSON {
		t.Fatalf("json:\n%s", out)
	}
}

var initT0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func initTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: initT0})
}

// TestAlertJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestAlertJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, alertJSON{})
}

// TestAlertsLimitAtLeastOne: --limit 0 would list nothing and a negative
// one everything; both are usage errors (exit 2) before anything runs.
func TestAlertsLimitAtLeastOne(t *testing.T) {
	f, _, _ := initTestFactory(t)
	ran := false
	err := clitest.Parse(NewCmdAlertsList(f, func(*AlertsListOptions) error { ran = true; return nil }), "--limit", "0")
	var ue *cli.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--limit must be at least 1, not 0") || ran {
		t.Errorf("err %v (usage error: %v), ran %v", err, errors.As(err, &ue), ran)
	}
}
