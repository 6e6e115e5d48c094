package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

func raise(t *testing.T, s *Store, a record.NewAlert) (record.Alert, bool) {
	t.Helper()
	var out record.Alert
	var added bool
	err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		out, added, err = tx.RaiseAlert(context.Background(), a)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, added
}

func resolve(s *Store, id int64, by, note string, at time.Time) (record.Alert, error) {
	var out record.Alert
	err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		out, err = tx.ResolveAlert(context.Background(), id, by, note, at)
		return err
	})
	return out, err
}

func TestRaiseAlertDedupAndDismissal(t *testing.T) {
	s := openTest(t)
	a := record.NewAlert{ProjectPath: "/p", SessionID: "s1", Check: "state-stale", Level: record.AlertWarn,
		Message: "update STATE.md", Fingerprint: "state-stale:WARN:1", At: t0}
	first, added := raise(t, s, a)
	if !added || first.ID == 0 || first.Level != record.AlertWarn || !first.CreatedAt.Equal(t0) {
		t.Fatalf("first raise: %+v added=%v", first, added)
	}
	if _, added := raise(t, s, a); added {
		t.Fatal("an open fingerprint was raised twice")
	}
	// Another project may hold the same fingerprint.
	other := a
	other.ProjectPath = "/q"
	if _, added := raise(t, s, other); !added {
		t.Fatal("the same fingerprint in another project was refused")
	}
	// Resolved by the observer (condition cleared): may come back.
	if _, err := resolve(s, first.ID, record.ResolvedByObserver, "STATE.md was updated", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	second, added := raise(t, s, a)
	if !added || second.ID == first.ID {
		t.Fatalf("after an observer resolution the alert must be raisable again: %+v %v", second, added)
	}
	// Resolved by a person: the same situation is not raised again.
	if _, err := resolve(s, second.ID, record.ResolvedByUser, "", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, added := raise(t, s, a); added {
		t.Fatal("a fingerprint a person resolved was raised again")
	}
	changed := a
	changed.Fingerprint = "state-stale:WARN:2"
	if _, added := raise(t, s, changed); !added {
		t.Fatal("a new situation (new fingerprint) was refused")
	}

	bad := a
	bad.Level = "warning"
	err := s.Tx(context.Background(), func(tx *Tx) error {
		_, _, err := tx.RaiseAlert(context.Background(), bad)
		return err
	})
	if fault.KindOf(err) != fault.Invalid {
		t.Fatalf("bad level: %v", err)
	}
}

func TestResolveAlert(t *testing.T) {
	s := openTest(t)
	a, _ := raise(t, s, record.NewAlert{ProjectPath: "/p", Check: "c", Level: record.AlertHalt, Message: "m", Fingerprint: "f", At: t0})
	got, err := resolve(s, a.ID, record.ResolvedByUser, "  fixed the dictionary ", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Resolved || got.Resolution != "user: fixed the dictionary" || !got.ResolvedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("resolved: %+v", got)
	}
	stored, err := s.Alert(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.Resolved || stored.Resolution != "user: fixed the dictionary" || stored.ResolvedAt == nil {
		t.Fatalf("stored: %+v", stored)
	}
	_, err = resolve(s, a.ID, record.ResolvedByUser, "again", t0)
	if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "already resolved (user: fixed the dictionary)") {
		t.Fatalf("second resolve: %v", err)
	}
	_, err = resolve(s, 999, record.ResolvedByUser, "", t0)
	if fault.KindOf(err) != fault.NotFound || !strings.Contains(err.Error(), "no alert 999") {
		t.Fatalf("unknown id: %v", err)
	}
	_, err = resolve(s, a.ID, "someone", "", t0)
	if fault.KindOf(err) != fault.Invalid {
		t.Fatalf("bad resolver: %v", err)
	}
	if _, err := s.Alert(context.Background(), 999); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("Alert(999): %v", err)
	}
	b, _ := raise(t, s, record.NewAlert{ProjectPath: "/p", Check: "c", Level: record.AlertWarn, Message: "m", Fingerprint: "g", At: t0})
	got, err = resolve(s, b.ID, record.ResolvedByObserver, "", t0)
	if err != nil || got.Resolution != "observer: resolved" {
		t.Fatalf("empty note: %+v %v", got, err)
	}
}

func TestAlertsOrderMostSevereFirst(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	add := func(level, fp string, at time.Time) record.Alert {
		a, ok := raise(t, s, record.NewAlert{ProjectPath: "/p", Check: "c", Level: level, Message: fp, Fingerprint: fp, At: at})
		if !ok {
			t.Fatalf("not raised: %s", fp)
		}
		return a
	}
	add(record.AlertInfo, "info-new", t0.Add(5*time.Minute))
	add(record.AlertWarn, "warn-old", t0)
	add(record.AlertHalt, "halt-old", t0.Add(time.Minute))
	add(record.AlertWarn, "warn-new", t0.Add(3*time.Minute))
	gone := add(record.AlertHalt, "halt-resolved", t0.Add(9*time.Minute))
	add(record.AlertHalt, "halt-new", t0.Add(4*time.Minute))
	if _, err := resolve(s, gone.ID, record.ResolvedByUser, "done", t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	raise(t, s, record.NewAlert{ProjectPath: "/other", Check: "c", Level: record.AlertHalt, Message: "x", Fingerprint: "x", At: t0})

	messages := func(as []record.Alert) string {
		var m []string
		for _, a := range as {
			m = append(m, a.Message)
		}
		return strings.Join(m, ",")
	}
	cases := []struct {
		name string
		f    record.AlertFilter
		want string
	}{
		{"open", record.AlertFilter{Project: "/p"}, "halt-new,halt-old,warn-new,warn-old,info-new"},
		{"all", record.AlertFilter{Project: "/p", IncludeResolved: true}, "halt-new,halt-old,warn-new,warn-old,info-new,halt-resolved"},
		{"level", record.AlertFilter{Project: "/p", Level: record.AlertWarn}, "warn-new,warn-old"},
		{"limit", record.AlertFilter{Project: "/p", Limit: 2}, "halt-new,halt-old"},
		{"every project", record.AlertFilter{Level: record.AlertHalt}, "halt-new,halt-old,x"},
	}
	for _, c := range cases {
		got, err := s.Alerts(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if m := messages(got); m != c.want {
			t.Errorf("%s: %s, want %s", c.name, m, c.want)
		}
	}
	halts, err := s.OpenHalts(ctx, "/p")
	if err != nil || messages(halts) != "halt-new,halt-old" {
		t.Fatalf("OpenHalts: %s %v", messages(halts), err)
	}
	var open []record.Alert
	s.Tx(ctx, func(tx *Tx) error { open, err = tx.OpenAlerts(ctx, "/p"); return err })
	if messages(open) != "halt-new,halt-old,warn-new,warn-old,info-new" {
		t.Fatalf("Tx.OpenAlerts: %s", messages(open))
	}
	counts, err := s.OpenAlertCounts(ctx, "/p")
	if err != nil || counts != (record.AlertCounts{Halt: 2, Warn: 2, Info: 1}) || counts.Total() != 5 {
		t.Fatalf("counts %+v %v", counts, err)
	}
	none, err := s.OpenAlertCounts(ctx, "/nothing")
	if err != nil || none.Total() != 0 {
		t.Fatalf("counts of an empty project %+v %v", none, err)
	}
}

func addSpineRows(t *testing.T, s *Store, project, session string, types []string, start time.Time, step time.Duration) {
	t.Helper()
	ctx := context.Background()
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: session, ProjectPath: project, At: start}); err != nil {
			return err
		}
		for i, typ := range types {
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: session, ProjectPath: project, At: start.Add(time.Duration(i) * step),
				ActionType: typ, ToolName: "Write", ToolUseID: fmt.Sprintf("%s-%d", session, i), InputSummary: fmt.Sprintf("step %d", i)}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestObserverReads(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	addSpineRows(t, s, "/p", "s1", []string{"DATA_LOAD", "LITERATURE", "MODEL_TRAIN", "EVALUATION"}, t0, time.Minute)
	addSpineRows(t, s, "/q", "s2", []string{"OTHER"}, t0.Add(time.Hour), time.Minute)

	got, err := s.RecentActions(ctx, "/p", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []record.ActionStamp{{ActionType: "EVALUATION", At: t0.Add(3 * time.Minute)}, {ActionType: "MODEL_TRAIN", At: t0.Add(2 * time.Minute)}, {ActionType: "LITERATURE", At: t0.Add(time.Minute)}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("RecentActions %v, want %v", got, want)
	}

	for _, c := range []struct {
		after time.Time
		want  time.Time
		ok    bool
	}{
		{t0.Add(-time.Hour), t0, true},
		{t0, t0.Add(time.Minute), true},
		{t0.Add(90 * time.Second), t0.Add(2 * time.Minute), true},
		{t0.Add(3 * time.Minute), time.Time{}, false},
	} {
		at, ok, err := s.FirstActionAfter(ctx, "/p", c.after)
		if err != nil || ok != c.ok || !at.Equal(c.want) {
			t.Errorf("FirstActionAfter(%v) = %v %v %v, want %v %v", c.after, at, ok, err, c.want, c.ok)
		}
	}

	err = s.Tx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO literature_searches (session_id, project_path, query, sources, search_layer, ts)
VALUES ('s1', '/p', 'q', '[]', 'WEBSEARCH', ?)`, t0.Add(time.Minute).UnixMilli())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Tx(ctx, func(tx *Tx) error {
		_, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: "s1", ProjectPath: "/p", Query: "weather",
			Layer: "WEBSEARCH", GateContext: record.LiteratureUncounted, At: t0.Add(5 * time.Minute)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		project string
		since   time.Time
		want    bool
	}{{"/p", t0, true}, {"/p", t0.Add(time.Minute), true}, {"/p", t0.Add(2 * time.Minute), false}, {"/q", t0, false}} {
		got, err := s.LiteratureSince(ctx, c.project, c.since)
		if err != nil || got != c.want {
			t.Errorf("LiteratureSince(%s, %v) = %v %v", c.project, c.since, got, err)
		}
	}

	if v, err := s.ObserverCache(ctx, "k"); err != nil || v != "" {
		t.Fatalf("empty cache %q %v", v, err)
	}
	for _, v := range []string{"one", "two"} {
		if err := s.Tx(ctx, func(tx *Tx) error { return tx.SetObserverCache(ctx, "k", v) }); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ObserverCache(ctx, "k"); err != nil || got != v {
			t.Fatalf("cache %q %v, want %q", got, err, v)
		}
	}
}

// The per-call queries must walk an index, never sort the whole spine.
func TestObserverQueryPlans(t *testing.T) {
	s := openTest(t)
	for _, c := range []struct {
		sql  string
		want string
	}{
		{`SELECT action_type, ts FROM spine_entries WHERE project_path = '/p' ORDER BY ts DESC, id DESC LIMIT 30`, "idx_spine_project"},
		{`SELECT min(ts) FROM spine_entries WHERE project_path = '/p' AND ts > 5`, "idx_spine_project"},
		{`SELECT 1 FROM observer_alerts WHERE project_path = '/p' AND resolved = 0 AND level = 'HALT'`, "idx_observer"},
		{`SELECT id FROM spine_entries WHERE id > 5 AND +project_path = '/p' ORDER BY id LIMIT 5000`, "INTEGER PRIMARY KEY (rowid>?)"},
	} {
		rows, err := s.DB().Query("EXPLAIN QUERY PLAN " + c.sql)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, c.want) || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("%s\nplan: %s (want %s, no temp b-tree)", c.sql, p, c.want)
		}
	}
}
