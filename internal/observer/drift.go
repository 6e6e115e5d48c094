package observer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
)

// CheckDrift is the design-drift check: a dataset the research question
// planned, holds in 02-data/raw/ or downloaded, that nothing has read.
const CheckDrift = "design-drift"

// Limits of the design-drift check, so a huge raw folder or analysis tree
// costs a bounded amount.
const (
	// maxRawEntries: a raw folder with more entries than this is a
	// collection (per-sample files or batches), not a list of datasets;
	// only the planned and downloaded datasets in it are followed.
	maxRawEntries = 20
	// maxScriptEntries bounds the analysis folders' listing, maxScriptSize the
	// bytes read of one script.
	maxScriptEntries = 500
	maxScriptSize    = 1 << 20
	// firstScan and nextScan bound the spine entries searched for dataset
	// names on the first run and on each later one.
	firstScan = 20000
	nextScan  = 5000
	// scriptRescan is how often the scripts are searched again while the
	// same datasets stay overdue.
	scriptRescan = 5 * time.Minute
)

// scriptExts are the files of the analysis folders searched for dataset names.
var scriptExts = map[string]bool{".py": true, ".r": true, ".rmd": true, ".qmd": true, ".ipynb": true,
	".sh": true, ".bash": true, ".jl": true, ".m": true, ".sql": true, ".nf": true, ".smk": true,
	".wdl": true, ".pl": true, ".js": true, ".ts": true, ".go": true, ".yaml": true, ".yml": true,
	".toml": true, ".json": true, ".cfg": true, ".ini": true, ".txt": true, ".mk": true}

// driftCache is what the design-drift check remembers of one research
// question between runs.
type driftCache struct {
	Loaded     bool     `json:"loaded,omitempty"`
	DesignNS   int64    `json:"design_ns,omitempty"`
	DesignSize int64    `json:"design_size,omitempty"`
	Planned    []string `json:"planned,omitempty"` // RQ-relative paths under 02-data/raw/
	PlanStep   []int    `json:"plan_step,omitempty"`
	DevText    string   `json:"dev_text,omitempty"` // lower-cased what/why/files of every deviation
	DevNS      int64    `json:"dev_ns,omitempty"`
	DevSize    int64    `json:"dev_size,omitempty"`
	RawLoaded  bool     `json:"raw_loaded,omitempty"`
	RawNS      int64    `json:"raw_ns,omitempty"`
	Raw        []string `json:"raw,omitempty"` // RQ-relative paths of the raw folder's entries
	// Datasets: RQ-relative path → state.
	Datasets map[string]*datasetState `json:"datasets,omitempty"`
	Scripts  map[string]scriptState   `json:"scripts,omitempty"`
	// ScriptsKey names the overdue datasets the scripts were last searched
	// for, ScriptsMS when.
	ScriptsKey string `json:"scripts_key,omitempty"`
	ScriptsMS  int64  `json:"scripts_ms,omitempty"`
}

// datasetState follows one dataset. Its clock starts when vibe first saw
// it (SinceMS, or the download if earlier); for a dataset that is only
// planned, not before it is present (PresentMS) or, while it is absent,
// not before the analysis used another dataset of the research question
// (UsedMS): a plan is not drift until the work that should use it starts.
type datasetState struct {
	SinceMS   int64  `json:"since_ms"`
	Source    string `json:"source"` // planned, present, downloaded
	PresentMS int64  `json:"present_ms,omitempty"`
	Used      bool   `json:"used,omitempty"`
	UsedMS    int64  `json:"used_ms,omitempty"`
}

// scriptState remembers what a script names: the dataset names of the set
// it was searched for (NamesKey identifies the set) and the raw-folder
// globs it holds; valid while its mtime and size are unchanged.
type scriptState struct {
	NS       int64    `json:"ns"`
	Size     int64    `json:"size"`
	NamesKey string   `json:"names_key,omitempty"`
	Found    []string `json:"found,omitempty"`
	Globs    []string `json:"globs,omitempty"`
}

