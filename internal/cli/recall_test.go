package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/record"
)

var memT0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// memTestFactory is a Factory over buffers with its own VIBE_HOME, a fixed
// clock, and a project folder for --project.
func memTestFactory(t *testing.T) (*Factory, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	home := t.TempDir()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkVibeDir(t, root)
	var out, errOut bytes.Buffer
	f := &Factory{
		IO:  IO{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut},
		Now: func() time.Time { return memT0 },
		Getenv: func(k string) string {
			if k == "VIBE_HOME" {
				return home
			}
			return ""
		},
	}
	t.Cleanup(f.Close)
	return f, &out, &errOut, root
}

// memSeed adds memories to project root and returns their ids.
func memSeed(t *testing.T, f *Factory, root string, ms ...record.NewMemory) []int64 {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, m := range ms {
		m.ProjectPath = root
		id, _, err := recall.AddMemory(ctx, st, nil, m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
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
		got.IO, got.Factory = IO{}, nil
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
	// JSON: exactly the documented keys, conflict when set.
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Factory: f, Query: "DQ2 guide split", Project: root, Limit: 5, JSON: true}); err != nil {
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
		want := map[string]bool{"id": true, "ref": true, "kind": true, "text": true, "score": true, "sources": true, "conflict": true}
		if len(keys) != len(want) {
			t.Errorf("row %d keys %v, want %v", i, keys, want)
		}
		for _, k := range keys {
			if !want[k] {
				t.Errorf("row %d has key %q", i, k)
			}
		}
	}
	// Equal BM25: the newer memory first, each pointing at the other.
	first, second := rows[0], rows[1]
	if first["id"] != float64(ids[1]) || first["ref"] != "" || first["conflict"] != float64(ids[0]) ||
		!reflect.DeepEqual(first["sources"], []any{"fts"}) || first["kind"] != "gate_failure" {
		t.Errorf("first row %v", first)
	}
	if second["id"] != float64(ids[0]) || second["ref"] != "ledger#C-12" || second["conflict"] != float64(ids[1]) {
		t.Errorf("second row %v", second)
	}
	if errOut.String() != "recall: no vector search configured: lexical only\n" {
		t.Errorf("stderr %q", errOut)
	}

	// Text: every hit in full.
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Factory: f, Query: "mycoplasma", Project: root, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	want := "[M-3] note 2026-10-29  score 0.0164  fts\nMycoplasma test passed on 2 May\n"
	if out.String() != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Factory: f, Query: "sourdough", Project: root, Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errOut.String() != "recall: no vector search configured: lexical only\nno memory of this project matches \"sourdough\"\n" {
		t.Errorf("no hits: stdout %q stderr %q", out, errOut)
	}
	out.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Factory: f, Query: "sourdough", Project: root, Limit: 5, JSON: true}); err != nil || out.String() != "[]\n" {
		t.Errorf("no hits JSON: %q %v", out, err)
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
