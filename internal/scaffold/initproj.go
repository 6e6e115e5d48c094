package scaffold

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
)

//go:embed templates
var templates embed.FS

// rqTemplate is the templates/ folder that becomes the research-question
// folder.
const rqTemplate = "RQ"

// gitignoreTemplate becomes .vibe-science/.gitignore: vibe's exports that
// hold call records (SPINE.md, RECORD.md, the pickup note) stay out of git.
const gitignoreTemplate = "gitignore"

// rqFolders are the research question's numbered folders (the skill's
// layout): Phase 0 notes, literature, data (raw is read-only), scripts,
// results, reviews with the judge's reports, the audit trail, the tree.
var rqFolders = []string{
	"00-brainstorm", "01-discovery", "02-data", "02-data/raw", "02-data/processed", "03-analysis", "04-results",
	"05-reviewer2", "05-reviewer2/judge-reports", "07-audit", "08-tree",
}

// Options choose what Init creates.
type Options struct {
	// Team writes permissions.json with "mode": "team".
	Team bool
	// RQ names the research question: a folder name such as RQ-002-bandgap,
	// or a short name ("off-target rates") that becomes RQ-NNN-<slug> with the
	// next free number. Empty: the first existing RQ folder, else RQ-001.
	RQ string
	// Domain is a shipped domain config (default generic).
	Domain string
	// Now dates the templates.
	Now time.Time
}

// Result says what Init did. Paths are project-relative with forward
// slashes; folders end in "/".
type Result struct {
	Root     string
	RQ       string
	Domain   string
	Created  []string
	Existing []string
	// Notes are things Init would not change on its own (an existing
	// config naming another domain or mode).
	Notes []string
}

// Changed reports whether Init created anything.
func (r Result) Changed() bool { return len(r.Created) > 0 }

var (
	rqFolderRe = regexp.MustCompile(`^RQ-(\d{3,})(?:-([a-z0-9][a-z0-9-]*))?$`)
	slugRe     = regexp.MustCompile(`[^a-z0-9]+`)
)

// Slug turns a research-question name into the part of its folder name
// after the number: lower case, words joined by hyphens, at most 40 bytes.
func Slug(name string) string {
	s := strings.Trim(slugRe.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	return s
}

// chooseRQ picks the research-question folder.
func chooseRQ(vibeDir, name string) (folder, title string, err error) {
	type rq struct {
		n          int
		name, slug string
	}
	var have []rq
	entries, err := os.ReadDir(vibeDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", err
	}
	for _, e := range entries {
		if m := rqFolderRe.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			n, _ := strconv.Atoi(m[1])
			have = append(have, rq{n, e.Name(), m[2]})
		}
	}
	sort.Slice(have, func(i, j int) bool {
		return have[i].n < have[j].n || have[i].n == have[j].n && have[i].name < have[j].name
	})
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		if len(have) > 0 {
			return have[0].name, "", nil
		}
		return "RQ-001", "", nil
	case rqFolderRe.MatchString(name):
		return name, "", nil
	}
	slug := Slug(name)
	if slug == "" {
		return "", "", fmt.Errorf("research question name %q has no letters or digits to name its folder; use words, e.g. --rq \"off-target rates\", or a folder name such as RQ-002-bandgap", name)
	}
	next := 1
	for _, h := range have {
		if h.slug == slug {
			return h.name, name, nil
		}
		if h.n >= next {
			next = h.n + 1
		}
	}
	return fmt.Sprintf("RQ-%03d-%s", next, slug), name, nil
}

type tmplData struct {
	Project, Date, DateCompact string
	RQ, RQID, Title            string
	Domain, Mode               string
}