// datasetName is what identifies a dataset in a command, a read path or a
// script: its file (or folder) name, lower-cased.
func datasetName(rel string) string { return strings.ToLower(path.Base(rel)) }

// checkDrift: the blueprint's M2, a planned dataset (CHANGE-seq) that was
// downloaded and never used while the analysis went on without it.
func (o *outcome) checkDrift(ctx context.Context, st Reads, proj project.Project, lay layout, now time.Time, cfg Config) error {
	o.ran[CheckDrift] = true
	if o.cache.Drift == nil {
		o.cache.Drift = map[string]*driftCache{}
	}
	var downloads []record.Download
	loadedDownloads := false
	seen := map[string]bool{}
	type pending struct {
		rq, rel string
		c       *driftCache
	}
	var unused []pending
	fresh := false // a dataset vibe had not seen before: look back further
	for _, rq := range lay.rqDirs {
		design := filepath.Join(rq, "DESIGN.md")
		_, errD := os.Stat(design)
		raw := rawDir(rq)
		if errD != nil && raw == "" {
			continue
		}
		rel := proj.Rel(rq)
		seen[rel] = true
		c := o.cache.Drift[rel]
		if c == nil {
			c = &driftCache{}
			o.cache.Drift[rel] = c
			o.dirty = true
		}
		if c.refreshDesign(rq) {
			o.dirty = true
		}
		if c.refreshRaw(rq, raw) {
			o.dirty = true
		}
		if !loadedDownloads {
			var err error
			if downloads, err = st.Downloads(ctx, proj.Root); err != nil {
				return err
			}
			loadedDownloads = true
		}
		want := map[string]string{}
		for _, p := range c.Planned {
			want[p] = "planned"
		}
		since := map[string]int64{}
		for _, d := range downloads {
			r, ok := c.downloadKey(proj, rq, d.Path, len(lay.rqDirs) == 1)
			if !ok {
				continue
			}
			if _, ok := want[r]; !ok {
				want[r] = "downloaded"
			}
			if ms := d.At.UnixMilli(); since[r] == 0 || ms < since[r] {
				since[r] = ms
			}
		}
		for _, p := range c.Raw {
			if _, ok := want[p]; !ok {
				want[p] = "present"
			}
		}
		if c.Datasets == nil {
			c.Datasets = map[string]*datasetState{}
		}
		for p, src := range want {
			s := c.Datasets[p]
			if s == nil {
				s = &datasetState{SinceMS: now.UnixMilli(), Source: src}
				c.Datasets[p] = s
				o.dirty = true
				fresh = true
			}
			if ms := since[p]; ms > 0 && ms < s.SinceMS {
				s.SinceMS = ms
				o.dirty = true
			}
			if s.PresentMS == 0 {
				present := src != "planned" || since[p] > 0 || contains(c.Raw, p)
				if !present {
					_, err := os.Stat(filepath.Join(rq, filepath.FromSlash(p)))
					_, errRoot := os.Stat(filepath.Join(proj.Root, filepath.FromSlash(p)))
					present = err == nil || errRoot == nil
				}
				if present {
					s.PresentMS = now.UnixMilli()
					if ms := since[p]; ms > 0 {
						s.PresentMS = ms
					}
					o.dirty = true
				}
			}
		}
		for p := range c.Datasets {
			if _, ok := want[p]; !ok {
				delete(c.Datasets, p)
				o.dirty = true
			}
		}
		for p, s := range c.Datasets {
			if !s.Used {
				unused = append(unused, pending{rq: rq, rel: p, c: c})
			}
		}
	}
	for rel := range o.cache.Drift {
		if !seen[rel] {
			delete(o.cache.Drift, rel)
			o.dirty = true
		}
	}
	if len(unused) == 0 {
		return nil
	}

	// Actions: every spine entry's input summary ("read PATH", "$ CMD")
	// since the last run, searched for the unused names.
	// A dataset new to vibe may have been read before it became one (a
	// file read, then planned in DESIGN.md): then the search looks back
	// over the last firstScan entries, not only the new ones.
	from, limit := o.cache.DriftScannedMS, nextScan
	if from == 0 || fresh {
		from, limit = 0, firstScan
	}
	texts, err := st.ActionTextsSince(ctx, proj.Root, time.UnixMilli(from), limit)
	if err != nil {
		return err
	}
	for _, a := range texts {
		low := strings.ToLower(a.Summary)
		if o.noteRunScripts(proj, lay, a.Summary) {
			o.dirty = true
		}
		globs := rawGlobs(low)
		for _, u := range unused {
			s := u.c.Datasets[u.rel]
			if s.Used {
				continue
			}
			used := strings.Contains(low, datasetName(u.rel)) && !produced(a.Wrote, u.rel)
			for _, g := range globs {
				used = used || globUses(g, u.rel)
			}
			if used {
				s.Used, s.UsedMS = true, a.At.UnixMilli()
				o.dirty = true
			}
		}
		if ms := a.At.UnixMilli(); ms > o.cache.DriftScannedMS {
			o.cache.DriftScannedMS = ms
			o.dirty = true
		}
	}
	// The time after which the project recorded DesignDriftActions
	// actions: a dataset first seen before it has waited that many.
	nth, enough, err := st.NthRecentAction(ctx, proj.Root, cfg.DesignDriftActions)
	if err != nil {
		return err
	}
	type late struct {
		rel, how  string
		age       time.Duration
		byActions bool
	}
	byRQ := map[string][]pending{}
	for _, u := range unused {
		byRQ[u.rq] = append(byRQ[u.rq], u)
	}
	rqs := make([]string, 0, len(byRQ))
	for rq := range byRQ {
		rqs = append(rqs, rq)
	}
	sort.Strings(rqs)
	for _, rq := range rqs {
		rqRel := proj.Rel(rq)
		var lates []late
		for _, u := range byRQ[rq] {
			s := u.c.Datasets[u.rel]
			if s.Used || strings.Contains(u.c.DevText, datasetName(u.rel)) {
				continue
			}
			start := s.clockStart(u.c)
			if start == 0 {
				continue
			}
			since := time.UnixMilli(start)
			age := now.Sub(since)
			if !(enough && since.Before(nth)) && age < cfg.DesignDriftAge {
				continue
			}
			how := map[string]string{"planned": "planned in DESIGN.md" + u.c.stepNote(u.rel),
				"present": "in " + path.Dir(u.rel) + "/", "downloaded": "downloaded"}[s.Source]
			lates = append(lates, late{u.rel, how, age, enough && since.Before(nth)})
		}
		if len(lates) == 0 {
			continue
		}
		// Only now, with datasets overdue, do the analysis scripts matter:
		// searched when the overdue set changed, else at most every
		// scriptRescan, so an open alert costs a walk of 03-analysis once
		// in a while, not on every run.
		c := byRQ[rq][0].c
		names := make([]string, 0, len(lates))
		for _, l := range lates {
			names = append(names, datasetName(l.rel))
		}
		key := namesKey(names)
		var found map[string]bool
		var globs []string
		if key != c.ScriptsKey || now.Sub(time.UnixMilli(c.ScriptsMS)) >= scriptRescan {
			found, globs, _ = c.scanScripts(analysisDirs(rq), o.runScripts(proj), names)
			c.ScriptsKey, c.ScriptsMS = key, now.UnixMilli()
			o.dirty = true
		} else {
			found = map[string]bool{}
			for _, st := range c.Scripts {
				for _, n := range st.Found {
					found[n] = true
				}
				globs = append(globs, st.Globs...)
			}
		}
		kept := lates[:0]
		for _, l := range lates {
			used := found[datasetName(l.rel)]
			for _, g := range globs {
				used = used || globUses(g, l.rel)
			}
			if used {
				c.Datasets[l.rel].Used, c.Datasets[l.rel].UsedMS = true, now.UnixMilli()
				o.dirty = true
				continue
			}
			kept = append(kept, l)
		}
		lates = kept
		if len(lates) == 0 {
			continue
		}
		sort.Slice(lates, func(i, j int) bool { return lates[i].rel < lates[j].rel })
		var parts, rels []string
		oldest, byActions := time.Duration(0), false
		for _, l := range lates {
			parts = append(parts, fmt.Sprintf("%s (%s)", l.rel, l.how))
			rels = append(rels, l.rel)
			if l.age > oldest {
				oldest = l.age
			}
			byActions = byActions || l.byActions
		}
		what := "Dataset " + parts[0] + " of " + rqRel + " has"
		if len(parts) > 1 {
			what = fmt.Sprintf("%d datasets of %s, %s, have", len(parts), rqRel, strings.Join(parts, ", "))
		}
		when := roundAge(oldest) + " ago"
		if byActions {
			when += fmt.Sprintf(", %d or more recorded actions since", cfg.DesignDriftActions)
		}
		o.add(CheckDrift, Warn, rqRel+":"+strings.Join(rels, ","),
			"%s not been read by any action or analysis script since vibe learned of it (%s; design drift, and DC0 compares the design with what was done): use it in an analysis script, or log why it is not used as a deviation (### DEV-NNN: YYYY-MM-DD with what and why, naming the file) in %s/DESIGN.md or %s/DEVIATIONS.md.",
			what, when, rqRel, rqRel)
	}
	return nil
}

