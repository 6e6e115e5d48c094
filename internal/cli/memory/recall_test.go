package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var memT0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// memSeed adds memories to project root and returns their ids.
func memSeed(t *testing.T, f *cli.Factory, root string, ms ...record.NewMemory) []int64 {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, m := range ms {
		m.ProjectPath = root
		a, err := recall.AddMemory(ctx, st, nil, m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	return ids
}

func TestNewCmdRecallFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want RecallOptions
		err  string
	}{
		{[]string{"guide", "split"}, RecallOptions{Query: "guide split", Limit: recall.DefaultLimit}, ""},
		{[]string{"--project", "/p", "--limit", "3", "--json", "why DQ2?"}, RecallOptions{Query: "why DQ2?", Project: "/p", Limit: 3, JSON: true}, ""},
		{[]string{}, RecallOptions{}, "requires at least 1 arg(s), only received 0"},
		{[]string{"--limit", "0", "x"}, RecallOptions{}, "--limit must be at least 1, not 0"},
		{[]string{"--kind", "pattern", "--kind", "failure", "--since", "7d", "--session", "s-1", "x"},
			RecallOptions{Query: "x", Limit: recall.DefaultLimit, Kinds: []string{"pattern", "failure"}, Since: "7d", Session: "s-1"}, ""},
		{[]string{"--all", "--since", "2026-11-01", "x"}, RecallOptions{Query: "x", Limit: recall.DefaultLimit, All: true, Since: "2026-11-01"}, ""},
		{[]string{"--kind", "gossip", "x"}, RecallOptions{}, `--kind must be one of action, claim_event, decision, failure, gate_failure, hypothesis, insight, narrative, note, open_thread, pattern, seed, not "gossip"`},
		{[]string{"--since", "last tuesday", "x"}, RecallOptions{}, `--since "last tuesday": want a duration such as 7d, 2w or 36h, or a date such as 2026-11-01`},
		{[]string{"--all", "--project", "/p", "x"}, RecallOptions{}, "--all searches every project; leave out --project"},
	}
	for _, tt := range tests {
		f, _, _, _ := memTestFactory(t)
		var got *RecallOptions
		cmd := NewCmdRecall(f, func(o *RecallOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: err %v, want %q", tt.argv, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot, got.Now, got.Paths = cli.IO{}, nil, nil, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
}

func TestRunRecall(t *testing.T) {
	ctx := context.Background()
	f, out, errOut, root := memTestFactory(t)
	ids := memSeed(t, f, root,
		record.NewMemory{Kind: record.KindGateFailure, Text: "Gate DQ2 passed for claim C-12 on the guide split", Ref: "ledger#C-12", At: memT0.Add(-48 * time.Hour)},
		record.NewMemory{Kind: record.KindGateFailure, Text: "Gate DQ2 failed for claim C-12 on the guide split", At: memT0.Add(-24 * time.Hour)},
		record.NewMemory{Kind: record.KindNote, Text: "Mycoplasma test passed on 2 May", At: memT0.Add(-72 * time.Hour)},
	)
	// JSON: exactly the documented keys, superseded_by and conflicts when set.
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "DQ2 guide split", Project: root, Limit: 5, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}
	for i, r := range rows {
		var keys []string
		for k := range r {
			keys = append(keys, k)
		}
		want := map[string]bool{"id": true, "ref": true, "kind": true, "text": true, "score": true, "sources": true,
			"created_at": true, "project": true, "conflicts": true}
		if i == 1 {
			want["superseded_by"] = true
		}
		if len(keys) != len(want) {
			t.Errorf("row %d keys %v, want %v", i, keys, want)
		}
		for _, k := range keys {
			if !want[k] {
				t.Errorf("row %d has key %q", i, k)
			}
		}
	}
	// The newer outcome first; the older, superseded, points to it; each
	// lists the other as a conflict.
	first, second := rows[0], rows[1]
	if first["id"] != float64(ids[1]) || first["ref"] != "" || !reflect.DeepEqual(first["conflicts"], []any{float64(ids[0])}) ||
		!reflect.DeepEqual(first["sources"], []any{"fts"}) || first["kind"] != "gate_failure" || first["project"] != root ||
		first["created_at"] != memT0.Add(-24*time.Hour).UTC().Format(time.RFC3339) {
		t.Errorf("first row %v", first)
	}
	if second["id"] != float64(ids[0]) || second["ref"] != "ledger#C-12" || !reflect.DeepEqual(second["conflicts"], []any{float64(ids[1])}) ||
		second["superseded_by"] != float64(ids[1]) {
		t.Errorf("second row %v", second)
	}
	if errOut.String() != "recall: no vector search configured: lexical only\n" {
		t.Errorf("stderr %q", errOut)
	}

	// Text: every hit in full.
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "mycoplasma", Project: root, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	want := "[M-3] note 2026-10-29  score 0.0164  fts\nMycoplasma test passed on 2 May\n"
	if out.String() != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "sourdough", Project: root, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errOut.String() != "recall: no vector search configured: lexical only\nno memory of this project matches \"sourdough\"\n" {
		t.Errorf("no hits: stdout %q stderr %q", out, errOut)
	}
	out.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "sourdough", Project: root, Limit: 5, JSON: true}); err != nil || out.String() != "[]\n" {
		t.Errorf("no hits JSON: %q %v", out, err)
	}

	// Text: the newer outcome first; the older one says which supersedes it.
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "DQ2 guide split", Project: root, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("[M-%d] gate_failure 2026-10-31  score 0.0164  fts  contradicts [M-%d]\n"+
		"Gate DQ2 failed for claim C-12 on the guide split\n\n"+
		"[M-%d] gate_failure 2026-10-30  score 0.0161  fts  ref ledger#C-12  superseded by [M-%d]  contradicts [M-%d]\n"+
		"Gate DQ2 passed for claim C-12 on the guide split\n", ids[1], ids[0], ids[0], ids[1], ids[1])
	if out.String() != want {
		t.Errorf("superseded text:\n%s\nwant\n%s", out, want)
	}
	// Filters: a kind with no match says which filters narrowed the search.
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "DQ2", Project: root, Limit: 5,
		Kinds: []string{"pattern"}, Since: "7d", Session: "s9"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errOut.String() != "recall: no vector search configured: lexical only\n"+
		"no memory of this project matches \"DQ2\" (kind pattern, since 7d, session s9)\n" {
		t.Errorf("filtered, no hits: stdout %q stderr %q", out, errOut)
	}
	// --since keeps the newer outcome only (memT0 is "now").
	out.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "DQ2", Project: root, Limit: 5, Since: "36h", JSON: true}); err != nil {
		t.Fatal(err)
	}
	var since []recallJSON
	if err := json.Unmarshal(out.Bytes(), &since); err != nil || len(since) != 1 || since[0].ID != ids[1] {
		t.Errorf("--since 36h: %s %v, want M-%d only", out, err, ids[1])
	}
}

