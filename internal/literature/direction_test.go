package literature

import (
	"reflect"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

func TestIsDirection(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		content string
		want    bool
	}{
		{"file named direction", "RQ-001-x/00-brainstorm/direction.md", "anything", true},
		{"name contains direction, json", "00-brainstorm/research-direction-v2.JSON", "{}", true},
		{"direction folder only", "01-direction/notes.md", "plain notes", false},
		{"code file named direction", "src/direction.py", "x = 1", false},
		{"heading", "00-brainstorm/plan.md", "# Plan\n\n## Research direction\nConformal sets for off-target.\n", true},
		{"heading with suffix, lower case, indented", "plan.md", "   ## research Direction: CP for off-target\n", true},
		{"level-3 heading does not count", "plan.md", "### Research direction\n", false},
		{"heading in a fence", "notes.md", "```markdown\n## Research direction\n```\n", false},
		{"heading in a comment", "notes.md", "<!--\n## Research direction\n-->\n", false},
		{"other heading", "plan.md", "## Research directions considered and dropped\n", true},
		{"not a heading", "plan.md", "We need a research direction soon.\n", false},
		{"tree node json", "TREE-STATE.json", `{"nodes":[{"id":"n1","node_type" : "direction"}]}`, true},
		{"tree node yaml", "tree.yaml", "nodes:\n  - id: n1\n    node_type: direction\n", true},
		{"tree node of another type", "TREE-STATE.json", `{"nodes":[{"node_type":"draft"},{"node_type":"directional"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDirection(tt.path, []byte(tt.content)); got != tt.want {
				t.Errorf("IsDirection(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestIsDirectionChange(t *testing.T) {
	tree := `{"nodes":[{"id":"n1","node_type":"direction","plan":"CP"},{"id":"n2","node_type":"draft","score":1}]}`
	tests := []struct {
		name     string
		path     string
		old, new string
		want     bool
	}{
		{"new direction file", "direction.md", "", "CP for off-target", true},
		{"direction file unchanged", "direction.md", "same", "same", false},
		{"tree: only a draft node changes", "TREE-STATE.json", tree,
			`{"nodes":[{"id":"n1","node_type":"direction","plan":"CP"},{"id":"n2","node_type":"draft","score":2}]}`, false},
		{"tree: direction node changes", "TREE-STATE.json", tree,
			`{"nodes":[{"id":"n1","node_type":"direction","plan":"CP+bulges"},{"id":"n2","node_type":"draft","score":1}]}`, true},
		{"tree: direction node added", "TREE-STATE.json", `{"nodes":[]}`, tree, true},
		{"tree: direction node removed", "TREE-STATE.json", tree, `{"nodes":[{"id":"n2","node_type":"draft","score":1}]}`, false},
		{"yaml tree changed", "tree.yaml", "node_type: direction\nplan: a\n", "node_type: direction\nplan: b\n", true},
		{"section unchanged, other text edited", "plan.md", "## Research direction\nCP\n## Log\na\n", "## Research direction\nCP\n## Log\nb\n", false},
		{"section edited", "plan.md", "## Research direction\nCP\n", "## Research direction\nCP with bulges\n", true},
		{"section added", "plan.md", "# Plan\n", "# Plan\n## Research direction\nCP\n", true},
		{"no direction at all", "plan.md", "a", "b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDirectionChange(tt.path, []byte(tt.old), []byte(tt.new)); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDirectionVerdict(t *testing.T) {
	pass := DirectionVerdict(true, "crispr-off-target", []string{"pubmed", "biorxiv", "pmc"})
	if pass.Check != CheckDirection || pass.Result != verdict.Pass {
		t.Errorf("with a search: %+v", pass)
	}
	v := DirectionVerdict(false, "crispr-off-target", []string{"pubmed", "biorxiv", "pmc"})
	wantReason := "No literature search is recorded in this session, and gate L-1 requires one before a research direction is written: search PubMed, bioRxiv, PMC (domain crispr-off-target) for the exact method-application intersection first, then write the direction again."
	if v.Result != verdict.Block || v.Severity != verdict.High || v.Reason != wantReason {
		t.Errorf("got %s %s %q", v.Result, v.Severity, v.Reason)
	}
	if want := "Search PubMed, bioRxiv, PMC with WebSearch or WebFetch, a literature MCP tool, or /vibe:search, then retry this write."; v.Recommendation != want {
		t.Errorf("recommendation %q", v.Recommendation)
	}
	if v.DecisionHash == pass.DecisionHash || v.DecisionHash == "" {
		t.Error("pass and block must hash differently")
	}
	none := DirectionVerdict(false, "custom", nil)
	if want := "No literature search is recorded in this session, and gate L-1 requires one before a research direction is written: search the domain's sources (see `vibe literature sources`) (domain custom) for the exact method-application intersection first, then write the direction again."; none.Reason != want {
		t.Errorf("no sources: %q", none.Reason)
	}
}

func TestDroughtVerdict(t *testing.T) {
	tests := []struct {
		actions int
		want    verdict.Result
	}{{0, verdict.Pass}, {29, verdict.Pass}, {30, verdict.Warn}, {57, verdict.Warn}}
	for _, tt := range tests {
		v := DroughtVerdict(tt.actions, "particle-physics", []string{"inspire_hep", "arxiv", "cern_cds"})
		if v.Result != tt.want || v.Check != CheckDrought {
			t.Errorf("%d actions: %s %s", tt.actions, v.Check, v.Result)
		}
	}
	v := DroughtVerdict(34, "particle-physics", []string{"inspire_hep", "arxiv", "cern_cds"})
	want := "No literature search for 3 cycles (34 actions; a cycle is 10 actions), so the work may rest on stale knowledge (L-1 in the loop): search INSPIRE-HEP, arXiv, CERN CDS before the next claim."
	if v.Reason != want || v.Severity != verdict.Med || !reflect.DeepEqual(v.Evidence.Numbers, []string{"34"}) {
		t.Errorf("got %q %s %v", v.Reason, v.Severity, v.Evidence.Numbers)
	}
}