// clockStart is when the dataset's wait began (unix ms), 0 while a planned
// dataset is absent and nothing of its research question was used yet.
func (s *datasetState) clockStart(c *driftCache) int64 {
	if s.Source != "planned" {
		return s.SinceMS
	}
	if s.PresentMS > 0 {
		return max(s.SinceMS, s.PresentMS)
	}
	var first int64
	for _, o := range c.Datasets {
		if o.Used && o.UsedMS > 0 && (first == 0 || o.UsedMS < first) {
			first = o.UsedMS
		}
	}
	if first == 0 {
		return 0
	}
	return max(s.SinceMS, first)
}

func roundAge(d time.Duration) string {
	if d < time.Hour {
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return hours(d)
}

// stepNote names the planned step that lists a dataset.
func (c *driftCache) stepNote(rel string) string {
	for i, p := range c.Planned {
		if p == rel && i < len(c.PlanStep) && c.PlanStep[i] > 0 {
			return fmt.Sprintf(", step %d", c.PlanStep[i])
		}
	}
	return ""
}

// refreshDesign re-reads DESIGN.md and DEVIATIONS.md when either changed:
// the planned raw datasets, and the text of every deviation.
func (c *driftCache) refreshDesign(rq string) bool {
	dNS, dSize := statNS(filepath.Join(rq, "DESIGN.md"))
	vNS, vSize := statNS(filepath.Join(rq, "DEVIATIONS.md"))
	if c.Loaded && dNS == c.DesignNS && dSize == c.DesignSize && vNS == c.DevNS && vSize == c.DevSize {
		return false
	}
	c.Loaded = true
	c.DesignNS, c.DesignSize, c.DevNS, c.DevSize = dNS, dSize, vNS, vSize
	c.Planned, c.PlanStep = nil, nil
	var devs []gate.Deviation
	if raw, err := os.ReadFile(filepath.Join(rq, "DESIGN.md")); err == nil {
		d, _ := gate.ParseDesign(raw)
		c.Planned, c.PlanStep = plannedDatasets(d)
		devs = append(devs, d.Deviations...)
	}
	if raw, err := os.ReadFile(filepath.Join(rq, "DEVIATIONS.md")); err == nil {
		devs = append(devs, gate.ParseDeviations(raw)...)
	}
	var b strings.Builder
	for _, d := range devs {
		b.WriteString(strings.ToLower(d.What + "\n" + d.Why + "\n" + strings.Join(d.Files, "\n") + "\n"))
	}
	c.DevText = b.String()
	return true
}

// refreshRaw lists the raw-data folder (dir, "" for none) when its mtime
// changed. A folder of more
// than maxRawEntries entries is a collection: none of its entries is
// followed unless planned or downloaded.
func (c *driftCache) refreshRaw(rq, dir string) bool {
	ns := int64(0)
	if dir != "" {
		ns, _ = statNS(dir)
	}
	if c.RawLoaded && ns == c.RawNS {
		return false
	}
	c.RawLoaded, c.RawNS, c.Raw = true, ns, nil
	if dir == "" {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	prefix := filepath.ToSlash(strings.TrimPrefix(dir, rq+string(filepath.Separator))) + "/"
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || notDataset(n) {
			continue
		}
		names = append(names, prefix+n)
	}
	if len(names) <= maxRawEntries {
		c.Raw = names
	}
	return true
}

// companionExts and companionNames are files that come with a dataset
// and are not one: checksums, signatures, logs, notes.
var (
	companionExts  = map[string]bool{".md": true, ".md5": true, ".sha1": true, ".sha256": true, ".sha512": true, ".sum": true, ".sig": true, ".asc": true, ".log": true}
	companionNames = []string{"readme", "license", "licence", "manifest", "checksums", "md5sums", "sha256sums"}
)

func notDataset(name string) bool {
	low := strings.ToLower(name)
	if companionExts[path.Ext(low)] {
		return true
	}
	base := strings.TrimSuffix(low, path.Ext(low))
	for _, n := range companionNames {
		if base == n || low == n {
			return true
		}
	}
	return false
}

func statNS(p string) (int64, int64) {
	info, err := os.Stat(p)
	if err != nil {
		return 0, 0
	}
	return info.ModTime().UnixNano(), info.Size()
}

// scanScripts searches the scripts under dirs, and the scripts recorded
// commands ran (run, absolute), for names and raw-folder globs, reading a
// script only when it changed or was last searched for another set of
// names. It returns the names found, the globs, and whether the cache
// changed.
func (c *driftCache) scanScripts(dirs, run []string, names []string) (map[string]bool, []string, bool) {
	found := map[string]bool{}
	var globs []string
	changed := false
	if c.Scripts == nil {
		c.Scripts = map[string]scriptState{}
	}
	key := namesKey(names)
	live := map[string]bool{}
	budget := maxScriptEntries
	visit := func(p, rel string, info fs.FileInfo) {
		live[rel] = true
		s, ok := c.Scripts[rel]
		if !ok || s.NS != info.ModTime().UnixNano() || s.Size != info.Size() || s.NamesKey != key {
			text, ok := readLower(p)
			if !ok {
				return
			}
			s = scriptState{NS: info.ModTime().UnixNano(), Size: info.Size(), NamesKey: key, Globs: rawGlobs(text)}
			for _, n := range names {
				if strings.Contains(text, n) {
					s.Found = append(s.Found, n)
				}
			}
			c.Scripts[rel] = s
			changed = true
		}
		for _, n := range s.Found {
			found[n] = true
		}
		globs = append(globs, s.Globs...)
	}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if budget--; budget < 0 {
				return filepath.SkipAll
			}
			if d.IsDir() {
				if p != dir && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			ext := strings.ToLower(filepath.Ext(d.Name()))
			if !scriptExts[ext] && d.Name() != "Snakefile" && d.Name() != "Makefile" {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			visit(p, filepath.Base(dir)+filepath.ToSlash(strings.TrimPrefix(p, dir)), info)
			return nil
		})
	}
	for _, p := range run {
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		visit(p, "run:"+p, info)
	}
	for k := range c.Scripts {
		if !live[k] {
			delete(c.Scripts, k)
			changed = true
		}
	}
	return found, globs, changed
}

