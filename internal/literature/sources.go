package literature

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vibe-science/vibe/blueprints"
)

// DomainConfigPath is where a project picks its domain (the same file gate
// reads); the [BLUEPRINT] line points people to it.
const DomainConfigPath = ".vibe-science/domain-config.json"

// DomainSources is the literature section of a domain config.
type DomainSources struct {
	Domain     string   `json:"domain"`
	Primary    []string `json:"primary"`
	Secondary  []string `json:"secondary"`
	Datasets   []string `json:"datasets"`
	Preprints  []string `json:"preprints"`
	Grey       []string `json:"grey"`
	CuratedRAG *string  `json:"curated_rag"`
}

// ShippedSources reads the literature section of a domain shipped in
// blueprints/domains/. It reads the file itself rather than through the gate
// package, so gate may depend on this package without a cycle; a project's
// own overrides come from gate.LoadDomain, and Line takes them.
func ShippedSources(domain string) (DomainSources, error) {
	if domain == "" || strings.ContainsAny(domain, "/\\.") {
		return DomainSources{}, fmt.Errorf("domain sources: %q is not a domain name", domain)
	}
	raw, err := fs.ReadFile(blueprints.FS, "domains/"+domain+".json")
	if err != nil {
		return DomainSources{}, fmt.Errorf("domain sources: no shipped domain %q (see `vibe domain show`)", domain)
	}
	var cfg struct {
		Domain     string        `json:"domain"`
		Literature DomainSources `json:"literature"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return DomainSources{}, fmt.Errorf("domain sources %s: %w", domain, err)
	}
	cfg.Literature.Domain = cfg.Domain
	return cfg.Literature, nil
}

// Labels maps source ids to the registry's display names (PubMed, bioRxiv,
// PMC); an id the registry lacks is kept as written.
func Labels(ids []string) []string {
	reg, _ := Load()
	out := make([]string, len(ids))
	for i, id := range ids {
		if reg != nil {
			out[i] = reg.Label(id)
		} else {
			out[i] = id
		}
	}
	return out
}

// Line is the SessionStart [BLUEPRINT] line for a domain and its primary
// sources: "[BLUEPRINT] Domain: crispr-off-target. Search first: PubMed,
// bioRxiv, PMC. Config: .vibe-science/domain-config.json". Pass the
// project's own primary list (gate.LoadDomain(root).Literature.Primary) so
// a custom domain is shown as configured. configured says the project has
// its domain config; without one the line points at the command that
// writes it, never at a file that is not there.
func Line(domain string, primary []string, configured bool) string {
	if !configured {
		return fmt.Sprintf("[BLUEPRINT] Domain: %s (no %s; `vibe init --domain NAME` writes one). Search first: %s",
			domain, DomainConfigPath, sourceList(primary))
	}
	return fmt.Sprintf("[BLUEPRINT] Domain: %s. Search first: %s. Config: %s", domain, sourceList(primary), DomainConfigPath)
}

// RecommendedLine is Line for a shipped domain, by name; an unknown name
// gives a line saying so.
func RecommendedLine(domain string) string {
	src, err := ShippedSources(domain)
	if err != nil {
		return fmt.Sprintf("[BLUEPRINT] Domain: %s is not a shipped domain; run `vibe domain show` and fix %s.", domain, DomainConfigPath)
	}
	return Line(domain, src.Primary, true)
}
