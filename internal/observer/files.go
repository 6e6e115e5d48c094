package observer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/markdown"
	"github.com/vibe-science/vibe/internal/resume"
)

// fileCache is what the observer remembers between runs (each hook is a new
// process, so it lives in the database's meta table): enough to stat known
// files and folders instead of reading or listing them again.
type fileCache struct {
	State stateCache           `json:"state"`
	Data  map[string]dataCache `json:"data,omitempty"` // key: 02-data folder, project-relative
	// Drift: research-question folder, project-relative → design-drift
	// facts; DriftScannedMS is the time of the last spine entry searched.
	Drift          map[string]*driftCache `json:"drift,omitempty"`
	DriftScannedMS int64                  `json:"drift_scanned_ms,omitempty"`
	// DriftRun are the scripts recorded commands ran (project-relative),
	// searched for dataset names like the analysis folders.
	DriftRun []string `json:"drift_run,omitempty"`
	// Stale: findings file, project-relative → DQ4's verdict on it and
	// its newer JSON.
	Stale map[string]staleCache `json:"stale,omitempty"`
}

// stateCache remembers STATE.md by mtime and size: the hash of the
// researcher's part (vibe's own section is left out, so vibe rewriting it
// does not count as an update), when that part last changed, and its phase.
type stateCache struct {
	MtimeNS   int64  `json:"mtime_ns"`
	Size      int64  `json:"size"`
	Hash      string `json:"hash"`
	ChangedMS int64  `json:"changed_ms"`
	PhaseKey  string `json:"phase_key,omitempty"`
	Phase     string `json:"phase,omitempty"`
	PhaseLine int    `json:"phase_line,omitempty"`
}

// dataCache remembers one 02-data folder: the mtime of every folder in it
// (a folder's mtime changes when an entry is added, removed or renamed) and
// of its dictionary, and the result of the last listing.
type dataCache struct {
	Dirs      map[string]int64 `json:"dirs"`
	DictNS    int64            `json:"dict_ns"`
	DictSize  int64            `json:"dict_size"`
	HasDict   bool             `json:"has_dict"`
	Count     int              `json:"count"`
	Sample    []string         `json:"sample,omitempty"`
	Truncated bool             `json:"truncated,omitempty"`
	// DesignNS and DesignSize are the research question's design as the
	// count saw it: files it does not plan are DC0's deviations, not counted.
	DesignNS   int64 `json:"design_ns,omitempty"`
	DesignSize int64 `json:"design_size,omitempty"`
}

// maxStateRead bounds how much of STATE.md is read.
const maxStateRead = 1 << 20

// readState refreshes the STATE.md cache from the file's stat, reading the
// file only when its mtime or size changed. It reports whether the file
// exists and whether the cache changed.
func readState(p string, c *stateCache) (exists, changed bool, err error) {
	info, err := os.Stat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return false, false, nil
		}
		return false, false, err
	}
	mt := info.ModTime().UnixNano()
	if c.Hash != "" && c.MtimeNS == mt && c.Size == info.Size() {
		return true, false, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return true, false, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxStateRead))
	f.Close()
	if err != nil {
		return true, false, err
	}
	h := userHash(raw)
	if h != c.Hash {
		c.Hash, c.ChangedMS = h, info.ModTime().UnixMilli()
	}
	c.MtimeNS, c.Size = mt, info.Size()
	c.PhaseKey, c.Phase, c.PhaseLine = resume.Phase(raw)
	return true, true, nil
}