// analysisDirs are a research question's folders of scripts: 03-analysis,
// analysis or any *-analysis, and scripts, src, code, notebooks.
func analysisDirs(rq string) []string {
	entries, err := os.ReadDir(rq)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if !e.IsDir() {
			continue
		}
		switch {
		case n == "analysis" || strings.HasSuffix(n, "-analysis"),
			n == "scripts" || n == "src" || n == "code" || n == "notebooks":
			out = append(out, filepath.Join(rq, e.Name()))
		}
	}
	return out
}

// rawDir is a research question's folder of raw data: raw under its data
// folder (02-data, data, or any *-data), "" when there is none.
func rawDir(rq string) string {
	entries, err := os.ReadDir(rq)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if e.IsDir() && (n == "data" || strings.HasSuffix(n, "-data")) {
			dir := filepath.Join(rq, e.Name(), "raw")
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				return dir
			}
		}
	}
	return ""
}

// notDataExts are the extensions of files that are not data: code, documents,
// figures. A planned path with one of them is no dataset.
var notDataExts = map[string]bool{".py": true, ".r": true, ".rmd": true, ".qmd": true, ".ipynb": true, ".sh": true,
	".md": true, ".pdf": true, ".png": true, ".svg": true, ".html": true, ".jl": true, ".m": true}

