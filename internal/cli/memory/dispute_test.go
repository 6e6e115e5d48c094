package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNewCmdMemoryAddInAgent: inside a Claude Code session (CLAUDECODE=1)
// add knows it records model output; elsewhere it does not.
func TestNewCmdMemoryAddInAgent(t *testing.T) {
	for env, want := range map[string]bool{"1": true, "": false} {
		f, _, _, _ := memTestFactory(t)
		getenv := f.Getenv
		f.Getenv = func(k string) string {
			if k == "CLAUDECODE" {
				return env
			}
			return getenv(k)
		}
		var got *MemoryAddOptions
		cmd := NewCmdMemoryAdd(f, func(o *MemoryAddOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"x"})
		if err := cmd.Execute(); err != nil || got.InAgent != want {
			t.Errorf("CLAUDECODE=%q: InAgent %v (%v), want %v", env, got.InAgent, err, want)
		}
	}
}

// TestRunMemoryDispute is the issue-34 scenario through the commands: a
// paper's memory with a DOI, then model output the agent adds from its
// session; the paper's stays current in recall and show, the model's is
// shown as disputing it, and forgetting the paper lets it stand.
func TestRunMemoryDispute(t *testing.T) {
	ctx := context.Background()
	f, out, errOut, root := memTestFactory(t)
	add := func(o *MemoryAddOptions, at time.Time) {
		t.Helper()
		out.Reset()
		errOut.Reset()
		o.IO, o.Store, o.ProjectRoot, o.Project, o.Kind = f.IO, f.Store, f.ProjectRoot, root, "note"
		o.Now = func() time.Time { return at }
		if err := runMemoryAdd(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	add(&MemoryAddOptions{Text: "SpCas9 guide length is 20 nt", SourceType: "paper", Ref: "doi:10.1038/nbt.3437"}, memT0.Add(-60*24*time.Hour))
	add(&MemoryAddOptions{Text: "SpCas9 guide length is 17 nt", InAgent: true}, memT0.Add(-24*time.Hour))
	wantErr := "memory add: recorded as model output (trust 0.35), since it runs in a Claude Code session: the agent's own word is " +
		"model output, and only the researcher, in their own terminal, records a person's note or raises a trust; cite a paper with --source paper --ref DOI\n" +
		"M-2 disputes M-1 (note 2026-09-02, trust 0.85): SpCas9 guide length is 20 nt; M-1 is better sourced and stays current\n" +
		"Trust settles a contradiction (code 1.00, person 1.00, paper 0.85, blog 0.50, model 0.35), then recency: " +
		"recall ranks the disputing memory down and notes the dispute on the other. " +
		"Settle it with `vibe memory forget ID` (the wrong one) or by adding the value that holds with --source person.\n"
	if out.String() != "M-2\n" || errOut.String() != wantErr {
		t.Errorf("add model output: %q\n%s\nwant\n%s", out, errOut, wantErr)
	}

	recallOut := func(jsonOut bool) string {
		t.Helper()
		out.Reset()
		if err := runRecall(ctx, &RecallOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Query: "SpCas9 guide length",
			Project: root, Limit: 5, JSON: jsonOut}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want := "[M-1] note 2026-09-02  score 0.0164  fts  ref doi:10.1038/nbt.3437  contradicts [M-2]\n" +
		"SpCas9 guide length is 20 nt\n" +
		"disputed by [M-2], a model-sourced memory of 2026-10-31: SpCas9 guide length is 17 nt\n\n" +
		"[M-2] note 2026-10-31  score 0.0161  fts  disputes the better-sourced [M-1]  contradicts [M-1]\n" +
		"SpCas9 guide length is 17 nt\n"
	if got := recallOut(false); got != want {
		t.Errorf("recall:\n%s\nwant\n%s", got, want)
	}
	if got := recallOut(true); !strings.Contains(got, "\"id\": 1,") || !strings.Contains(got, "\"disputed_by\": [\n      2\n    ],") ||
		!strings.Contains(got, "\"disputes\": 1,") || strings.Index(got, "\"id\": 1,") > strings.Index(got, "\"id\": 2,") {
		t.Errorf("recall --json:\n%s", got)
	}

	show := func(id int64) string {
		t.Helper()
		out.Reset()
		if err := runMemoryShow(ctx, &MemoryShowOptions{IO: f.IO, Store: f.Store, ID: id}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	head := func(id int64, created, trust string) string {
		return fmt.Sprintf("M-%d  note\nproject  %s\ncreated  %s\nsource   cli\ntrust    %s\n", id, root, created, trust)
	}
	if got, want := show(1), head(1, "2026-09-02 09:00 UTC", "0.85")+"ref      doi:10.1038/nbt.3437\nstate    disputed\n"+
		"disputed by M-2 (newer, less trusted: this one stays current; 2026-10-31, trust 0.35): SpCas9 guide length is 17 nt\n\n"+
		"SpCas9 guide length is 20 nt\n"; got != want {
		t.Errorf("show paper:\n%s\nwant\n%s", got, want)
	}
	if got, want := show(2), head(2, "2026-10-31 09:00 UTC", "0.35")+"state    disputing\n"+
		"disputes M-1 (older, better sourced: it stays current; 2026-09-02, trust 0.85): SpCas9 guide length is 20 nt\n\n"+
		"SpCas9 guide length is 17 nt\n"; got != want {
		t.Errorf("show model output:\n%s\nwant\n%s", got, want)
	}

	out.Reset()
	if err := runMemoryForget(ctx, &MemoryForgetOptions{IO: f.IO, Store: f.Store, ID: 1}); err != nil {
		t.Fatal(err)
	}
	if want := "M-1 forgotten: recall and session context no longer show it\n" +
		"M-2 now stands (disputed): recall no longer ranks it down\n"; out.String() != want {
		t.Errorf("forget:\n%s\nwant\n%s", out, want)
	}
}
