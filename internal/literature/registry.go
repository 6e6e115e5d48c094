package literature

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/vibe-science/vibe/blueprints"
)

// RegistryFile is the registry's path inside blueprints.FS.
const RegistryFile = "literature-registry.json"

// The access kinds of a source.
const (
	AccessFree         = "free"
	AccessSubscription = "subscription"
	AccessMixed        = "mixed"
)

// Database is one source of the registry.
type Database struct {
	// ID is the registry key (pubmed), the id domain configs use.
	ID   string `json:"-"`
	Name string `json:"name"`
	// ShortName is the name used in one-line hints (PubMed for PubMed/MEDLINE).
	ShortName  string   `json:"short_name,omitempty"`
	Categories []string `json:"categories"`
	Access     string   `json:"access"`
	API        bool     `json:"api"`
	APIType    *string  `json:"api_type"`
	Coverage   string   `json:"coverage"`
	URL        string   `json:"url"`
	// Hosts are the hosts (optionally with a path prefix, as in
	// ncbi.nlm.nih.gov/pmc) whose pages belong to this source.
	Hosts       []string `json:"hosts"`
	MCPServer   *string  `json:"mcp_server"`
	KDenseSkill *string  `json:"kdense_skill"`
}

// Label is the name a one-line hint uses: the short name, else the name.
func (d Database) Label() string {
	if d.ShortName != "" {
		return d.ShortName
	}
	return d.Name
}

// ScholarlyHost is a publisher or resolver outside the database catalogue
// whose pages are scholarly (doi.org, nature.com, …).
type ScholarlyHost struct {
	Host string `json:"host"`
	Name string `json:"name"`
}

// Registry is blueprints/literature-registry.json.
type Registry struct {
	Version     int                 `json:"version"`
	Description string              `json:"description"`
	Total       int                 `json:"total"`
	Categories  map[string]string   `json:"categories"`
	MetaSkills  []string            `json:"meta_skills"`
	Scholarly   []ScholarlyHost     `json:"scholarly_hosts"`
	Databases   map[string]Database `json:"databases"`

	ids    []string
	hosts  map[string][]hostRule
	skills map[string][]string
}

// hostRule is one host entry: an optional path prefix and what it names.
type hostRule struct {
	path string // "" or "/pmc"
	id   string // registry id, or the scholarly host itself
}

var (
	loadOnce sync.Once
	loaded   *Registry
	loadErr  error
)

// Load returns the shipped registry, parsed once per process.
func Load() (*Registry, error) {
	loadOnce.Do(func() {
		raw, err := fs.ReadFile(blueprints.FS, RegistryFile)
		if err != nil {
			loadErr = fmt.Errorf("load literature registry: %w", err)
			return
		}
		loaded, loadErr = ParseRegistry(raw)
	})
	return loaded, loadErr
}

// ParseRegistry parses a registry file and indexes its hosts, tokens and
// skills.
func ParseRegistry(raw []byte) (*Registry, error) {
	var r Registry
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("parse literature registry: %w", err)
	}
	r.hosts = map[string][]hostRule{}
	r.skills = map[string][]string{}
	for id, d := range r.Databases {
		d.ID = id
		r.Databases[id] = d
		r.ids = append(r.ids, id)
	}
	sort.Strings(r.ids)
	for _, id := range r.ids {
		d := r.Databases[id]
		for _, h := range d.Hosts {
			r.addHost(h, id)
		}
		if d.KDenseSkill != nil {
			r.skills[*d.KDenseSkill] = append(r.skills[*d.KDenseSkill], id)
		}
	}
	for _, h := range r.Scholarly {
		r.addHost(h.Host, h.Host)
	}
	return &r, nil
}

func (r *Registry) addHost(h, id string) {
	host, path, _ := strings.Cut(strings.ToLower(h), "/")
	if path != "" {
		path = "/" + path
	}
	r.hosts[host] = append(r.hosts[host], hostRule{path: path, id: id})
}

// IDs lists the registry's source ids, sorted.
func (r *Registry) IDs() []string { return append([]string(nil), r.ids...) }

// Database returns the source with the given id.
func (r *Registry) Database(id string) (Database, bool) {
	d, ok := r.Databases[id]
	return d, ok
}

// Label is the display name of a source id, or the id itself when the
// registry does not know it (a publisher host, a custom id).
func (r *Registry) Label(id string) string {
	if d, ok := r.Databases[id]; ok {
		return d.Label()
	}
	return id
}

// MatchURL names the source a URL belongs to: a registry id, the host of a
// scholarly publisher outside the catalogue, or "" with false. The longest
// matching host wins, then the longest path prefix, so
// www.ncbi.nlm.nih.gov/pmc/articles/… is pmc and pubmed.ncbi.nlm.nih.gov
// is pubmed.
func (r *Registry) MatchURL(u string) (string, bool) {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	} else {
		rest = strings.TrimPrefix(rest, "//")
	}
	end := strings.IndexAny(rest, "/?#")
	host, path := rest, ""
	if end >= 0 {
		host, path = rest[:end], rest[end:]
	}
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if c := strings.LastIndexByte(host, ':'); c >= 0 {
		host = host[:c]
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", false
	}
	path = strings.ToLower(path)
	for h := host; h != ""; {
		if rules, ok := r.hosts[h]; ok {
			best, bestLen := "", -1
			for _, rule := range rules {
				if rule.path != "" && !pathHasPrefix(path, rule.path) {
					continue
				}
				if len(rule.path) > bestLen {
					best, bestLen = rule.id, len(rule.path)
				}
			}
			if bestLen >= 0 {
				return best, true
			}
		}
		dot := strings.IndexByte(h, '.')
		if dot < 0 {
			break
		}
		h = h[dot+1:]
	}
	return "", false
}

// pathHasPrefix reports whether path starts with the segment prefix p:
// /pmc matches /pmc and /pmc/articles but not /pmcx.
func pathHasPrefix(path, p string) bool {
	if !strings.HasPrefix(path, p) {
		return false
	}
	if len(path) == len(p) {
		return true
	}
	switch path[len(p)] {
	case '/', '?', '#':
		return true
	}
	return false
}

// SkillSources names the sources a K-Dense skill queries (pubmed-database →
// pubmed); a literature meta-skill (literature-review) gives no source but
// true.
func (r *Registry) SkillSources(skill string) ([]string, bool) {
	if ids, ok := r.skills[skill]; ok {
		return ids, true
	}
	for _, m := range r.MetaSkills {
		if m == skill {
			return nil, true
		}
	}
	return nil, false
}
