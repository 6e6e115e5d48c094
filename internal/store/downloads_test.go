package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestDownloads(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	add := func(d record.Download) error {
		return s.Tx(ctx, func(tx *Tx) error {
			_, err := tx.AddDownload(ctx, d)
			return err
		})
	}
	if err := add(record.Download{ProjectPath: "/p", SessionID: "s1", URL: "https://example.org/changeseq.csv?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		Path: "RQ-001/02-data/raw/changeseq.csv", SHA256: "ab12", Size: 120, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := add(record.Download{ProjectPath: "/p", URL: "https://example.org/g.csv", Path: "RQ-001/02-data/raw/g.csv", Size: -1, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := add(record.Download{ProjectPath: "/q", URL: "https://example.org/x", Path: "x", At: t0}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Downloads(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d downloads", len(got))
	}
	first := got[0]
	if first.Path != "RQ-001/02-data/raw/changeseq.csv" || first.SHA256 != "ab12" || first.Size != 120 || !first.At.Equal(t0) || first.SessionID != "s1" {
		t.Errorf("first = %+v", first)
	}
	if first.URL == "https://example.org/changeseq.csv?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789" {
		t.Errorf("the token in the URL was kept: %s", first.URL)
	}
	if got[1].Size != -1 || got[1].Path != "RQ-001/02-data/raw/g.csv" {
		t.Errorf("second = %+v", got[1])
	}
	err = add(record.Download{ProjectPath: "/p", URL: "", Path: "a", At: t0})
	if fault.KindOf(err) != fault.Invalid {
		t.Errorf("a download without a URL: %v", err)
	}
}

func TestActionTextsSince(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: t0}); err != nil {
			return err
		}
		for i, sum := range []string{"read RQ-001/02-data/raw/guideseq.csv", "$ python 03-analysis/train.py", "$ ls", "read notes.md"} {
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "s1", ProjectPath: "/p", At: t0.Add(time.Duration(i) * time.Minute),
				ActionType: "X", ToolName: "Bash", InputSummary: sum}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	texts, err := s.ActionTextsSince(ctx, "/p", t0, 2)
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, a := range texts {
		sums = append(sums, a.Summary)
	}
	if want := []string{"$ ls", "read notes.md"}; !reflect.DeepEqual(sums, want) {
		t.Errorf("newest two after t0, oldest first: %q, want %q", sums, want)
	}
	if n, err := s.ActionsSince(ctx, "/p", t0); err != nil || n != 3 {
		t.Errorf("ActionsSince = %d, %v; want 3", n, err)
	}
	if n, _ := s.ActionsSince(ctx, "/q", t0); n != 0 {
		t.Errorf("another project: %d", n)
	}
}
