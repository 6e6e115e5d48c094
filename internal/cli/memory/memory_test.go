package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store/record"
)

// memArgv runs a memory subcommand's argv through its constructor and
// returns the options runF saw (or the error).
func memArgv[O any](t *testing.T, build func(*cli.Factory, func(*O) error) *cobra.Command, argv []string) (*O, error) {
	t.Helper()
	f, _, _, _ := memTestFactory(t)
	var got *O
	cmd := build(f, func(o *O) error { got = o; return nil })
	cmd.SetArgs(argv)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	return got, cmd.Execute()
}

func TestNewCmdMemoryFlags(t *testing.T) {
	add := []struct {
		argv []string
		want MemoryAddOptions
		err  string
	}{
		{[]string{"use", "Harmony"}, MemoryAddOptions{Text: "use Harmony", Kind: "note"}, ""},
		{[]string{"--kind", "decision", "--ref", "DESIGN.md#split", "--project", "/p", "--json", "split by guide"},
			MemoryAddOptions{Text: "split by guide", Kind: "decision", Ref: "DESIGN.md#split", Project: "/p", JSON: true}, ""},
		{[]string{"--kind", "open_thread", "who reviews C-021?"}, MemoryAddOptions{Text: "who reviews C-021?", Kind: "open_thread"}, ""},
		{[]string{"--kind", "rumour", "x"}, MemoryAddOptions{},
			`--kind must be one of action, claim_event, decision, failure, gate_failure, hypothesis, insight, narrative, note, open_thread, pattern, seed, not "rumour"`},
		{[]string{}, MemoryAddOptions{}, "requires at least 1 arg(s), only received 0"},
		{[]string{"--source", "paper", "--trust", "0", "a paper's number"},
			MemoryAddOptions{Text: "a paper's number", Kind: "note", SourceType: "paper", Trust: record.Trust(0)}, ""},
		{[]string{"--source", "tabloid", "x"}, MemoryAddOptions{}, `--source must be one of code, paper, person, blog, model, not "tabloid"`},
		{[]string{"--trust", "1.5", "x"}, MemoryAddOptions{}, "--trust must be between 0 and 1, not 1.5"},
	}
	for _, tt := range add {
		got, err := memArgv(t, NewCmdMemoryAdd, tt.argv)
		if tt.err != "" || err != nil {
			if err == nil || err.Error() != tt.err {
				t.Errorf("add %q: err %v, want %q", tt.argv, err, tt.err)
			}
			continue
		}
		got.IO, got.Store, got.ProjectRoot, got.Now = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("add %q: %+v, want %+v", tt.argv, *got, tt.want)
		}
	}

	imp, err := memArgv(t, NewCmdMemoryImport, []string{"--project", "/p", "--json", "notes.jsonl"})
	if err != nil || imp.File != "notes.jsonl" || imp.Project != "/p" || !imp.JSON {
		t.Errorf("import: %+v %v", imp, err)
	}

	exp := []struct {
		argv []string
		want MemoryExportOptions
		err  string
	}{
		{[]string{}, MemoryExportOptions{}, ""},
		{[]string{"--jsonl", "--all"}, MemoryExportOptions{All: true}, ""},
		{[]string{"--json", "--project", "/p"}, MemoryExportOptions{JSON: true, Project: "/p"}, ""},
		{[]string{"--json", "--jsonl"}, MemoryExportOptions{}, "--json and --jsonl exclude each other; pick one"},
	}
	for _, tt := range exp {
		got, err := memArgv(t, NewCmdMemoryExport, tt.argv)
		if tt.err != "" || err != nil {
			if err == nil || err.Error() != tt.err {
				t.Errorf("export %q: err %v, want %q", tt.argv, err, tt.err)
			}
			continue
		}
		got.IO, got.Store, got.ProjectRoot = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("export %q: %+v, want %+v", tt.argv, *got, tt.want)
		}
	}

	for _, tt := range []struct {
		argv []string
		id   int64
		err  string
	}{
		{[]string{"M-12"}, 12, ""},
		{[]string{"7"}, 7, ""},
		{[]string{"C-7"}, 0, `memory id: "C-7" is not a memory id; give it as 12 or M-12 (see ` + "`vibe recall QUERY`)"},
	} {
		got, err := memArgv(t, NewCmdMemoryForget, tt.argv)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("forget %q: err %v, want %q", tt.argv, err, tt.err)
			}
		} else if err != nil || got.ID != tt.id {
			t.Errorf("forget %q: %+v %v", tt.argv, got, err)
		}
		show, err := memArgv(t, NewCmdMemoryShow, append([]string{"--json"}, tt.argv...))
		if tt.err == "" && (err != nil || show.ID != tt.id || !show.JSON) {
			t.Errorf("show %q: %+v %v", tt.argv, show, err)
		}
	}
}

