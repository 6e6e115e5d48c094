package recall

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

func TestImport(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	in := strings.Join([]string{
		`{"text": "Gate DQ2 passed for claim C-12 on the CHANGE-seq table", "kind": "gate_failure", "ref": "ledger#C-12", "created_at": "2026-05-01T10:00:00Z"}`,
		`{"text": "Harmony with theta 3", "kind": "decision", "created_at": 1777600000000}`,
		``,
		`{"text": "no kind and no time"}`,
		`not json`,
		`{"text": "", "kind": "note"}`,
		`{"text": "a kind we do not know", "kind": "rumour"}`,
		`{"text": "bad time", "created_at": "yesterday"}`,
		`{"text": "negative time", "created_at": -5}`,
		`{"text": "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", "kind": "gate_failure", "ref": "ledger#C-12b", "created_at": "2026-06-01T10:00:00+02:00"}`,
		`{"text": "Harmony with theta 3", "kind": "decision"}`,
		`{"text": "half trusted", "trust": 0.5}`,
		`{"text": "over trusted", "trust": 2}`,
	}, "\n")
	var progress []int
	rep, err := Import(ctx, st, strings.NewReader(in), "/p", now, func(n int) { progress = append(progress, n) })
	if err != nil {
		t.Fatal(err)
	}
	wantSkipped := []LineError{
		{5, `not a JSON object (invalid character 'o' in literal null (expecting 'u')); each line must be {"text": …, "kind": …, "ref": …, "created_at": …}`},
		{6, "the memory text is empty; give the fact to remember"},
		{7, `unknown kind "rumour"; use one of action, claim_event, decision, failure, gate_failure, hypothesis, insight, narrative, note, open_thread, pattern, seed`},
		{8, `created_at "yesterday" is not RFC 3339 (2026-01-31T09:00:00Z) or unix milliseconds`},
		{9, "created_at -5 is not RFC 3339 or a positive whole number of unix milliseconds"},
		{13, "trust 2 is outside 0..1"},
	}
	want := ImportReport{Lines: 12, Added: 5, Duplicates: 1, Conflicts: 1, Skipped: wantSkipped}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("report\n%+v\nwant\n%+v", rep, want)
	}
	if !reflect.DeepEqual(progress, []int{12}) {
		t.Errorf("progress %v, want [12]", progress)
	}
	type row struct {
		Kind, Text, Ref, Source string
		Trust                   float64
		At                      time.Time
		Conflict                bool
	}
	var rows []row
	err = st.ExportMemories(ctx, "/p", func(m record.MemoryRecord) error {
		rows = append(rows, row{m.Kind, m.Text, m.Ref, m.Source, m.Trust, m.CreatedAt, len(m.Conflicts) > 0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []row{
		{"decision", "Harmony with theta 3", "", "import", 1, time.UnixMilli(1777600000000).UTC(), false},
		{"gate_failure", "Gate DQ2 passed for claim C-12 on the CHANGE-seq table", "ledger#C-12", "import", 1, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), true},
		{"gate_failure", "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", "ledger#C-12b", "import", 1, time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC), true},
		{"note", "no kind and no time", "", "import", 1, now, false},
		{"note", "half trusted", "", "import", 0.5, now, false},
	}
	// Export is oldest first, ties by id.
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("stored\n%+v\nwant\n%+v", rows, wantRows)
	}
	// The ref comes back with recall; the later outcome comes first, even
	// for a query that quotes the earlier one, which points to it.
	res, _ := Search(ctx, st, nil, Query{Project: "/p", Text: "DQ2 passed", Limit: 2})
	if len(res.Hits) != 2 || res.Hits[0].Ref != "ledger#C-12b" || res.Hits[1].Ref != "ledger#C-12" ||
		res.Hits[1].SupersededBy == nil || *res.Hits[1].SupersededBy != res.Hits[0].ID {
		t.Errorf("recall hits %+v, want ledger#C-12b, then ledger#C-12 superseded by it", res.Hits)
	}
}

func TestImportBatchesAndProgress(t *testing.T) {
	st := openStore(t)
	var b strings.Builder
	for i := 0; i < ImportBatch*2+7; i++ {
		fmt.Fprintf(&b, `{"text": "observation number %d about sample %d"}`+"\n", i, i*7)
	}
	var progress []int
	rep, err := Import(context.Background(), st, strings.NewReader(b.String()), "/p", t0, func(n int) { progress = append(progress, n) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != ImportBatch*2+7 || len(rep.Skipped) != 0 {
		t.Errorf("report %+v", rep)
	}
	if want := []int{ImportBatch, 2 * ImportBatch, 2*ImportBatch + 7}; !reflect.DeepEqual(progress, want) {
		t.Errorf("progress %v, want %v", progress, want)
	}
}

func TestImportNeedsProject(t *testing.T) {
	if _, err := Import(context.Background(), openStore(t), strings.NewReader(`{"text":"x"}`), "", t0, nil); err == nil {
		t.Error("import without a project succeeded")
	}
}

func TestImportLongLineAndNoFinalNewline(t *testing.T) {
	st := openStore(t)
	in := `{"text": "first"}` + "\n" +
		`{"text": "` + strings.Repeat("x", MaxImportLine+10) + `"}` + "\n" +
		`{"text": "last, with no newline"}`
	rep, err := Import(context.Background(), st, strings.NewReader(in), "/p", t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ImportReport{Lines: 3, Added: 2, Skipped: []LineError{{2, "longer than 1048576 bytes; split the text into several memories"}}}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("report %+v, want %+v", rep, want)
	}
}