// Init creates what is missing of the project's .vibe-science tree.
func Init(proj project.Project, o Options) (Result, error) {
	res := Result{Root: proj.Root}
	explicitDomain := o.Domain != ""
	if o.Domain == "" {
		o.Domain = gate.GenericDomain
	}
	if _, err := gate.ShippedDomain(o.Domain); err != nil {
		return res, fault.E(fault.Invalid, "init", fmt.Errorf("--domain: %w", err))
	}
	res.Domain = o.Domain
	vibeDir := proj.VibeDir()
	if info, err := os.Stat(vibeDir); err == nil && !info.IsDir() {
		return res, fmt.Errorf("init: %s exists and is not a folder: move it away, then run vibe init again", vibeDir)
	}
	folder, title, err := chooseRQ(vibeDir, o.RQ)
	if err != nil {
		return res, fault.E(fault.Invalid, "init", fmt.Errorf("--rq: %w", err))
	}
	res.RQ = folder
	mode := "solo"
	if o.Team {
		mode = "team"
	}
	rqID := folder
	if m := rqFolderRe.FindStringSubmatch(folder); m != nil {
		rqID = "RQ-" + m[1]
	}
	if title == "" {
		title = "(the research question)"
	}
	data := tmplData{
		Project: proj.Name(), Date: o.Now.UTC().Format("2006-01-02"), DateCompact: o.Now.UTC().Format("20060102"),
		RQ: folder, RQID: rqID, Title: title, Domain: o.Domain, Mode: mode,
	}

	mkdir := func(rel string) error {
		p := filepath.Join(vibeDir, filepath.FromSlash(rel))
		shown := project.Dir + "/" + rel + "/"
		if rel == "" {
			shown = project.Dir + "/"
		}
		if info, err := os.Stat(p); err == nil {
			if !info.IsDir() {
				return fmt.Errorf("init: %s exists and is not a folder: move it away, then run vibe init again", shown)
			}
			res.Existing = append(res.Existing, shown)
			return nil
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		res.Created = append(res.Created, shown)
		return nil
	}
	if err := mkdir(""); err != nil {
		return res, err
	}
	if err := mkdir(folder); err != nil {
		return res, err
	}
	for _, d := range rqFolders {
		if err := mkdir(folder + "/" + d); err != nil {
			return res, err
		}
	}

	files, err := templateFiles()
	if err != nil {
		return res, err
	}
	for _, name := range files {
		rel := name
		if name == "permissions.json" && !o.Team {
			continue
		}
		if strings.HasPrefix(name, rqTemplate+"/") {
			rel = folder + strings.TrimPrefix(name, rqTemplate)
		}
		if name == gitignoreTemplate {
			rel = ".gitignore" // embed leaves out files whose names start with a dot
		}
		if err := writeTemplate(vibeDir, name, rel, data, &res); err != nil {
			return res, err
		}
	}
	res.Notes = append(res.Notes, configNotes(vibeDir, o, explicitDomain)...)
	return res, nil
}

// templateFiles lists the embedded templates, top-level files first, each
// group sorted, so the output reads in a stable order.
func templateFiles() ([]string, error) {
	var files []string
	err := fs.WalkDir(templates, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, strings.TrimPrefix(p, "templates/"))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("init: read templates: %w", err)
	}
	sort.Slice(files, func(i, j int) bool {
		di, dj := strings.Count(files[i], "/"), strings.Count(files[j], "/")
		if di != dj {
			return di < dj
		}
		return files[i] < files[j]
	})
	return files, nil
}

// writeTemplate renders one template to .vibe-science/rel unless something
// is already there. The file is created exclusively, so a file that appears
// meanwhile is not overwritten either.
func writeTemplate(vibeDir, name, rel string, data tmplData, res *Result) error {
	shown := project.Dir + "/" + rel
	p := filepath.Join(vibeDir, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err == nil {
		res.Existing = append(res.Existing, shown)
		return nil
	}
	raw, err := templates.ReadFile(path.Join("templates", name))
	if err != nil {
		return fmt.Errorf("init: read template %s: %w", name, err)
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return fmt.Errorf("init: template %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return fmt.Errorf("init: template %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		res.Existing = append(res.Existing, shown)
		return nil
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("init: write %s: %w", shown, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("init: write %s: %w", shown, err)
	}
	res.Created = append(res.Created, shown)
	return nil
}

// configNotes tells the user when an existing config disagrees with the
// flags: Init never rewrites it, so the user has to.
func configNotes(vibeDir string, o Options, explicitDomain bool) []string {
	var notes []string
	read := func(name string) (map[string]any, bool) {
		raw, err := os.ReadFile(filepath.Join(vibeDir, name))
		if err != nil {
			return nil, false
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil {
			notes = append(notes, fmt.Sprintf("%s/%s is not valid JSON; fix it by hand (vibe init does not overwrite it)", project.Dir, name))
			return nil, false
		}
		return m, true
	}
	if m, ok := read("domain-config.json"); ok {
		if d, _ := m["domain"].(string); explicitDomain && d != o.Domain {
			notes = append(notes, fmt.Sprintf("%s/domain-config.json names domain %q, not %q; vibe init does not change it: edit its \"domain\" to switch",
				project.Dir, d, o.Domain))
		}
	}
	if o.Team {
		if m, ok := read("permissions.json"); ok {
			if mode, _ := m["mode"].(string); mode != "team" {
				notes = append(notes, fmt.Sprintf("%s/permissions.json exists and does not set \"mode\": \"team\"; vibe init does not change it: add that line yourself (the user must approve the edit)",
					project.Dir))
			}
		}
	}
	return notes
}