// plannedDatasets are the datasets a design plans to bring in from outside:
// every path under a raw folder; the outputs of a step that reads nothing
// (a download, a copy from a collaborator); and the inputs of a step that
// no step produces. Globs, scripts and documents are left out.
func plannedDatasets(d gate.Design) ([]string, []int) {
	clean := func(p string) string {
		return path.Clean(strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(p)), "./"))
	}
	produced := map[string]bool{}
	for _, s := range d.Steps {
		if len(s.Inputs) == 0 {
			continue
		}
		for _, p := range s.Outputs {
			produced[clean(p)] = true
		}
	}
	var planned []string
	var steps []int
	seen := map[string]bool{}
	for _, s := range d.Steps {
		for i, p := range append(append([]string{}, s.Inputs...), s.Outputs...) {
			p = clean(p)
			input := i < len(s.Inputs)
			raw := strings.Contains("/"+p, "/raw/")
			external := (!input && len(s.Inputs) == 0) || (input && !produced[p])
			if p == "." || seen[p] || strings.ContainsAny(p, "*?[") || notDataExts[strings.ToLower(path.Ext(p))] || !(raw || external) {
				continue
			}
			seen[p] = true
			planned = append(planned, p)
			steps = append(steps, s.Number)
		}
	}
	return planned, steps
}

