package disclosure

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TestDisputeInContext: the paper's memory, disputed by later model
// output, is injected as current with the dispute said in a few words; the
// model output is marked as disputing it, never shown as current — in the
// prompt's recall and in SessionStart's salient memories alike.
func TestDisputeInContext(t *testing.T) {
	st := openStore(t)
	ids := addMemories(t, st,
		record.NewMemory{Kind: record.KindNote, Text: "SpCas9 guide length is 20 nt", Ref: "doi:10.1038/nbt.3437", Source: "cli",
			SourceType: record.SourcePaper, At: now.Add(-31 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindNote, Text: "SpCas9 guide length is 17 nt", Source: "cli", SourceType: record.SourceModel,
			At: now.Add(-2 * 24 * time.Hour)},
	)
	paper, model := ids[0], ids[1]
	want := []string{
		fmt.Sprintf("- [M-%d] note 2026-10-01: SpCas9 guide length is 20 nt (disputed by [M-%d], a model-sourced memory of 2026-10-30: SpCas9 guide length is 17 nt)", paper, model),
		fmt.Sprintf("- [M-%d] note 2026-10-30: SpCas9 guide length is 17 nt (disputes the better-sourced [M-%d])", model, paper),
	}
	text, _, err := PromptContext(context.Background(), st, nil, project, "which guide length for SpCas9, 17 nt?", now, config.Defaults.PromptRecallTokens)
	must(t, err)
	if wantText := "[" + PromptRecallTitle + "]\n" + want[0] + "\n" + want[1]; text != wantText {
		t.Errorf("prompt context:\n%s\nwant\n%s", text, wantText)
	}
	part, err := sessionMemories(context.Background(), st, nil, project, "", now)
	must(t, err)
	if !reflect.DeepEqual(part.Lines, want) {
		t.Errorf("session memories:\n%q\nwant\n%q", part.Lines, want)
	}
}

func TestMemoryLineDisputes(t *testing.T) {
	at := time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC)
	p, d := int64(3), &recall.Dispute{ID: 9, Trust: 0.5, CreatedAt: at, Text: "a blog says otherwise"}
	for _, tt := range []struct {
		h    recall.Hit
		want string
	}{
		{recall.Hit{ID: 12, Kind: "note", CreatedAt: at, Text: "x", Disputes: &p, Conflicts: []int64{3}},
			"- [M-12] note 2026-10-03: x (disputes the better-sourced [M-3])"},
		{recall.Hit{ID: 12, Kind: "note", CreatedAt: at, Text: "x", DisputedBy: []int64{9, 8}, Dispute: d, Conflicts: []int64{8, 9}},
			"- [M-12] note 2026-10-03: x (disputed by [M-9], a blog-sourced memory of 2026-10-03: a blog says otherwise and 1 more)"},
		{recall.Hit{ID: 12, Kind: "note", CreatedAt: at, Text: "x", DisputedBy: []int64{9}, Conflicts: []int64{9}},
			"- [M-12] note 2026-10-03: x (disputed by [M-9])"},
	} {
		if got := MemoryLine(tt.h); got != tt.want {
			t.Errorf("MemoryLine = %q, want %q", got, tt.want)
		}
	}
}
