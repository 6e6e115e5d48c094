package handler_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/handler"
)

// searchTwoPapers is a web search whose results carry two real papers'
// DOIs, as a literature search does.
func (r *rig) searchTwoPapers() string {
	return r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "WebSearch", "tool_use_id": "toolu_search",
		"tool_input": map[string]any{"query": "GUIDE-seq off-target profiling sgRNA design rules"},
		"tool_response": map[string]any{"query": "GUIDE-seq off-target profiling sgRNA design rules", "results": []any{map[string]any{"tool_use_id": "srvtoolu_01",
			"content": []any{
				map[string]any{"title": "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases", "url": "https://doi.org/10.1038/nbt.3117"},
				map[string]any{"title": "Optimized sgRNA design to maximize activity and minimize off-target effects of CRISPR-Cas9", "url": "https://doi.org/10.1038/nbt.3437"},
			}}}}})
}

const citingFindings = `# Findings: RQ-001
<!-- source: FINDINGS.json -->

## F1: mismatches predict cleavage

Off-target sites were profiled as in Tsai et al. (doi:10.1038/nbt.3117), guides scored by Doench et al. (doi:10.1038/nbt.3437).
A model on mismatch features reaches AUC 0.81, in line with doi:10.9999/fabricated.2021.001.
`

const citingLedger = `# Claim ledger

## C-001: Mismatch count predicts cleavage
- status: PROVISIONAL
- type: correlative
- evidence: RQ-001/04-results/FINDINGS.json
- literature: doi:10.9999/fabricated.2021.001

## C-002: GUIDE-seq sites follow the design rules
- status: PROVISIONAL
- type: correlative
- evidence: RQ-001/04-results/FINDINGS.json
- literature: doi:10.1038/nbt.3117, doi:10.1038/nbt.3437
`