// userHash identifies the researcher's part of STATE.md: the text before
// and after vibe's section, line endings normalised and the blank lines
// around the section trimmed, so vibe adding or rewriting its section never
// looks like an update by the researcher.
func userHash(raw []byte) string {
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	h := sha256.New()
	s, err := resume.FindSection(raw)
	if err != nil || !s.Found {
		h.Write(bytes.TrimRight(raw, " \t\n"))
	} else {
		h.Write(bytes.TrimRight(raw[:s.Block[0]], " \t\n"))
		if after := bytes.Trim(raw[s.Block[1]:], " \t\n"); len(after) > 0 {
			h.Write([]byte("\n\n"))
			h.Write(after)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// layout is what one listing of .vibe-science and its research-question
// folders shows: the 02-data folders and the findings files.
type layout struct {
	dataDirs []string // absolute
	findings []string // absolute paths of *findings*.md
	rqDirs   []string // absolute: the folders directly in .vibe-science
}

// scanLayout lists .vibe-science and each folder in it (one level), and
// each 04-results folder: a handful of small listings, never a walk.
func scanLayout(vibeDir string) layout {
	var l layout
	top, err := os.ReadDir(vibeDir)
	if err != nil {
		return l
	}
	visit := func(dir string, entries []fs.DirEntry) {
		for _, e := range entries {
			name := e.Name()
			switch {
			case strings.HasPrefix(name, "."):
			case e.IsDir() && name == "02-data":
				l.dataDirs = append(l.dataDirs, filepath.Join(dir, name))
			case e.IsDir() && name == "04-results":
				if sub, err := os.ReadDir(filepath.Join(dir, name)); err == nil {
					for _, s := range sub {
						if !s.IsDir() && isFindings(s.Name()) {
							l.findings = append(l.findings, filepath.Join(dir, name, s.Name()))
						}
					}
				}
			case !e.IsDir() && isFindings(name):
				l.findings = append(l.findings, filepath.Join(dir, name))
			}
		}
	}
	visit(vibeDir, top)
	for _, e := range top {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "02-data" && e.Name() != "04-results" {
			dir := filepath.Join(vibeDir, e.Name())
			l.rqDirs = append(l.rqDirs, dir)
			if sub, err := os.ReadDir(dir); err == nil {
				visit(dir, sub)
			}
		}
	}
	sort.Strings(l.dataDirs)
	sort.Strings(l.rqDirs)
	sort.Strings(l.findings)
	return l
}

func isFindings(name string) bool {
	low := strings.ToLower(name)
	return strings.HasSuffix(low, ".md") && strings.Contains(low, "findings")
}

// staleFindings is a findings file newer than its JSON by more than lag.
type staleFindings struct {
	md, json  string
	lag       time.Duration
	jsonMtime time.Time
}

// checkFindings compares each findings file with the JSON beside it; a
// findings file without one is DQ4's business at the next write.
func checkFindings(files []string, lag time.Duration) []staleFindings {
	var out []staleFindings
	for _, md := range files {
		js := strings.TrimSuffix(md, filepath.Ext(md)) + ".json"
		mi, err := os.Stat(md)
		if err != nil {
			continue
		}
		ji, err := os.Stat(js)
		if err != nil {
			continue
		}
		if d := mi.ModTime().Sub(ji.ModTime()); d > lag {
			out = append(out, staleFindings{md: md, json: js, lag: d, jsonMtime: ji.ModTime()})
		}
	}
	return out
}

// dictionaryName finds DATA-DICTIONARY.md in a data folder, in any case.
func dictionaryName(dataDir string) (string, fs.FileInfo) {
	p := filepath.Join(dataDir, "DATA-DICTIONARY.md")
	if info, err := os.Stat(p); err == nil {
		return p, info
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return "", nil
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), "data-dictionary.md") {
			p := filepath.Join(dataDir, e.Name())
			if info, err := os.Stat(p); err == nil {
				return p, info
			}
		}
	}
	return "", nil
}

// cacheValid reports whether nothing the cached listing depends on changed:
// the dictionary (mtime, size, presence) and every folder's mtime.
func (c dataCache) valid(dataDir string) bool {
	if c.Dirs == nil {
		return false
	}
	dict, info := dictionaryName(dataDir)
	if (dict != "") != c.HasDict || (info != nil && (info.ModTime().UnixNano() != c.DictNS || info.Size() != c.DictSize)) {
		return false
	}
	if _, ns, size := designOf(dataDir); ns != c.DesignNS || size != c.DesignSize {
		return false
	}
	d, err := openDirStat(dataDir)
	if err != nil {
		return false
	}
	defer d.close()
	for rel, mt := range c.Dirs {
		if got, ok := d.mtime(rel); !ok || got != mt {
			return false
		}
	}
	return true
}

// designOf is the design of the research question holding dataDir
// (DESIGN.md, else DESIGN.json), with its mtime and size; "" for none.
func designOf(dataDir string) (string, int64, int64) {
	for _, name := range []string{"DESIGN.md", "DESIGN.json"} {
		p := filepath.Join(filepath.Dir(dataDir), name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, info.ModTime().UnixNano(), info.Size()
		}
	}
	return "", 0, 0
}

// maxSample is how many undocumented files an alert names.
const maxSample = 5

// listData walks one 02-data folder (at most budget entries), returning the
// data files the dictionary does not document. Hidden entries, markdown
// notes and the dictionary itself are not data.
func listData(dataDir string, budget *int) dataCache {
	c := dataCache{Dirs: map[string]int64{}}
	dict, info := dictionaryName(dataDir)
	var doc dictionary
	if dict != "" {
		c.HasDict, c.DictNS, c.DictSize = true, info.ModTime().UnixNano(), info.Size()
		if raw, err := os.ReadFile(dict); err == nil {
			doc = parseDictionary(raw)
		}
	}
	// A file the research question's design does not plan (a scratch
	// copy, a sample) is a deviation DC0 warns about once; documenting it
	// is not asked for.
	var plan *gate.Plan
	if design, ns, size := designOf(dataDir); design != "" {
		c.DesignNS, c.DesignSize = ns, size
		deviations := filepath.Join(filepath.Dir(dataDir), "DEVIATIONS.md")
		if _, err := os.Stat(deviations); err != nil {
			deviations = ""
		}
		if p, err := gate.LoadPlan(design, deviations); err == nil {
			plan = &p
		}
	}
	var walk func(rel string)
	walk = func(rel string) {
		dir := filepath.Join(dataDir, filepath.FromSlash(rel))
		info, err := os.Stat(dir)
		if err != nil {
			return
		}
		c.Dirs[rel] = info.ModTime().UnixNano()
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if *budget <= 0 {
				c.Truncated = true
				return
			}
			*budget--
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			r := path.Join(rel, name)
			if e.IsDir() {
				walk(r)
				continue
			}
			if strings.EqualFold(path.Ext(name), ".md") || !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			if plan != nil && !plan.Plans(path.Join(filepath.Base(dataDir), r)) {
				continue
			}
			if !doc.lists(r) {
				c.Count++
				if len(c.Sample) < maxSample {
					c.Sample = append(c.Sample, r)
				}
			}
		}
	}
	walk(".")
	return c
}

