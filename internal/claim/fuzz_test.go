package claim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addDocSeeds seeds a fuzz target with the fenced examples of a format
// document, so fuzzing starts from real ledgers and reviews.
func addDocSeeds(f *testing.F, doc string) {
	raw, err := os.ReadFile(filepath.Join(formatsDir, doc))
	if err != nil {
		f.Fatalf("read %s: %v", doc, err)
	}
	f.Add(raw)
	for i, part := range strings.Split(string(raw), "```") {
		if i%2 == 1 {
			f.Add([]byte(part))
		}
	}
}

func FuzzParseLedger(f *testing.F) {
	addDocSeeds(f, "claim-ledger.md")
	for _, s := range []string{
		"", "#", "## ", "## C", "## C-", "## C-001", "|", "| id | status |\n|---|---|\n| C-001 |",
		"## C-001: x\n- evidence:\n  -\n  - a", "## C-001: x\n- confidence: NaN\n- confidence: 1e309",
		"<!--", "```", "## C-001: x\n**", "\ufeff\r\n## c001\r\n- STATUS: killed\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		l, errs := ParseLedger(content)
		lines := bytes.Count(content, []byte("\n")) + 1
		seen := map[string]bool{}
		for _, c := range l.Claims {
			if !isClaimID(c.ID) || seen[c.ID] {
				t.Fatalf("claim id %q is not canonical or repeats", c.ID)
			}
			seen[c.ID] = true
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("claim %s on line %d of %d", c.ID, c.Line, lines)
			}
			if c.Tier < 0 || c.Tier > MaxTier || EffectiveTier(c) != c.Tier {
				t.Fatalf("claim %s has tier %d (effective %d)", c.ID, c.Tier, EffectiveTier(c))
			}
			if c.HasConfidence && (c.Confidence < 0 || c.Confidence > 1) {
				t.Fatalf("claim %s has confidence %v", c.ID, c.Confidence)
			}
			for _, d := range c.DependsOn {
				if !isClaimID(d) {
					t.Fatalf("claim %s depends on %q", c.ID, d)
				}
			}
		}
		for _, e := range errs {
			pe, ok := e.(*ParseError)
			if !ok || pe.Line < 1 || pe.Line > lines || pe.Msg == "" {
				t.Fatalf("bad error %#v", e)
			}
		}
		if ev := Diff(l, l); len(ev) != 0 {
			t.Fatalf("a ledger compared with itself gives events %v", ev)
		}
		created := 0
		for _, e := range Diff(Ledger{}, l) {
			if e.Type == EventCreated {
				created++
			}
		}
		if created != len(l.Claims) {
			t.Fatalf("%d claims but %d CREATED events", len(l.Claims), created)
		}
		g := BuildGraph(l, map[string][]byte{"05-reviewer2/r.md": content})
		g.Cycles()
		for _, c := range l.Claims {
			CycleVerdict(c.ID, g.SupportCycles(c.ID), true)
		}
	})
}

func FuzzCitedClaims(f *testing.F) {
	addDocSeeds(f, "review-report.md")
	for _, s := range []string{"", "C", "C-", "C-00", "C-001", "c001", "xC-001", "C-001x", "C-0012f", "Ç-001", "C\x00-001"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		ids := CitedClaims(content)
		for i, id := range ids {
			if !isClaimID(id) {
				t.Fatalf("cited %q is not a canonical claim id", id)
			}
			if i > 0 && compareIDs(ids[i-1], id) >= 0 {
				t.Fatalf("citations %q are not sorted and unique", ids)
			}
			if !bytes.Contains(content, []byte(id[2:])) {
				t.Fatalf("cited %s but its digits are not in the content", id)
			}
		}
		// Listing the citations again cites exactly the same claims.
		again := CitedClaims([]byte(strings.Join(ids, " ")))
		if strings.Join(again, " ") != strings.Join(ids, " ") {
			t.Fatalf("re-citing %q gives %q", ids, again)
		}
	})
}
