package seeds

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/skill"
)

var update = flag.Bool("update", false, "rewrite golden files")

// docBlock returns the fenced block of the given info string that follows
// the heading in skill/vibe/formats/serendipity.md.
func docBlock(t *testing.T, heading, info string) string {
	t.Helper()
	raw, err := fs.ReadFile(skill.FS, "vibe/formats/serendipity.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("heading %q not in the format doc", heading)
	}
	rest := doc[i:]
	open := "```" + info + "\n"
	j := strings.Index(rest, open)
	if j < 0 {
		t.Fatalf("no %s block after %q", info, heading)
	}
	body := rest[j+len(open):]
	k := strings.Index(body, "\n```")
	return body[:k+1]
}

func goldenJSON(t *testing.T, path string, v any) {
	t.Helper()
	got, err := verdict.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		var pretty bytes.Buffer
		json.Indent(&pretty, got, "", "  ")
		pretty.WriteByte('\n')
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	var tree any
	json.Unmarshal(raw, &tree)
	want, _ := verdict.Canonical(tree)
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", path, got, want)
	}
}

// TestParseFormatDocExample parses the example of the format document and
// checks each entry against the seed schema, so the document, the parser
// and the schema cannot drift apart.
func TestParseFormatDocExample(t *testing.T) {
	seeds, errs := Parse([]byte(docBlock(t, "## Example", "markdown")))
	if len(errs) != 0 {
		t.Fatalf("the documented example has problems: %v", errs)
	}
	if len(seeds) != 2 {
		t.Fatalf("%d seeds, want 2", len(seeds))
	}
	for _, s := range seeds {
		raw, _ := json.Marshal(s)
		if res := gate.ValidateSchema("serendipity-seed", raw); res.Status != gate.StatusPass {
			t.Errorf("%s does not validate against the schema: %+v", s.ID, res.Checks)
		}
	}
	goldenJSON(t, "testdata/example.golden.json", seeds)
}

// TestParseDocumentedMistakes feeds each line of the format document's
// "Mistakes the parser reports" block into an otherwise valid entry and
// expects the documented message.
func TestParseDocumentedMistakes(t *testing.T) {
	base := []string{
		"## SEED-20260112-001: A title",
		"- status: PENDING_TRIAGE",
		"- source: SCANNER",
		"- score: 12",
		"- causal-question: Does x cause y?",
		"- discriminating-test: Match on z",
		"- falsifiers: a; b; c",
		"- created: 2026-01-12",
	}
	split := regexp.MustCompile(`^(.*?\S)\s{2,}(\S.*)$`)
	type mistake struct {
		lines []string
		msg   string
	}
	var ms []mistake
	for _, l := range strings.Split(strings.TrimRight(docBlock(t, "## Mistakes the parser reports", "text"), "\n"), "\n") {
		if m := split.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, "  ") {
			ms = append(ms, mistake{[]string{m[1]}, m[2]})
		} else if len(ms) > 0 {
			ms[len(ms)-1].lines = append(ms[len(ms)-1].lines, l)
		}
	}
	if len(ms) != 5 {
		t.Fatalf("read %d documented mistakes, want 5: %q", len(ms), ms)
	}
	for _, m := range ms {
		entry := append([]string(nil), base...)
		first := m.lines[0]
		if strings.HasPrefix(first, "## ") {
			entry[0] = first
		} else {
			key, _, _ := strings.Cut(strings.TrimPrefix(first, "- "), ":")
			replaced := false
			for i, l := range entry {
				if strings.HasPrefix(l, "- "+key+":") {
					entry = append(entry[:i], append(m.lines, entry[i+1:]...)...)
					replaced = true
					break
				}
			}
			if !replaced {
				t.Fatalf("no base line for %q", first)
			}
		}
		_, errs := Parse([]byte(strings.Join(entry, "\n")))
		found := false
		for _, e := range errs {
			if strings.Contains(e.Error(), m.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: want an error containing %q, got %v", first, m.msg, errs)
		}
	}
}

