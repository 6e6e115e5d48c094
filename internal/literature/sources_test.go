package literature

import (
	"reflect"
	"testing"
)

func TestRecommendedLine(t *testing.T) {
	tests := []struct{ domain, want string }{
		{"crispr-off-target", "[BLUEPRINT] Domain: crispr-off-target. Search first: PubMed, bioRxiv, PMC. Config: .vibe-science/domain-config.json"},
		{"photonics-integrated", "[BLUEPRINT] Domain: photonics-integrated. Search first: Optica, SPIE, IEEE Xplore. Config: .vibe-science/domain-config.json"},
		{"particle-physics", "[BLUEPRINT] Domain: particle-physics. Search first: INSPIRE-HEP, arXiv, CERN CDS. Config: .vibe-science/domain-config.json"},
		{"generic", "[BLUEPRINT] Domain: generic. Search first: OpenAlex, Semantic Scholar, Crossref. Config: .vibe-science/domain-config.json"},
		{"astro", "[BLUEPRINT] Domain: astro is not a shipped domain; run `vibe domain show` and fix .vibe-science/domain-config.json."},
		{"../etc", "[BLUEPRINT] Domain: ../etc is not a shipped domain; run `vibe domain show` and fix .vibe-science/domain-config.json."},
	}
	for _, tt := range tests {
		if got := RecommendedLine(tt.domain); got != tt.want {
			t.Errorf("RecommendedLine(%q)\n got %q\nwant %q", tt.domain, got, tt.want)
		}
	}
	if got, want := Line("my-lab", []string{"nasa_ads", "my_wiki"}, true),
		"[BLUEPRINT] Domain: my-lab. Search first: NASA ADS, my_wiki. Config: .vibe-science/domain-config.json"; got != want {
		t.Errorf("Line: %q", got)
	}
	if got, want := Line("generic", []string{"openalex"}, false),
		"[BLUEPRINT] Domain: generic (no .vibe-science/domain-config.json; `vibe init --domain NAME` writes one). Search first: OpenAlex"; got != want {
		t.Errorf("Line without a config: %q", got)
	}
}

func TestShippedSources(t *testing.T) {
	got, err := ShippedSources("photonics-integrated")
	if err != nil {
		t.Fatal(err)
	}
	rag := "notebooklm"
	want := DomainSources{Domain: "photonics-integrated", Primary: []string{"optica", "spie", "ieee_xplore"},
		Secondary: []string{"openalex", "semantic_scholar", "arxiv"}, Datasets: []string{"materials_project", "nist_asd"},
		Preprints: []string{"arxiv"}, Grey: []string{}, CuratedRAG: &rag}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := ShippedSources(""); err == nil {
		t.Error("empty name must fail")
	}
}
