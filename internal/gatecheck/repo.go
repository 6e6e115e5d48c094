package gatecheck

import (
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

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
)

// maxTextFile caps the files read whole (ledgers, reviews, direction
// candidates): research notes are small, and a multi-megabyte file named
// like a note is data, not a note.
const maxTextFile = 1 << 20

// rqName matches a research-question folder: RQ-001 or RQ-001-slug.
var rqName = regexp.MustCompile(`^RQ-[0-9]{3,}(-.*)?$`)

// repo is one scan of a repository: its files, research questions and
// domain, with each gate computed at most once per file.
type repo struct {
	root  string // absolute, symlinks resolved
	vibe  string // root/.vibe-science
	d     gate.Domain
	files []string // every regular file walked, absolute, in walk (lexical) order
	rqs   []string // research-question folders, absolute, sorted
	cache map[string]cached
	kinds map[string]research.Artifact // what each walked file is, as recognised
	// origins say how the results were written (the project's lineage
	// mirror): DQ4 and the promotions take numbers only from results a
	// computation wrote.
	origins gate.Origins
}

type cached struct {
	res gate.Result
	err error
}

// scan walks root, skipping what is not research as the hooks do
// (research.Walk: version control, virtual environments, caches, build
// output, test fixtures, .gitignore'd folders). Research questions are
// RQ-* folders directly under the root or under .vibe-science/.
func scan(root string, d gate.Domain) (*repo, error) {
	r := &repo{root: root, vibe: filepath.Join(root, project.Dir), d: d, cache: map[string]cached{}, kinds: map[string]research.Artifact{}}
	err := research.Walk(research.NewIgnore(root), func(dir string, entries []fs.DirEntry) {
		if dir != root && dir != r.vibe {
			return
		}
		for _, e := range entries {
			if e.IsDir() && rqName.MatchString(e.Name()) {
				r.rqs = append(r.rqs, filepath.Join(dir, e.Name()))
			}
		}
	}, func(p string, _ fs.DirEntry) {
		r.files = append(r.files, p)
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	sort.Strings(r.rqs)
	return r, nil
}

// kind is what a walked file is (research.Recognize on its head), computed
// once; a file over research.MaxBytes or unreadable is nothing.
func (r *repo) kind(p string) research.Artifact {
	if a, ok := r.kinds[p]; ok {
		return a
	}
	var a research.Artifact
	rel := r.rel(p)
	if research.Candidate(rel, &r.d) {
		if info, err := os.Stat(p); err == nil && info.Size() <= research.MaxBytes {
			if f, err := research.ReadFile(p, rel); err == nil {
				a = research.Recognize(f, r.d)
			}
		}
	}
	r.kinds[p] = a
	return a
}

// rel is p relative to the root with forward slashes.
func (r *repo) rel(p string) string {
	if rel, err := filepath.Rel(r.root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// clean removes the root from a message, so every path a person reads is
// relative to the repository, as in the other outputs; the root itself
// reads ".".
func (r *repo) clean(s string) string {
	s = strings.ReplaceAll(s, r.root+string(filepath.Separator), "")
	return strings.ReplaceAll(s, r.root, ".")
}

// rqOf is the research question holding p, or "".
func (r *repo) rqOf(p string) string {
	for _, rq := range r.rqs {
		if strings.HasPrefix(p, rq+string(filepath.Separator)) {
			return rq
		}
	}
	return ""
}

// filesOf lists the walked files of a kind (research.KindFeatures …), as
// recognised, within dir when dir is not empty.
func (r *repo) filesOf(kind, dir string) []string {
	var out []string
	for _, f := range r.files {
		if dir != "" && !strings.HasPrefix(f, dir+string(filepath.Separator)) {
			continue
		}
		if r.kind(f).Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// run computes a gate once per key and remembers the result: the sweep and
// the claim checks judge the same files.
func (r *repo) run(key string, fn func() (gate.Result, error)) (gate.Result, error) {
	if c, ok := r.cache[key]; ok {
		return c.res, c.err
	}
	res, err := fn()
	r.cache[key] = cached{res, err}
	return res, err
}

// runGate runs gate id on a file with the domain as the file's
// recognition has it (a feature table's label).
func (r *repo) runGate(id, file string, in gate.Inputs) (gate.Result, error) {
	if id == "DQ4" {
		in.Origins = r.origins
	}
	return r.run(id+"\x00"+file, func() (gate.Result, error) { return gate.Run(id, in, r.kind(file).Domain(r.d)) })
}

func (r *repo) dd0(table string) (gate.Result, error) {
	return r.run("DD0\x00"+table, func() (gate.Result, error) {
		dict, err := gate.FindDictionary(table, r.root, r.d)
		if err != nil {
			return gate.Result{}, err
		}
		return gate.DD0Table(dict, table)
	})
}

func (r *repo) dc0(design string) (gate.Result, error) {
	return r.run("DC0\x00"+design, func() (gate.Result, error) {
		executed, err := gate.DataFiles(filepath.Dir(design))
		if err != nil {
			return gate.Result{}, err
		}
		return gate.DC0(design, "", executed)
	})
}

// designOf finds the design file of a research question: DESIGN.md, or its
// JSON form DESIGN.json, in any case.
func designOf(rq string) (string, bool) {
	entries, err := os.ReadDir(rq)
	if err != nil {
		return "", false
	}
	for _, want := range []string{"DESIGN.md", "DESIGN.json"} {
		for _, e := range entries {
			if !e.IsDir() && strings.EqualFold(e.Name(), want) {
				return filepath.Join(rq, e.Name()), true
			}
		}
	}
	return "", false
}

// resultItem turns a gate result on file into an item: one finding per
// check that did not pass, located by the "NAME line N:" or "line N:"
// prefix the gates put on their details.
func (r *repo) resultItem(res gate.Result, file, subject string) Item {
	it := Item{Gate: res.Gate, File: r.rel(file), Subject: subject}
	for _, c := range res.Checks {
		var lvl Level
		switch c.Status {
		case gate.StatusFail:
			lvl = Error
		case gate.StatusWarn:
			lvl = Warning
		default:
			continue
		}
		f := Finding{Gate: res.Gate, Level: lvl, File: it.File, Message: r.clean(c.Detail), Fix: r.clean(c.Fix)}
		r.locate(&f, res.Inputs)
		it.Findings = append(it.Findings, f)
	}
	return it
}

// errorItem reports a gate that could not be computed (an unreadable file,
// no data dictionary) as a failure of that gate on the file.
func (r *repo) errorItem(id, file string, err error, fix string) Item {
	return Item{Gate: id, File: r.rel(file), Findings: []Finding{{Gate: id, Level: Error, File: r.rel(file),
		Message: r.clean(err.Error()), Fix: fix}}}
}

func (r *repo) locate(f *Finding, inputs []string) {
	for _, in := range inputs {
		base := filepath.Base(in)
		if rest, ok := strings.CutPrefix(f.Message, base+" "); ok && strings.HasPrefix(rest, "line ") {
			if n, msg, ok := lineOf(rest); ok {
				f.File, f.Line, f.Message = r.rel(in), n, msg
				return
			}
		}
		if rest, ok := strings.CutPrefix(f.Message, base+": "); ok {
			f.File, f.Message = r.rel(in), rest
			return
		}
	}
	if n, msg, ok := lineOf(f.Message); ok {
		f.Line, f.Message = n, msg
	}
}

// lineOf splits "line 12: rest" into 12 and "rest".
func lineOf(s string) (int, string, bool) {
	rest, ok := strings.CutPrefix(s, "line ")
	if !ok {
		return 0, s, false
	}
	i := strings.Index(rest, ": ")
	if i <= 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(rest[:i])
	if err != nil || n < 1 {
		return 0, s, false
	}
	return n, rest[i+2:], true
}

// readSmall reads a text file of at most maxTextFile bytes.
func readSmall(p string) ([]byte, bool) {
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxTextFile {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

// existsFile reports whether p is a regular file.
func existsFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// siblingFold finds the file named name in dir, ignoring case.
func siblingFold(dir, name string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if !e.IsDir() && e.Name() == name {
			return filepath.Join(dir, e.Name()), true
		}
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), name) {
			return filepath.Join(dir, e.Name()), true
		}
	}
	return "", false
}

// loadDomain reads the project's domain config. A config that does not
// validate is reported as a domain-config failure, one finding per problem
// with its field path, and the generic domain is used instead so the other
// gates still run. Without a config there is no item: the generic domain
// applies, as everywhere else.
func loadDomain(root string) (gate.Domain, *Item, error) {
	p := filepath.Join(root, filepath.FromSlash(gate.DomainConfigPath))
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		d, err := gate.ShippedDomain(gate.GenericDomain)
		return d, nil, err
	}
	rel := path.Clean(gate.DomainConfigPath)
	if err != nil {
		return gate.Domain{}, nil, fmt.Errorf("read domain config: %w", err)
	}
	it := &Item{Gate: RuleDomainConfig, File: rel}
	if errs := gate.ValidateDomain(raw); len(errs) > 0 {
		for _, e := range errs {
			it.Findings = append(it.Findings, Finding{Gate: RuleDomainConfig, Level: Error, File: rel,
				Message: e.Error() + " (the generic domain was used for this check)",
				Fix:     "correct the field as `vibe domain validate` explains"})
		}
		d, err := gate.ShippedDomain(gate.GenericDomain)
		return d, it, err
	}
	d, err := gate.LoadDomain(root)
	return d, it, err
}