func TestParseTolerance(t *testing.T) {
	content := strings.Join([]string{
		"# Serendipity",
		"",
		"Some notes before any seed: - status: KILLED is not a field here.",
		"",
		"## SEED-20260201-001: Bold keys and loose values",
		"- **status:** pending-triage",
		"* **Source**: salvaged_from_r2",
		"- Score: 13/20",
		"- causal_question: `Does GC content drive coverage?`",
		"- discriminating test: Stratify by GC tertile",
		"- falsifiers:",
		"  - GC tracks site count",
		"  * one study dominates",
		"",
		"  - too few high-GC guides",
		"- salvaged-from: c006 <!-- the killed claim -->",
		"- created: 2026-02-01",
		"- created-cycle: 4",
		"- triage-deadline-cycle: 9",
		"- unknown-key: ignored",
		"Free notes follow.",
		"  - an indented bullet in notes is ignored",
		"",
		"```markdown",
		"## SEED-20260201-009: inside a fence, not a seed",
		"```",
		"<!--",
		"## SEED-20260201-010: inside a comment, not a seed",
		"-->",
		"## Notes (not a seed)",
		"- status: KILLED",
	}, "\n")
	seeds, errs := Parse([]byte(content))
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	four, nine, thirteen := 4, 9, 13
	want := []Seed{{ID: "SEED-20260201-001", Title: "Bold keys and loose values", Status: StatusPendingTriage,
		Source: SourceSalvaged, Score: &thirteen, CausalQuestion: "Does GC content drive coverage?",
		DiscriminatingTest: "Stratify by GC tertile",
		Falsifiers:         []string{"GC tracks site count", "one study dominates", "too few high-GC guides"},
		SalvagedFrom:       "C-006", Created: "2026-02-01", CreatedCycle: &four, TriageDeadlineCycle: &nine, Line: 5}}
	if !reflect.DeepEqual(seeds, want) {
		t.Errorf("got  %+v\nwant %+v", seeds, want)
	}
}

func TestParseProblems(t *testing.T) {
	content := strings.Join([]string{
		"## SEED-20260301-001: Good",
		"- status: QUEUED",
		"- source: USER",
		"- score: 5",
		"- causal-question: q",
		"- discriminating-test: t",
		"- falsifiers: a; b; c",
		"- created: 2026-03-01",
		"## SEED-20260301-001: Same id again",
		"- status: DONE",
		"- status: QUEUED",
		"- source: robot",
		"- score: 21",
		"- salvaged-from: SEED-1",
		"- created: March 1",
		"- created-cycle: -1",
		"## SEED-20261301-002: Month 13",
	}, "\n")
	seeds, errs := Parse([]byte(content))
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`SERENDIPITY.md line 9: SEED-20260301-001: the id is already used at line 1; give this seed the next free number`,
		`SERENDIPITY.md line 10: SEED-20260301-001: status must be one of PENDING_TRIAGE, QUEUED, TESTING, KILLED, PROMOTED_TO_CLAIM, not "DONE"`,
		`SERENDIPITY.md line 11: SEED-20260301-001: status is given twice; keep one line`,
		`SERENDIPITY.md line 12: SEED-20260301-001: source must be one of SCANNER, SALVAGED_FROM_R2, CROSS_BRANCH, USER, not "robot"`,
		`SERENDIPITY.md line 13: SEED-20260301-001: score must be an integer 0-20, not "21"`,
		`SERENDIPITY.md line 14: SEED-20260301-001: salvaged-from must be a claim id like C-006, not "SEED-1"`,
		`SERENDIPITY.md line 15: SEED-20260301-001: created must be a date YYYY-MM-DD, not "March 1"`,
		`SERENDIPITY.md line 16: SEED-20260301-001: created-cycle must be a whole number of cycles, not "-1"`,
		`SERENDIPITY.md line 9: SEED-20260301-001: causal-question is required: add "- causal-question: <what might cause what>"`,
		`SERENDIPITY.md line 9: SEED-20260301-001: discriminating-test is required: add "- discriminating-test: <the one test that would tell>"`,
		`SERENDIPITY.md line 9: SEED-20260301-001: at least 3 falsifiers are required (found 0): list ways the pattern could be an illusion`,
		`SERENDIPITY.md line 17: SEED-20261301-002: id must be SEED-YYYYMMDD-NNN (the creation date and a 3-digit number), not "SEED-20261301-002"`,
		`SERENDIPITY.md line 17: SEED-20261301-002: status is required: add "- status: PENDING_TRIAGE"`,
		`SERENDIPITY.md line 17: SEED-20261301-002: source is required: add "- source: SCANNER"`,
		`SERENDIPITY.md line 17: SEED-20261301-002: score is required: add "- score: <0-20>"`,
		`SERENDIPITY.md line 17: SEED-20261301-002: causal-question is required: add "- causal-question: <what might cause what>"`,
		`SERENDIPITY.md line 17: SEED-20261301-002: discriminating-test is required: add "- discriminating-test: <the one test that would tell>"`,
		`SERENDIPITY.md line 17: SEED-20261301-002: at least 3 falsifiers are required (found 0): list ways the pattern could be an illusion`,
		`SERENDIPITY.md line 17: SEED-20261301-002: created is required: add "- created: YYYY-MM-DD"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
	if len(seeds) != 3 || !seeds[0].Valid() || seeds[1].Valid() || seeds[2].Valid() {
		t.Errorf("validity: %d seeds", len(seeds))
	}
}