func TestRunMemoryAddForgetShow(t *testing.T) {
	ctx := context.Background()
	f, out, errOut, root := memTestFactory(t)
	run := func(o *MemoryAddOptions) {
		t.Helper()
		out.Reset()
		errOut.Reset()
		o.IO, o.Store, o.ProjectRoot, o.Now, o.Project = f.IO, f.Store, f.ProjectRoot, f.Now, root
		if err := runMemoryAdd(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	run(&MemoryAddOptions{Text: "The effect of GC content on off-target count is significant", Kind: "claim_event", Ref: "ledger#C-4"})
	if out.String() != "M-1\n" || errOut.String() != "" {
		t.Errorf("add: %q %q", out, errOut)
	}
	run(&MemoryAddOptions{Text: "The effect of GC content on off-target count is not significant", Kind: "claim_event", JSON: true})
	if out.String() != "{\n  \"id\": 2,\n  \"conflicts\": [\n    1\n  ],\n  \"supersedes\": [\n    1\n  ]\n}\n" || errOut.String() != "" {
		t.Errorf("add json: %q %q", out, errOut)
	}
	run(&MemoryAddOptions{Text: "The effect of GC content on off-target count is not significant at all", Kind: "claim_event"})
	// Same time: the later id is the newer memory.
	wantErr := "M-3 supersedes M-1 (claim_event 2026-11-01, trust 1): The effect of GC content on off-target count is significant\n" +
		"Recall ranks a superseded memory down and points to the newer one; forget the wrong one with `vibe memory forget ID`.\n"
	if out.String() != "M-3\n" || errOut.String() != wantErr {
		t.Errorf("add conflict: %q\n%q", out, errOut)
	}

	out.Reset()
	if err := runMemoryShow(ctx, &MemoryShowOptions{IO: f.IO, Store: f.Store, ID: 1}); err != nil {
		t.Fatal(err)
	}
	want := "M-1  claim_event\nproject  " + root + "\ncreated  2026-11-01 09:00 UTC\nsource   cli\ntrust    1\nref      ledger#C-4\nstate    superseded\n" +
		"superseded by M-3 (newer, at least as trusted; 2026-11-01, trust 1): The effect of GC content on off-target count is not significant at all\n" +
		"contradicts M-2 (2026-11-01, trust 1): The effect of GC content on off-target count is not significant\n\n" +
		"The effect of GC content on off-target count is significant\n"
	if out.String() != want {
		t.Errorf("show:\n%s\nwant\n%s", out, want)
	}

	out.Reset()
	if err := runMemoryForget(ctx, &MemoryForgetOptions{IO: f.IO, Store: f.Store, ID: 1}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "M-1 forgotten: recall and session context no longer show it\n" {
		t.Errorf("forget: %q", out)
	}
	out.Reset()
	if err := runMemoryShow(ctx, &MemoryShowOptions{IO: f.IO, Store: f.Store, ID: 1, JSON: true}); err != nil {
		t.Fatal(err)
	}
	wantJSON := fmt.Sprintf(`{
  "id": 1,
  "project": %q,
  "kind": "claim_event",
  "text": "The effect of GC content on off-target count is significant",
  "ref": "ledger#C-4",
  "created_at": "2026-11-01T09:00:00Z",
  "trust": 1,
  "source": "cli",
  "state": "forgotten",
  "superseded_by": 3,
  "conflicts": [
    2,
    3
  ],
  "forgotten": true
}
`, root)
	if out.String() != wantJSON {
		t.Errorf("show json:\n%s\nwant\n%s", out, wantJSON)
	}
	out.Reset()
	errOut.Reset()
	if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "GC content", Project: root, Limit: 5, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `"id": 1,`) {
		t.Errorf("forgotten memory recalled:\n%s", out)
	}
	err := runMemoryShow(ctx, &MemoryShowOptions{IO: f.IO, Store: f.Store, ID: 99})
	if err == nil || err.Error() != "read memory: no memory M-99 (see `vibe recall QUERY`)" || cli.ExitCode(err) != 1 {
		t.Errorf("show missing: %v", err)
	}
}

func TestRunMemoryImportExport(t *testing.T) {
	ctx := context.Background()
	f, out, errOut, root := memTestFactory(t)
	file := filepath.Join(t.TempDir(), "notes.jsonl")
	lines := []string{
		`{"text": "Harmony theta 3 fixed the batch split", "kind": "decision", "ref": "DESIGN.md#harmony", "created_at": "2026-05-01T10:00:00Z"}`,
		`{"text": "broken`,
		`{"text": "SoupX on every sample", "created_at": 1777600000000}`,
		`{"text": "Harmony theta 3 fixed the batch split", "kind": "decision"}`,
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A bad line fails the import (exit 1, naming the lines) after the
	// good lines are stored: a script must not take it for success.
	err := runMemoryImport(ctx, &MemoryImportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, File: file, Project: root})
	if err == nil || cli.ExitCode(err) != 1 ||
		err.Error() != file+": 1 line skipped (line 2); the other lines are stored: fix that line and import the file again (stored lines count as duplicates)" {
		t.Fatalf("err %v (exit %d)", err, cli.ExitCode(err))
	}
	if out.String() != "imported 3 of 4 lines: 2 added, 1 already stored, 0 contradicting an earlier memory, 1 skipped\n" {
		t.Errorf("import stdout %q", out)
	}
	if want := file + ": line 2: not a JSON object (unexpected end of JSON input); each line must be {\"text\": …, \"kind\": …, \"ref\": …, \"created_at\": …}: skipped\n"; errOut.String() != want {
		t.Errorf("import stderr %q\nwant %q", errOut, want)
	}
	// From stdin, with a JSON report.
	out.Reset()
	errOut.Reset()
	f.IO.In = strings.NewReader(`{"text": "third note"}` + "\n" + `{"kind": "note"}` + "\n")
	if err := runMemoryImport(ctx, &MemoryImportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, File: "-", Project: root, JSON: true}); cli.ExitCode(err) != 1 {
		t.Fatalf("err %v, want exit 1 for the skipped line", err)
	}
	wantReport := "{\n  \"added\": 1,\n  \"conflicts\": 0,\n  \"duplicates\": 0,\n  \"lines\": 2,\n  \"skipped\": [\n    {\n      \"line\": 2,\n      \"error\": \"the memory text is empty; give the fact to remember\"\n    }\n  ]\n}\n"
	if out.String() != wantReport {
		t.Errorf("import json %q", out)
	}
	if err := runMemoryImport(ctx, &MemoryImportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, File: filepath.Join(t.TempDir(), "none.jsonl"), Project: root}); err == nil {
		t.Error("importing a missing file succeeded")
	}

	// Export is oldest first, in the import format, and round-trips.
	out.Reset()
	if err := runMemoryExport(ctx, &MemoryExportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"id":2,"project":%[1]q,"kind":"note","text":"SoupX on every sample","created_at":"2026-05-01T01:46:40Z","trust":1,"source":"import","state":"current"}
{"id":1,"project":%[1]q,"kind":"decision","text":"Harmony theta 3 fixed the batch split","ref":"DESIGN.md#harmony","created_at":"2026-05-01T10:00:00Z","trust":1,"source":"import","state":"current"}
{"id":3,"project":%[1]q,"kind":"note","text":"third note","created_at":"2026-11-01T09:00:00Z","trust":1,"source":"import","state":"current"}
`, root)
	if out.String() != want {
		t.Errorf("export:\n%s\nwant\n%s", out, want)
	}
	exported := out.String()
	g, gout, _, groot := memTestFactory(t)
	g.IO.In = strings.NewReader(exported)
	if err := runMemoryImport(ctx, &MemoryImportOptions{IO: g.IO, Store: g.Store, ProjectRoot: g.ProjectRoot, Now: g.Now, File: "-", Project: groot}); err != nil {
		t.Fatal(err)
	}
	if gout.String() != "imported 3 of 3 lines: 3 added, 0 already stored, 0 contradicting an earlier memory, 0 skipped\n" {
		t.Errorf("round trip: %q", gout)
	}
	out.Reset()
	if err := runMemoryExport(ctx, &MemoryExportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "[\n  {\n    \"id\": 2,") {
		t.Errorf("export json: %s", out)
	}
	out.Reset()
	errOut.Reset()
	if err := runMemoryExport(ctx, &MemoryExportOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: clitest.MkVibeDir(t, t.TempDir())}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errOut.String() != "no memories to export\n" {
		t.Errorf("empty export: %q %q", out, errOut)
	}
}

// TestMemoryTrustRoundTrips: an explicit trust of 0 is stored as 0, and a
// source type without a trust takes its default (issue 18).
func TestMemoryTrustRoundTrips(t *testing.T) {
	ctx := context.Background()
	f, out, _, root := memTestFactory(t)
	add := func(o *MemoryAddOptions) float64 { t.Helper(); return addedTrust(ctx, t, f, out, root, o) }
	if got := add(&MemoryAddOptions{Text: "a rumour overheard at the bench", Trust: record.Trust(0)}); got != 0 {
		t.Errorf("--trust 0 stored as %v", got)
	}
	if got := add(&MemoryAddOptions{Text: "a blog says GC content matters", SourceType: record.SourceBlog}); got != 0.5 {
		t.Errorf("--source blog stored trust %v, want 0.5", got)
	}
	if got := add(&MemoryAddOptions{Text: "the PI says split by guide"}); got != 1 {
		t.Errorf("a note without source stored trust %v, want 1", got)
	}
}

// addedTrust runs `vibe memory add --json` with o in project root and
// returns the trust the new memory was stored with.
func addedTrust(ctx context.Context, t *testing.T, f *cli.Factory, out *bytes.Buffer, root string, o *MemoryAddOptions) float64 {
	t.Helper()
	out.Reset()
	o.IO, o.Store, o.ProjectRoot, o.Now, o.Project, o.Kind, o.JSON = f.IO, f.Store, f.ProjectRoot, f.Now, root, "note", true
	if err := runMemoryAdd(ctx, o); err != nil {
		t.Fatal(err)
	}
	var got struct{ ID int64 }
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Memory(ctx, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	return m.Trust
}

func memTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer, string) {
	f, out, errOut := clitest.New(t, clitest.Options{Now: memT0})
	return f, out, errOut, clitest.Project(t)
}

// TestMemoryJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestMemoryJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, memoryJSON{})
}