// downloadKey is the dataset key (research-question-relative) of a
// download at project-relative p: a file under the research question; a
// file elsewhere whose name the question plans; or, when the project has
// one research question (only), any file in the project.
func (c *driftCache) downloadKey(proj project.Project, rq, p string, only bool) (string, bool) {
	abs := filepath.Join(proj.Root, filepath.FromSlash(p))
	if rel, err := filepath.Rel(rq, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel), true
	}
	for _, planned := range c.Planned {
		if datasetName(planned) == datasetName(p) {
			return planned, true
		}
	}
	if only && !filepath.IsAbs(filepath.FromSlash(p)) && !strings.HasPrefix(p, "..") {
		rel, err := filepath.Rel(rq, abs)
		return filepath.ToSlash(rel), err == nil
	}
	return "", false
}

// runScript is a script a command runs.
var runScript = regexp.MustCompile(`(?i)[^\s'"=;|&<>(){}]+\.(?:py|r|jl|sh|bash|rmd|qmd|pl|rb|m)\b`)

// maxRunScripts bounds the scripts remembered from recorded commands.
const maxRunScripts = 200

// noteRunScripts remembers the scripts a recorded command ran, resolved
// against the project root and each research question; it reports a
// change.
func (o *outcome) noteRunScripts(proj project.Project, lay layout, summary string) bool {
	changed := false
	for _, ref := range runScript.FindAllString(summary, -1) {
		if len(o.cache.DriftRun) >= maxRunScripts {
			break
		}
		ref = filepath.FromSlash(ref)
		var tries []string
		if filepath.IsAbs(ref) {
			tries = []string{ref}
		} else {
			tries = append([]string{filepath.Join(proj.Root, ref)}, nil...)
			for _, rq := range lay.rqDirs {
				tries = append(tries, filepath.Join(rq, ref))
			}
		}
		for _, p := range tries {
			info, err := os.Stat(p)
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			rel := proj.Rel(filepath.Clean(p))
			if !contains(o.cache.DriftRun, rel) && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
				o.cache.DriftRun = append(o.cache.DriftRun, rel)
				changed = true
			}
			break
		}
	}
	return changed
}

