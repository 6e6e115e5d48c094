package claim

import "testing"

func TestEntry(t *testing.T) {
	content := "# Claim ledger\n\n## C-001: First\n- status: PROMOTED\n- type: descriptive\n- evidence: doi:10.1038/nbt.3117\n\nProse under it, PMID 25513782.\n" +
		"### C-002: Second\n- status: PROVISIONAL\n\n## Retired claims\nNot C-002's: doi:10.9999/x\n\n" +
		"| id | status | type | evidence |\n|---|---|---|---|\n| C-003 | PROMOTED | causal | arXiv:1706.03762 |\n| C-004 | PROVISIONAL | | |\n"
	l, errs := ParseLedger([]byte(content))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := map[string]struct {
		text  string
		first int
	}{
		"C-001": {"## C-001: First\n- status: PROMOTED\n- type: descriptive\n- evidence: doi:10.1038/nbt.3117\n\nProse under it, PMID 25513782.", 3},
		"C-002": {"### C-002: Second\n- status: PROVISIONAL\n", 9},
		"C-003": {"| C-003 | PROMOTED | causal | arXiv:1706.03762 |", 17},
		"C-004": {"| C-004 | PROVISIONAL | | |", 18},
	}
	for id, w := range want {
		c, ok := l.Find(id)
		if !ok {
			t.Fatalf("%s not parsed", id)
		}
		if text, first := l.Entry([]byte(content), c); text != w.text || first != w.first {
			t.Errorf("%s: Entry = %q line %d\nwant %q line %d", id, text, first, w.text, w.first)
		}
	}
}
