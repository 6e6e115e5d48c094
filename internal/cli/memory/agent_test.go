package memory

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TestAgentCannotRaiseItsOwnTrust: inside a Claude Code session the agent
// speaks for itself, whatever --source or --trust it passes: a person's
// note or code's observation it claims is model output, a trust it gives
// is at most its source's, and a paper counts as one only with an id. The
// same holds for an import the agent runs. Outside a session (the
// researcher's own terminal) the claims stand.
func TestAgentCannotRaiseItsOwnTrust(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := memTestFactory(t)
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	add := func(o *MemoryAddOptions) float64 { t.Helper(); return addedTrust(ctx, t, f, out, root, o) }
	for _, tt := range []struct {
		name    string
		o       MemoryAddOptions
		want    float64
		inAgent bool
	}{
		{"the agent claims a person's note", MemoryAddOptions{Text: "the PI said guides of 17 nt", SourceType: record.SourcePerson}, 0.35, true},
		{"the agent claims code's observation", MemoryAddOptions{Text: "the gate computed 17 nt", SourceType: record.SourceCode}, 0.35, true},
		{"the agent gives trust 1", MemoryAddOptions{Text: "guides are 17 nt long", Trust: record.Trust(1)}, 0.35, true},
		{"the agent gives a paper trust 1", MemoryAddOptions{Text: "Tsai et al. use 17 nt", SourceType: record.SourcePaper, Trust: record.Trust(1)}, record.TrustPaperNoID, true},
		{"the agent cites a paper without an id", MemoryAddOptions{Text: "a paper says 18 nt", SourceType: record.SourcePaper}, record.TrustPaperNoID, true},
		// Ordinary work: what the agent may claim stands.
		{"the agent cites a paper by its DOI", MemoryAddOptions{Text: "GUIDE-seq used 20 nt", SourceType: record.SourcePaper, Ref: "doi:10.1038/nbt.3117"}, 0.85, true},
		{"the agent lowers its trust", MemoryAddOptions{Text: "a guess: 19 nt", Trust: record.Trust(0.1)}, 0.1, true},
		{"the agent cites a blog", MemoryAddOptions{Text: "a blog says 21 nt", SourceType: record.SourceBlog}, 0.5, true},
		{"the researcher's note", MemoryAddOptions{Text: "I checked: 20 nt", SourceType: record.SourcePerson}, 1, false},
		{"the researcher's trust", MemoryAddOptions{Text: "surely 20 nt", Trust: record.Trust(0.95)}, 0.95, false},
	} {
		tt.o.InAgent = tt.inAgent
		if got := add(&tt.o); got != tt.want {
			t.Errorf("%s: trust %v, want %v", tt.name, got, tt.want)
		}
	}

	file := filepath.Join(t.TempDir(), "m.jsonl")
	lines := `{"text": "the PI insists on 16 nt", "source_type": "person"}
{"text": "code measured 15 nt", "source_type": "code", "trust": 1}
{"text": "an unsourced 14 nt"}
`
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, inAgent := range []bool{true, false} {
		proj := root
		if !inAgent {
			proj = clitest.Project(t)
		}
		o := &MemoryImportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: proj, File: file, InAgent: inAgent}
		if err := runMemoryImport(ctx, o); err != nil {
			t.Fatal(err)
		}
		want := 1.0
		if inAgent {
			want = 0.35
		}
		pr, _ := f.ProjectRoot(proj, false)
		err := st.ExportMemories(ctx, pr, func(m record.MemoryRecord) error {
			if m.Source == "import" && m.Trust != want {
				t.Errorf("import (in agent %v) of %q: trust %v, want %v", inAgent, m.Text, m.Trust, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestExportImportKeepsTrust: `vibe memory export` then `vibe memory
// import`, into the same project or another, gives no memory more trust
// than it had, nor another standing: model output stays below the paper it
// disputes, a paper without an id stays at 0.6.
func TestExportImportKeepsTrust(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := memTestFactory(t)
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []*MemoryAddOptions{
		{Text: "SpCas9 guide length is 20 nt", SourceType: record.SourcePaper, Ref: "doi:10.1038/nbt.3437"},
		{Text: "SpCas9 guide length is 17 nt", InAgent: true},
		{Text: "Cas12a guides are 23 nt", SourceType: record.SourcePaper},
		{Text: "Cas12a guides are 21 nt", SourceType: record.SourceBlog},
		{Text: "the agent lowered this to 0.2", Trust: record.Trust(0.2), InAgent: true},
	} {
		o.IO, o.Store, o.ProjectRoot, o.Now, o.Project, o.Kind = f.IO, f.Store, f.ProjectRoot, f.Now, root, "note"
		if err := runMemoryAdd(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	type standing struct {
		Trust float64
		State string
	}
	snapshot := func(project string) map[string]standing {
		pr, _ := f.ProjectRoot(project, false)
		got := map[string]standing{}
		if err := st.ExportMemories(ctx, pr, func(m record.MemoryRecord) error {
			got[m.Text] = standing{m.Trust, m.State()}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := snapshot(root)
	out.Reset()
	if err := runMemoryExport(ctx, &MemoryExportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	other := clitest.Project(t)
	for _, proj := range []string{root, other} {
		for _, inAgent := range []bool{false, true} {
			o := &MemoryImportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: proj, File: file, InAgent: inAgent}
			if err := runMemoryImport(ctx, o); err != nil {
				t.Fatal(err)
			}
			if got := snapshot(proj); !reflect.DeepEqual(got, want) {
				t.Errorf("after importing the export into %s (in agent %v):\n got %v\nwant %v", proj, inAgent, got, want)
			}
		}
	}
}
