package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestBriefVersions(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, ok, err := s.CurrentBrief(ctx, "/p"); ok || err != nil {
		t.Fatalf("no brief yet: ok=%v err=%v", ok, err)
	}
	add := func(b record.BriefVersion) int64 {
		t.Helper()
		var id int64
		if err := s.Tx(ctx, func(tx *Tx) error {
			var err error
			id, err = tx.AddBrief(ctx, b)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	v1 := record.BriefVersion{ProjectPath: "/p", SourcePath: "docs/brief.md", Hash: "h1", Title: "First",
		Content:     []byte(`{"title":"First","constraints":[{"id":"BC-001","rationale":"api_key=abc123 \"quoted\""}],"n":1.50}`),
		Constraints: 1, IngestedAt: t0}
	// Same second, same hash: still a new version, and the newest by id wins.
	v2 := record.BriefVersion{ProjectPath: "/p", SourcePath: "docs/brief.md", Hash: "h1", Title: "First",
		Content: []byte(`{"title":"First"}`), Anchors: 2, IngestedAt: t0}
	v3 := record.BriefVersion{ProjectPath: "/p", SourcePath: "docs/brief.md", Hash: "h3", Title: "Third",
		Content: []byte(`{"title":"Third"}`), Constraints: 3, Decisions: 2, Anchors: 1, IngestedAt: t0.Add(time.Hour)}
	elsewhere := record.BriefVersion{ProjectPath: "/q", SourcePath: "b.json", Hash: "hq", Title: "Q", Content: []byte(`{}`), IngestedAt: t0}
	id1, id2 := add(v1), add(v2)
	add(elsewhere)
	id3 := add(v3)
	if !(id1 < id2 && id2 < id3) {
		t.Fatalf("ids %d %d %d", id1, id2, id3)
	}

	cur, ok, err := s.CurrentBrief(ctx, "/p")
	if err != nil || !ok {
		t.Fatalf("current: %v %v", ok, err)
	}
	want3 := v3
	want3.ID = id3
	if !reflect.DeepEqual(cur, want3) {
		t.Errorf("current %+v\nwant %+v", cur, want3)
	}

	hist, err := s.BriefHistory(ctx, "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hist {
		ids = append(ids, h.ID)
		if h.Content != nil {
			t.Errorf("history row %d carries content", h.ID)
		}
	}
	if !reflect.DeepEqual(ids, []int64{id3, id2, id1}) || hist[1].Anchors != 2 || hist[0].Decisions != 2 {
		t.Errorf("history %+v", hist)
	}
	if one, _ := s.BriefHistory(ctx, "/p", 1); len(one) != 1 || one[0].ID != id3 {
		t.Errorf("history limit 1: %+v", one)
	}

	// The secret inside a JSON string is scrubbed and the JSON stays valid,
	// numbers as written.
	var content string
	if err := s.DB().QueryRow("SELECT content FROM briefs WHERE id = ?", id1).Scan(&content); err != nil {
		t.Fatal(err)
	}
	wantContent := `{"constraints":[{"id":"BC-001","rationale":"api_key=[REDACTED] \"quoted\""}],"n":1.50,"title":"First"}`
	if content != wantContent {
		t.Errorf("stored content %s\nwant %s", content, wantContent)
	}
}

func TestAddBriefRejectsNonJSON(t *testing.T) {
	s := openTest(t)
	err := s.Tx(context.Background(), func(tx *Tx) error {
		_, err := tx.AddBrief(context.Background(), record.BriefVersion{ProjectPath: "/p", Content: []byte("{not json"), IngestedAt: t0})
		return err
	})
	if fault.KindOf(err) != fault.Invalid {
		t.Errorf("err %v, want Invalid", err)
	}
}