func TestParseMemoryID(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"12", 12, true}, {"M-12", 12, true}, {"m-7", 7, true}, {" M-3 ", 3, true},
		{"0", 0, false}, {"-4", 0, false}, {"M-", 0, false}, {"12a", 0, false}, {"C-12", 0, false},
	}
	for _, tt := range tests {
		got, err := parseMemoryID(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseMemoryID(%q) = %d, %v", tt.in, got, err)
		}
	}
}

// TestRecallChecksHookMemories: with no worker to check what the hooks
// wrote, recall links those memories before it answers.
func TestRecallChecksHookMemories(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := memTestFactory(t)
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i, text := range []string{"Minimum read threshold is 1% for off-target calls", "Minimum read threshold is 0.1% for off-target calls"} {
		err := st.Tx(ctx, func(tx *store.Tx) error {
			id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: root, Kind: record.KindDecision, Text: text, Source: "hook",
				At: memT0.Add(time.Duration(i-2) * time.Hour)})
			ids = append(ids, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "read threshold", Project: root, Limit: 5, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var rows []recallJSON
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != ids[1] || rows[1].SupersededBy == nil || *rows[1].SupersededBy != ids[1] {
		t.Errorf("rows %s, want M-%d first and M-%d superseded by it", out, ids[1], ids[0])
	}
}
