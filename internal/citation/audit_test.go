package citation

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

const findings = `# Findings: RQ-001

## F1: GUIDE-seq profiles off-target cleavage

As in Tsai et al. (doi:10.1038/nbt.3117) and PMID 25513782, and again 10.1038/nbt.3117.
Our model follows the invented doi:10.9999/fabricated.2021.001 and PMID 99999999.
See https://doi.org/10.1038/NBT.3117 once more.
`

func TestCites(t *testing.T) {
	got := Cites([]byte(findings))
	want := []Cite{{"10.1038/nbt.3117", 5}, {"PMID:25513782", 5}, {"10.9999/fabricated.2021.001", 6}, {"PMID:99999999", 6},
		{"10.1038/nbt.3117", 7}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cites = %v\nwant %v", got, want)
	}
	if ids := IDsOf(got); !reflect.DeepEqual(ids, []string{"10.1038/nbt.3117", "PMID:25513782", "10.9999/fabricated.2021.001", "PMID:99999999"}) {
		t.Errorf("IDsOf = %q", ids)
	}
}

func TestAudit(t *testing.T) {
	files := []File{{Rel: "RQ-001/04-results/FINDINGS.md", Kind: "findings", Content: []byte(findings)},
		{Rel: ".vibe-science/CLAIM-LEDGER.md", Kind: "ledger", Content: []byte("## C-001: x\n- evidence: PMID:25513782, arXiv:1706.03762\n")}}
	search := record.PaperSource{PaperID: "10.1038/nbt.3117", SearchID: 4, SessionID: "s1", Layer: "WEBSEARCH", Query: "GUIDE-seq"}
	added := record.PaperSource{PaperID: "PMID:25513782", Layer: record.PaperAdded, Title: "GUIDE-seq"}
	got := Audit(files, map[string][]record.PaperSource{"10.1038/nbt.3117": {search}, "PMID:25513782": {added}}, now)
	var lines []string
	for _, e := range got {
		var where []string
		for _, w := range e.Cited {
			where = append(where, w.File+":"+string(rune('0'+w.Line)))
		}
		lines = append(lines, e.Status+" "+e.ID+" "+e.Kind+" "+strings.Join(where, ",")+" "+e.Problem.Reason)
	}
	want := []string{
		"invalid 10.9999/fabricated.2021.001 doi RQ-001/04-results/FINDINGS.md:6 its prefix 10.9999 is a prefix no registration agency has assigned, the usual placeholder of invented references",
		"invalid PMID:99999999 pmid RQ-001/04-results/FINDINGS.md:6 PubMed has assigned no id above 50,000,000 by 2026",
		"unretrieved arXiv:1706.03762 arxiv .vibe-science/CLAIM-LEDGER.md:2 ",
		"retrieved 10.1038/nbt.3117 doi RQ-001/04-results/FINDINGS.md:5,RQ-001/04-results/FINDINGS.md:7 ",
		"retrieved PMID:25513782 pmid RQ-001/04-results/FINDINGS.md:5,.vibe-science/CLAIM-LEDGER.md:2 ",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("Audit:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got[3].From[0] != search || got[4].From[0] != added {
		t.Errorf("sources: %+v %+v", got[3].From, got[4].From)
	}
}

func TestVerdicts(t *testing.T) {
	fs := Unvouched(Cites([]byte(findings)), map[string]bool{"10.1038/nbt.3117": true, "PMID:25513782": true}, now)
	if len(fs) != 2 {
		t.Fatalf("Unvouched = %+v", fs)
	}
	w := WrittenVerdict("RQ-001/04-results/FINDINGS.md", fs)
	wantReason := "RQ-001/04-results/FINDINGS.md cites 2 paper ids vibe cannot vouch for: doi:10.9999/fabricated.2021.001 (line 6) cannot exist: " +
		"its prefix 10.9999 is a prefix no registration agency has assigned, the usual placeholder of invented references, and no recorded literature search retrieved it; " +
		"PMID 99999999 (line 6) cannot exist: PubMed has assigned no id above 50,000,000 by 2026, and no recorded literature search retrieved it. " +
		"A model can invent a plausible reference; only a paper that was retrieved is on the record."
	if w.Result != verdict.Warn || w.Check != CheckCitation || w.Reason != wantReason {
		t.Errorf("WrittenVerdict = %s %s %q\nwant %q", w.Check, w.Result, w.Reason, wantReason)
	}
	if want := "Correct an id that cannot exist from the paper itself, or remove the citation. A claim promoted on them is blocked until then; `vibe citations` lists every citation."; w.Recommendation != want {
		t.Errorf("recommendation %q", w.Recommendation)
	}
	un := Unvouched([]Cite{{"arXiv:1706.03762", 3}}, nil, now)
	b := PromotionVerdict("C-001", "PROMOTED", ".vibe-science/CLAIM-LEDGER.md", un)
	wantB := "C-001 cannot become PROMOTED while it cites papers vibe cannot vouch for: arXiv:1706.03762 (line 3 of .vibe-science/CLAIM-LEDGER.md) " +
		"was retrieved by no literature search vibe recorded in this project. A claim rests on what was read, not on a reference that may have been invented."
	if b.Result != verdict.Block || b.Reason != wantB || !reflect.DeepEqual(b.Evidence.Claims, []string{"C-001"}) {
		t.Errorf("PromotionVerdict = %s %q", b.Result, b.Reason)
	}
	wantFix := "Look each paper up so vibe records it (WebFetch https://arxiv.org/abs/1706.03762, or a literature search whose results carry the id); " +
		"if the researcher holds a paper, they add it with `vibe citations add ID --title \"...\"`; then promote C-001 again."
	if b.Recommendation != wantFix {
		t.Errorf("recommendation %q\nwant %q", b.Recommendation, wantFix)
	}
}