// TestHallucinatedReferenceIsFlagged is issue 34's acceptance scenario:
// the agent searched for two real papers and cites them in FINDINGS.md
// with one it invented. Only the invented one is flagged, by id, once per
// file and session; promoting a claim on it is refused, while a claim
// citing only the real ones is not held back by its citations.
func TestHallucinatedReferenceIsFlagged(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("this test runs a python3 script; install python3")
	}
	r := newRig(t)
	r.write(".vibe-science/RQ-001/04-results/FINDINGS.json", `{"F1": {"auc": 0.81}}`)
	r.write(".vibe-science/CLAIM-LEDGER.md", citingLedger)
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	r.bash("ls")
	if out := r.searchTwoPapers(); out != "" {
		t.Fatalf("the search drew a reply: %s", out)
	}

	post := r.writeAs("", ".vibe-science/RQ-001/04-results/FINDINGS.md", citingFindings)
	want := `.vibe-science/RQ-001/04-results/FINDINGS.md cites a paper id vibe cannot vouch for: doi:10.9999/fabricated.2021.001 (line 7) cannot exist: ` +
		`its prefix 10.9999 is a prefix no registration agency has assigned, the usual placeholder of invented references, and no recorded literature search retrieved it.`
	if !strings.Contains(post, want) || strings.Contains(post, `"block"`) || strings.Count(post, "cannot vouch for") != 1 {
		t.Fatalf("FINDINGS.md citing two searched papers and an invented one: want one warning naming only the invented id\n%s\nwant %s", post, want)
	}
	for _, real := range []string{"nbt.3117", "nbt.3437"} {
		if strings.Contains(post, real) {
			t.Errorf("the warning names %s, a paper the session retrieved: %s", real, post)
		}
	}
	if post := r.writeAs("", ".vibe-science/RQ-001/04-results/FINDINGS.md", citingFindings+"\nRead once more.\n"); strings.Contains(post, "cannot vouch") {
		t.Errorf("the same id in the same file was warned about twice in a session: %s", post)
	}

	// A script appending a citation is judged on disk as a Write is.
	_, post = r.bash(`printf 'Calibration follows arXiv:2101.00001.\n' >> .vibe-science/RQ-001/04-results/FINDINGS.md`)
	if !strings.Contains(post, "arXiv:2101.00001 (line 10) was retrieved by no literature search vibe recorded in this project") ||
		strings.Contains(post, "10.9999") || strings.Contains(post, `"block"`) {
		t.Errorf("a script citing an unretrieved arXiv id: want a warning naming only it: %s", post)
	}
	// A fetch that failed (the 404 of an invented DOI) retrieved nothing.
	r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "WebFetch", "tool_use_id": "toolu_fetch",
		"tool_input": map[string]any{"url": "https://doi.org/10.1038/s41586-099-0000-1", "prompt": "title"}, "error": "Request failed with status code 404"})
	got, err := r.store().Retrieved(context.Background(), r.root, []string{"10.1038/s41586-099-0000-1", "10.1038/nbt.3117"})
	if err != nil || len(got) != 1 || !got["10.1038/nbt.3117"] {
		t.Errorf("retrieved after a failed fetch: %v %v", got, err)
	}

	r.pass("C-001", "DQ4", "DC0", "DQ1", "D1")
	r.pass("C-002", "DQ4", "DC0", "DQ1", "D1")
	r.writeAs("vibe:reviewer2", ".vibe-science/RQ-001/05-reviewer2/R2-20261128-001.md",
		"# R2 review\n\n## C-001: Mismatch count predicts cleavage\n- verdict: ACCEPT\n\n## C-002: GUIDE-seq sites follow the design rules\n- verdict: ACCEPT\n")

	promote := func(id string) string {
		promoted := strings.Replace(citingLedger, "## "+id+":", "## "+id+":", 1)
		i := strings.Index(promoted, "## "+id+":")
		promoted = promoted[:i] + strings.Replace(promoted[i:], "status: PROVISIONAL", "status: PROMOTED", 1)
		return r.hook(handler.PreToolUse, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_promote_" + id,
			"tool_input": map[string]any{"file_path": filepath.Join(r.root, ".vibe-science/CLAIM-LEDGER.md"), "content": promoted}})
	}
	pre := promote("C-001")
	wantBlock := "C-001 cannot become PROMOTED while it cites papers vibe cannot vouch for: doi:10.9999/fabricated.2021.001 (line 7 of .vibe-science/CLAIM-LEDGER.md) cannot exist"
	if !strings.Contains(pre, `"permissionDecision":"deny"`) || !strings.Contains(pre, wantBlock) {
		t.Fatalf("promoting a claim on the invented paper: want it denied with %q\n%s", wantBlock, pre)
	}
	if strings.Contains(pre, "gates not passed") || strings.Contains(pre, "no Reviewer 2") {
		t.Errorf("the gates and the review are there; only the citation should block: %s", pre)
	}
	if pre := promote("C-002"); strings.Contains(pre, "deny") || strings.Contains(pre, "vouch") {
		t.Errorf("a claim citing only retrieved papers was held back: %s", pre)
	}

	// A script's promotion is judged on disk by the same rule: put back.
	r.write("promote.py", `import pathlib
p = pathlib.Path(".vibe-science/CLAIM-LEDGER.md")
t = p.read_text()
i = t.index("## C-001")
p.write_text(t[:i] + t[i:].replace("status: PROVISIONAL", "status: PROMOTED", 1))
`)
	_, post = r.bash("python3 promote.py")
	if !strings.Contains(post, `"decision":"block"`) || !strings.Contains(post, "C-001 cannot become PROMOTED while it cites papers vibe cannot vouch for") {
		t.Errorf("a script promoting C-001 on the invented paper: %s", post)
	}
	if got := r.read(".vibe-science/CLAIM-LEDGER.md"); got != citingLedger {
		t.Errorf("the ledger was not put back:\n%s", got)
	}
}
