package literature

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/blueprints"
)

func mustLoad(t *testing.T) *Registry {
	t.Helper()
	r, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRegistryShape pins the registry's size and checks every entry: the
// JavaScript reference claimed 108 and shipped 102 with a category it never
// declared, so total, counts and categories are held to the real file.
func TestRegistryShape(t *testing.T) {
	r := mustLoad(t)
	if r.Total != len(r.Databases) {
		t.Errorf("total %d, but %d databases", r.Total, len(r.Databases))
	}
	if len(r.Databases) != 111 {
		t.Errorf("%d databases, want 111 (update this pin with the file)", len(r.Databases))
	}
	used := map[string]int{}
	hostOwner := map[string]string{}
	for _, id := range r.IDs() {
		d := r.Databases[id]
		if d.ID != id || d.Name == "" || d.Coverage == "" || !strings.HasPrefix(d.URL, "https://") {
			t.Errorf("%s: id/name/coverage/url incomplete: %+v", id, d)
		}
		if len(d.Categories) == 0 {
			t.Errorf("%s: no category", id)
		}
		for _, c := range d.Categories {
			if _, ok := r.Categories[c]; !ok {
				t.Errorf("%s: category %q is not declared", id, c)
			}
			used[c]++
		}
		switch d.Access {
		case AccessFree, AccessSubscription, AccessMixed:
		default:
			t.Errorf("%s: access %q", id, d.Access)
		}
		if d.API != (d.APIType != nil) {
			t.Errorf("%s: api %v but api_type %v", id, d.API, d.APIType)
		}
		if d.APIType != nil && !map[string]bool{"REST": true, "OAI-PMH": true, "GraphQL": true, "SOAP": true}[*d.APIType] {
			t.Errorf("%s: api_type %q", id, *d.APIType)
		}
		for _, h := range d.Hosts {
			if h != strings.ToLower(h) || strings.HasPrefix(h, "www.") || strings.Contains(h, "://") {
				t.Errorf("%s: host %q must be lower case, without scheme or www.", id, h)
			}
			if o, dup := hostOwner[h]; dup {
				t.Errorf("host %q belongs to both %s and %s", h, o, id)
			}
			hostOwner[h] = id
		}
	}
	for _, sh := range r.Scholarly {
		if o, dup := hostOwner[sh.Host]; dup {
			t.Errorf("scholarly host %q is also a host of %s", sh.Host, o)
		}
		hostOwner[sh.Host] = sh.Host
	}
	if len(used) < 12 {
		t.Errorf("%d categories used, want at least 12", len(used))
	}
	for c := range r.Categories {
		if used[c] == 0 {
			t.Errorf("category %q is declared but unused", c)
		}
	}
	var mcp, skills int
	for _, d := range r.Databases {
		if d.MCPServer != nil {
			mcp++
		}
		if d.KDenseSkill != nil {
			skills++
		}
	}
	if mcp != 12 || skills != 29 {
		t.Errorf("%d MCP servers and %d skills, want 12 and 29 (the blueprint's table)", mcp, skills)
	}
}

// TestShippedDomainSourcesExist checks that every source id a shipped
// domain names is in the registry.
func TestShippedDomainSourcesExist(t *testing.T) {
	r := mustLoad(t)
	entries, err := fs.ReadDir(blueprints.FS, "domains")
	if err != nil || len(entries) < 4 {
		t.Fatalf("domains: %v (%d)", err, len(entries))
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		src, err := ShippedSources(name)
		if err != nil {
			t.Fatal(err)
		}
		if src.Domain != name || len(src.Primary) == 0 {
			t.Errorf("%s: %+v", name, src)
		}
		for _, list := range [][]string{src.Primary, src.Secondary, src.Datasets, src.Preprints, src.Grey} {
			for _, id := range list {
				if _, ok := r.Database(id); !ok {
					t.Errorf("%s names %q, which the registry lacks", name, id)
				}
			}
		}
	}
}

// TestRegistryJSONIDsMatchGateShape checks the file has the shape gate's
// domain validation reads: {"databases": {id: {...}}}.
func TestRegistryJSONIDsMatchGateShape(t *testing.T) {
	raw, err := fs.ReadFile(blueprints.FS, RegistryFile)
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Databases map[string]json.RawMessage `json:"databases"`
	}
	if err := json.Unmarshal(raw, &reg); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for k := range reg.Databases {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	if !reflect.DeepEqual(ids, mustLoad(t).IDs()) {
		t.Error("ids differ between the raw file and the parsed registry")
	}
}

func TestMatchURL(t *testing.T) {
	r := mustLoad(t)
	tests := []struct {
		url  string
		want string
	}{
		{"https://pubmed.ncbi.nlm.nih.gov/32541958/", "pubmed"},
		{"https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed", "pubmed"},
		{"https://www.ncbi.nlm.nih.gov/pmc/articles/PMC4320685/", "pmc"},
		{"https://www.ncbi.nlm.nih.gov/geo/query/acc.cgi?acc=GSE1", "geo"},
		{"https://www.ncbi.nlm.nih.gov/pmcx/", ""},
		{"https://www.ncbi.nlm.nih.gov/books/NBK1/", ""},
		{"https://api.openalex.org/works", "openalex"},
		{"HTTPS://ArXiv.org/abs/2101.00001", "arxiv"},
		{"https://user@inspirehep.net:443/api/literature?q=x", "inspire_hep"},
		{"https://www.ebi.ac.uk/ena/browser/view/PRJ", "ena"},
		{"https://www.ebi.ac.uk/chembl/", "chembl"},
		{"https://www.ebi.ac.uk/", ""},
		{"https://doi.org/10.1038/nbt.3117", "doi.org"},
		{"https://www.nature.com/articles/nbt.3117", "nature.com"},
		{"https://materials.springer.com/x", "springer_materials"},
		{"https://link.springer.com/article/x", "link.springer.com"},
		{"https://www.springer.com/journal/1", "springer.com"},
		{"https://notnature.com/", ""},
		{"https://stackoverflow.com/q/1", ""},
		{"arxiv.org/abs/1", "arxiv"},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := r.MatchURL(tt.url)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("MatchURL(%q) = %q %v, want %q", tt.url, got, ok, tt.want)
		}
	}
}

func TestSkillSources(t *testing.T) {
	r := mustLoad(t)
	if ids, ok := r.SkillSources("pubmed-database"); !ok || !reflect.DeepEqual(ids, []string{"pubmed"}) {
		t.Errorf("pubmed-database: %v %v", ids, ok)
	}
	if ids, ok := r.SkillSources("literature-review"); !ok || ids != nil {
		t.Errorf("literature-review: %v %v", ids, ok)
	}
	if _, ok := r.SkillSources("pdf"); ok {
		t.Error("pdf is not a literature skill")
	}
}

func TestParseRegistryError(t *testing.T) {
	if _, err := ParseRegistry([]byte("{")); err == nil || !strings.HasPrefix(err.Error(), "parse literature registry:") {
		t.Errorf("err %v", err)
	}
}
