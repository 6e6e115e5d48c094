package claim

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// formatsDir is where the documents that describe the formats live; the tests
// read them from disk so a document and the parser cannot drift apart.
var formatsDir = filepath.Join("..", "..", "skill", "vibe", "formats")

// docBlocks returns the fenced blocks of a document that follow an
// annotation comment, keyed by the comment: `<!-- example: name -->` then a
// fence gives "example: name".
func docBlocks(t *testing.T, name string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(formatsDir, name))
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	lines := strings.Split(string(raw), "\n")
	blocks := map[string]string{}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "<!-- ") || !strings.HasSuffix(l, " -->") {
			continue
		}
		key := strings.TrimSuffix(strings.TrimPrefix(l, "<!-- "), " -->")
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) || !strings.HasPrefix(lines[j], "```") {
			t.Fatalf("%s line %d: annotation %q is not followed by a fenced block", name, i+1, key)
		}
		var body []string
		k := j + 1
		for ; k < len(lines) && !strings.HasPrefix(lines[k], "```"); k++ {
			body = append(body, lines[k])
		}
		if k >= len(lines) {
			t.Fatalf("%s line %d: fenced block never closes", name, j+1)
		}
		if _, dup := blocks[key]; dup {
			t.Fatalf("%s: annotation %q used twice", name, key)
		}
		blocks[key] = strings.Join(body, "\n") + "\n"
		i = k
	}
	return blocks
}

// summarize renders a claim the way the format document prints it.
func summarize(c Claim) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s line %d %q", c.ID, c.Line, c.Title)
	if c.Status != "" {
		b.WriteString(" status=" + c.Status)
	}
	if c.Type != "" {
		b.WriteString(" type=" + c.Type)
	}
	fmt.Fprintf(&b, " tier=%d", c.Tier)
	if c.HasConfidence {
		b.WriteString(" confidence=" + formatConfidence(c.Confidence))
	}
	if len(c.Evidence) > 0 {
		b.WriteString(" evidence=[" + strings.Join(c.Evidence, " ") + "]")
	}
	if len(c.DependsOn) > 0 {
		b.WriteString(" depends-on=[" + strings.Join(c.DependsOn, " ") + "]")
	}
	if c.KillReason != "" {
		b.WriteString(" kill-reason=" + c.KillReason)
	}
	if c.SalvagedSeed != "" {
		b.WriteString(" salvaged-seed=" + c.SalvagedSeed)
	}
	return b.String()
}

func renderParse(l Ledger, errs []error) string {
	var b strings.Builder
	for _, c := range l.Claims {
		b.WriteString(summarize(c) + "\n")
	}
	for _, e := range errs {
		b.WriteString("error: " + e.Error() + "\n")
	}
	return b.String()
}

func keys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestClaimLedgerDocExamples(t *testing.T) {
	blocks := docBlocks(t, "claim-ledger.md")
	want := []string{
		"events: edit-before edit-after",
		"example: edit-after", "example: edit-before", "example: heading-form",
		"example: malformed", "example: table-form", "example: tolerant",
		"parsed: heading-form", "parsed: malformed", "parsed: table-form", "parsed: tolerant",
	}
	if got := keys(blocks); !reflect.DeepEqual(got, want) {
		t.Fatalf("annotated blocks = %q\nwant %q", got, want)
	}
	for _, name := range []string{"heading-form", "table-form", "tolerant", "malformed"} {
		t.Run(name, func(t *testing.T) {
			l, errs := ParseLedger([]byte(blocks["example: "+name]))
			if got, want := renderParse(l, errs), blocks["parsed: "+name]; got != want {
				t.Errorf("parse of example %s:\n%s\nthe document says:\n%s", name, got, want)
			}
			if name != "malformed" && len(errs) != 0 {
				t.Errorf("example %s should parse cleanly, got %v", name, errs)
			}
		})
	}
	t.Run("events", func(t *testing.T) {
		before, errs := ParseLedger([]byte(blocks["example: edit-before"]))
		if len(errs) != 0 {
			t.Fatalf("edit-before: %v", errs)
		}
		after, errs := ParseLedger([]byte(blocks["example: edit-after"]))
		if len(errs) != 0 {
			t.Fatalf("edit-after: %v", errs)
		}
		events := Diff(before, after)
		var b strings.Builder
		for _, e := range events {
			b.WriteString(e.Type + " " + e.Narrative + "\n")
		}
		for _, id := range Promotions(events) {
			c, _ := after.Find(id)
			b.WriteString("gates " + id + ": " + strings.Join(RequiredGates(c, nil), ", ") + "\n")
		}
		if got, want := b.String(), blocks["events: edit-before edit-after"]; got != want {
			t.Errorf("events of the documented edit:\n%s\nthe document says:\n%s", got, want)
		}
	})
}

func TestClaimLedgerDocHeadingFormFields(t *testing.T) {
	// Field-level assertions on the main example, independent of the
	// rendering above, so a renderer bug cannot hide a parser bug.
	blocks := docBlocks(t, "claim-ledger.md")
	l, errs := ParseLedger([]byte(blocks["example: heading-form"]))
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := []Claim{
		{ID: "C-000", Title: "Guide RNAs in the panel bind their intended loci", Status: StatusVerified, Type: TypeDescriptive, Tier: 0,
			Confidence: 0.91, HasConfidence: true,
			Evidence: []string{"RQ-001-offtarget/FINDINGS.json#on_target_rate", "RQ-001-offtarget/FINDINGS.md"}, Line: 3},
		{ID: "C-001", Title: "Off-target rate rises with mismatch count", Status: StatusProvisional, Type: TypeCorrelative, Tier: 1,
			Confidence: 0.62, HasConfidence: true,
			Evidence: []string{"RQ-001-offtarget/FINDINGS.json#spearman_rho"}, DependsOn: []string{"C-000"}, Line: 9},
		{ID: "C-002", Title: "Mismatch count causes the off-target rise", Status: StatusKilled, Type: TypeCausal, Tier: 3,
			Confidence: 0.2, HasConfidence: true,
			Evidence: []string{"RQ-001-offtarget/04-validation/C-002-harness.json"}, DependsOn: []string{"C-001"},
			KillReason: KillConfounded, SalvagedSeed: "SEED-20260101-001", Line: 18},
	}
	if !reflect.DeepEqual(l.Claims, want) {
		t.Errorf("claims:\n%#v\nwant\n%#v", l.Claims, want)
	}
}

func TestReviewReportDocExamples(t *testing.T) {
	blocks := docBlocks(t, "review-report.md")
	names := []string{"json", "markdown", "not-citations", "yaml"}
	var want []string
	for _, n := range names {
		want = append(want, "cites: "+n)
	}
	for _, n := range names {
		want = append(want, "example: "+n)
	}
	sort.Strings(want)
	if got := keys(blocks); !reflect.DeepEqual(got, want) {
		t.Fatalf("annotated blocks = %q\nwant %q", got, want)
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			got := strings.Join(CitedClaims([]byte(blocks["example: "+n])), ", ")
			if got == "" {
				got = "(none)"
			}
			if want := strings.TrimSpace(blocks["cites: "+n]); got != want {
				t.Errorf("example %s cites %q; the document says %q", n, got, want)
			}
		})
	}
}