// dictionary is what the observer needs of a DATA-DICTIONARY.md: its
// section headings (paths or globs, relative to its folder) and every word
// of it, so a file named anywhere in the prose counts as documented.
type dictionary struct {
	patterns []string
	words    map[string]bool
}

func parseDictionary(raw []byte) dictionary {
	d := dictionary{words: map[string]bool{}}
	var fences markdown.Fences
	for _, l := range bytes.Split(raw, []byte("\n")) {
		t := strings.TrimSpace(string(l))
		if fences.Step(string(l)) {
			continue // quoted examples document nothing
		}
		if strings.HasPrefix(t, "## ") {
			p := strings.Trim(strings.TrimSpace(t[3:]), "`")
			p = strings.TrimPrefix(p, "./")
			if p != "" {
				d.patterns = append(d.patterns, p)
			}
		}
		for _, w := range strings.FieldsFunc(t, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '`' || r == '|' || r == '(' || r == ')' || r == ',' || r == ';' || r == '"' || r == '\''
		}) {
			d.words[strings.TrimPrefix(strings.TrimRight(w, ".:"), "./")] = true
		}
	}
	return d
}

// lists reports whether the dictionary documents the file at rel (relative
// to the data folder): a heading naming it or a glob matching it, or its
// path written anywhere in the text.
func (d dictionary) lists(rel string) bool {
	if d.words == nil {
		return false
	}
	if d.words[rel] {
		return true
	}
	for _, p := range d.patterns {
		if p == rel {
			return true
		}
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
	}
	return false
}