// runScripts are the remembered scripts, absolute.
func (o *outcome) runScripts(proj project.Project) []string {
	out := make([]string, len(o.cache.DriftRun))
	for i, rel := range o.cache.DriftRun {
		out[i] = filepath.Join(proj.Root, filepath.FromSlash(rel))
	}
	return out
}

// namesKey identifies a set of names in a few bytes.
func namesKey(names []string) string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	h := sha256.Sum256([]byte(strings.Join(sorted, "\x00")))
	return hex.EncodeToString(h[:6])
}

// rawGlobs returns the globs over a raw-data folder that a text holds, from
// "raw/" on and lower-cased ("raw/*.csv", "raw/batch*/reads.fq"): a
// script that loops over raw/*.csv reads every file the glob matches.
func rawGlobs(lower string) []string {
	var out []string
	for from := 0; ; {
		i := strings.Index(lower[from:], "raw/")
		if i < 0 {
			return out
		}
		at := from + i
		end := at
		for end < len(lower) && !strings.ContainsRune(" \t\n\r'\"`,;(){}<>|&=", rune(lower[end])) {
			end++
		}
		tok := lower[at:end]
		if strings.ContainsAny(tok, "*?") && !contains(out, tok) {
			out = append(out, tok)
		}
		from = at + 4
	}
}

// globUses reports whether a raw-folder glob covers the dataset at rel
// (02-data/raw/NAME[/…]): the glob's segments are matched against the
// dataset's, as far as the dataset's path goes.
func globUses(glob, rel string) bool {
	r := strings.ToLower(strings.TrimPrefix(rel, "02-data/"))
	segs := strings.Split(glob, "/")
	want := strings.Count(r, "/") + 1
	if len(segs) > want {
		segs = segs[:want]
	}
	if len(segs) < want {
		return false
	}
	ok, err := path.Match(strings.Join(segs, "/"), r)
	return err == nil && ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func readLower(p string) (string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxScriptSize))
	if err != nil {
		return "", false
	}
	return strings.ToLower(string(raw)), true
}

// maxHashSize is the largest download RecordDownload hashes itself (about
// 0.1 s); a larger file is recorded with its size and the checksum the
// caller gives, if any.
const maxHashSize = 64 << 20

// RecordDownload records that url was downloaded to file (absolute, or
// relative to the project root) with its SHA-256: sum when given, else
// computed from the file when it exists and is at most 64 MB. The
// design-drift check then follows the dataset from the time of the
// download. PostToolUse calls it for each approved download into a
// raw-data folder.
func RecordDownload[W Writes](ctx context.Context, st Store[W], proj project.Project, session, url, file, sum string, at time.Time) (record.Download, error) {
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(proj.Root, filepath.FromSlash(file))
	}
	d := record.Download{ProjectPath: proj.Root, SessionID: session, URL: url, Path: filepath.ToSlash(proj.Rel(filepath.Clean(abs))),
		SHA256: sum, Size: -1, At: at}
	if info, err := os.Stat(abs); err == nil && info.Mode().IsRegular() {
		d.Size = info.Size()
		if sum == "" && info.Size() <= maxHashSize {
			if f, err := os.Open(abs); err == nil {
				h := sha256.New()
				if _, err := io.Copy(h, f); err == nil {
					d.SHA256 = hex.EncodeToString(h.Sum(nil))
				}
				f.Close()
			}
		}
	}
	err := st.Tx(ctx, func(tx W) error {
		var err error
		d.ID, err = tx.AddDownload(ctx, d)
		return err
	})
	if err != nil {
		return record.Download{}, fmt.Errorf("record download: %w", err)
	}
	return d, nil
}

// produced reports whether an action wrote the dataset (a download, a
// copy into raw data): naming it then is making it, not using it.
func produced(wrote []string, rel string) bool {
	name := datasetName(rel)
	for _, w := range wrote {
		if strings.EqualFold(path.Base(filepath.ToSlash(w)), name) {
			return true
		}
	}
	return false
}
