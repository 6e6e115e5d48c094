package gate

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// A derived table keeps the groups of the table it was made from, or says
// it does not (the blueprint's M8: a subsample that kept 4 of 12 guides
// and was reported as if it had kept them all). The hooks know what a call
// wrote; TablesRead finds what it read, from the command and the scripts
// it runs, and GroupsKept compares the two by their grouping column.
const (
	// maxDerivedBytes bounds each table GroupsKept reads; a larger one is
	// not compared (its groups could not all be counted).
	maxDerivedBytes = 64 << 20
	// maxScripts and maxScriptBytes bound what TablesRead reads.
	maxScripts     = 8
	maxScriptBytes = 1 << 20
)

var (
	// tableRef is a path to a table as a command or a script writes it:
	// quoted, or a bare word.
	tableRef = regexp.MustCompile(`(?i)[^\s'"=;|&<>(){},\[\]]+\.(?:csv|tsv|tab|txt)\b`)
	// scriptRef is a script a command runs.
	scriptRef = regexp.MustCompile(`(?i)[^\s'"=;|&<>(){},\[\]]+\.(?:py|r|jl|sh|bash|rmd|qmd|pl|rb)\b`)
)

// TablesRead lists the existing tables (CSV, TSV, TAB, TXT) under root that
// a shell command names, in its own text or in the text of the scripts it
// runs (python3 analysis/make_table.py, Rscript subsample.R), each path
// resolved against cwd, the script's folder and the folders above it up to
// root, then root. The list is sorted; paths are absolute.
func TablesRead(command, cwd, root string) []string {
	found := map[string]bool{}
	take := func(text, dir string) {
		for _, ref := range tableRef.FindAllString(text, -1) {
			if p := resolveUnder(ref, cwd, dir, root); p != "" {
				found[p] = true
			}
		}
	}
	take(command, cwd)
	scripts := 0
	for _, ref := range scriptRef.FindAllString(command, -1) {
		p := resolveUnder(ref, cwd, cwd, root)
		if p == "" || scripts == maxScripts {
			continue
		}
		scripts++
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		raw, _ := io.ReadAll(io.LimitReader(f, maxScriptBytes))
		f.Close()
		take(string(raw), filepath.Dir(p))
	}
	out := make([]string, 0, len(found))
	for p := range found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// resolveUnder finds ref as a regular file under root: as an absolute
// path, or relative to cwd, to dir and each folder above it up to root,
// then to root. "" when none exists.
func resolveUnder(ref, cwd, dir, root string) string {
	if strings.ContainsAny(ref, "*?{}$") {
		return ""
	}
	ref = filepath.FromSlash(strings.TrimPrefix(ref, "./"))
	var tries []string
	if filepath.IsAbs(ref) {
		tries = []string{ref}
	} else {
		tries = append(tries, filepath.Join(cwd, ref))
		for d := dir; ; d = filepath.Dir(d) {
			tries = append(tries, filepath.Join(d, ref))
			if d == root || !strings.HasPrefix(d, root) || filepath.Dir(d) == d {
				break
			}
		}
		tries = append(tries, filepath.Join(root, ref))
	}
	for _, p := range tries {
		p = filepath.Clean(p)
		if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
			continue
		}
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// GroupsKept judges each table a call wrote against the tables it read:
// for a written table with a grouping column (dq1.grouping.column, else
// inferred from its values, see dq1groups.go) that a read table also has,
// the share of the read table's groups it keeps. The read table it was
// made from is the one it keeps the largest share of (a join keeps all
// groups of one input and few of another). Tables written together from
// one source whose groups add up to dq2.min_group_share_kept are a split
// (train and test by group) and pass. It returns one "groups_kept" check
// per written table judged, by its path. known holds groups already read
// (DQ1's Result.Groups of a written table), by path; a read table's groups
// are remembered while its size and time stay the same.
func GroupsKept(read, written []string, known map[string]*TableGroups, d Domain) map[string]Check {
	type derived struct {
		path, col, source string
		groups            map[string]bool
		kept, total       int
	}
	cache := map[[2]string]map[string]bool{}
	groupsOf := func(p, col string) map[string]bool {
		k := [2]string{p, col}
		if g, ok := cache[k]; ok {
			return g
		}
		g := sourceGroups(p, col, d)
		cache[k] = g
		return g
	}
	var all []*derived
	isWritten := map[string]bool{}
	for _, w := range written {
		isWritten[w] = true
	}
	for _, w := range written {
		var col string
		var groups map[string]bool
		if tg := known[w]; tg != nil {
			col, groups = tg.Column, tg.Values
		} else if c, g, err := tableGroups(w, "", d); err == nil {
			col, groups = c, g
		}
		if col == "" {
			continue
		}
		x := &derived{path: w, col: col, groups: groups}
		best := -1.0
		for _, r := range read {
			if isWritten[r] || r == w {
				continue
			}
			src := groupsOf(r, col)
			if len(src) == 0 {
				continue
			}
			kept := 0
			for g := range groups {
				if src[g] {
					kept++
				}
			}
			if share := float64(kept) / float64(len(src)); share > best {
				best, x.source, x.kept, x.total = share, r, kept, len(src)
			}
		}
		if x.source != "" {
			all = append(all, x)
		}
	}
	out := map[string]Check{}
	min := d.DQ2.MinGroupShareKept
	for _, x := range all {
		share := float64(x.kept) / float64(x.total)
		what := fmt.Sprintf("grouped by `%s`: %d of %d groups of %s kept", x.col, x.kept, x.total, filepath.Base(x.source))
		if share >= min {
			out[x.path] = Check{Name: "groups_kept", Status: StatusPass, Detail: fmt.Sprintf("%s (%s, at least %s)", what, percent(share), percent(min))}
			continue
		}
		// A split: the tables written from the same source keep its groups
		// together.
		union := map[string]bool{}
		parts := 0
		for _, y := range all {
			if y.source != x.source || y.col != x.col {
				continue
			}
			parts++
			for g := range y.groups {
				if groupsOf(x.source, x.col)[g] {
					union[g] = true
				}
			}
		}
		if together := float64(len(union)) / float64(x.total); parts > 1 && together >= min {
			out[x.path] = Check{Name: "groups_kept", Status: StatusPass,
				Detail: fmt.Sprintf("%s, one of %d tables written from it that together keep %d (%s): a split", what, parts, len(union), percent(together))}
			continue
		}
		out[x.path] = Check{Name: "groups_kept", Status: StatusFail,
			Detail: fmt.Sprintf("%s (%s, below %s): the table describes a subsample of the groups", what, percent(share), percent(min)),
			Fix: fmt.Sprintf("keep every group of %s, or report results on this table as a subsample and say how the groups were chosen (lower dq2.min_group_share_kept with the reason if the subsample is the design); if `%s` is not what the rows are grouped by, set dq1.grouping.column in .vibe-science/domain-config.json",
				filepath.Base(x.source), x.col)}
	}
	return out
}

// AddCheck appends a check to the result, its status counting toward the
// result's.
func (r *Result) AddCheck(c Check) { r.add(c.Name, c.Status, c.Detail, c.Fix) }

// tableGroups reads a table's groups: the values of column col, or, with
// col empty, of the grouping column DQ1 would use (configured or
// inferred), whose name it returns. A table larger than maxDerivedBytes
// is an error: its groups could not all be counted.
func tableGroups(p, col string, d Domain) (string, map[string]bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || info.Size() > maxDerivedBytes {
		return "", nil, fmt.Errorf("%s: too large to count its groups", p)
	}
	br, cr, _ := tableReader(f, p)
	header, err := readHeader(cr)
	if err != nil {
		return "", nil, err
	}
	cols := make([]*colStats, len(header))
	seen := map[string]bool{}
	idx := -1
	for i, h := range header {
		cols[i] = &colStats{name: h}
		if seen[h] {
			cols[i].dupOf = 1
		}
		seen[h] = true
		if col != "" && h == col && idx < 0 {
			idx = i
		}
	}
	if col != "" {
		if idx < 0 {
			return "", nil, nil
		}
		groups, err := columnValues(br, cr.Comma, idx)
		if err != nil {
			return "", nil, err
		}
		return col, groups, nil
	}
	label := findLabel(cols, d.DQ1.LabelColumn)
	g := newGroupInference(cols, label, d.DQ1.Grouping)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, err
		}
		g.row(rec)
	}
	gi, _ := g.grouping(cols, d.DQ1.Grouping)
	if gi < 0 {
		return "", nil, nil
	}
	groups := make(map[string]bool, len(g.track[gi].counts))
	for v := range g.track[gi].counts {
		groups[v] = true
	}
	return cols[gi].name, groups, nil
}

// columnValues reads the distinct values of field idx of each line left in
// br. A line without a quote is split on the delimiter directly (a tenth of
// what encoding/csv costs per line); a line with one is parsed as CSV, and
// a quoted field that runs over lines ends the reading with an error.
func columnValues(br *bufio.Reader, comma rune, idx int) (map[string]bool, error) {
	out := map[string]bool{}
	sep := byte(comma)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("a line longer than %d bytes", br.Size())
		}
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			var field string
			if bytes.IndexByte(line, '"') < 0 {
				for i := 0; i < idx && line != nil; i++ {
					if j := bytes.IndexByte(line, sep); j >= 0 {
						line = line[j+1:]
					} else {
						line = nil
					}
				}
				if line != nil {
					if j := bytes.IndexByte(line, sep); j >= 0 {
						line = line[:j]
					}
					field = string(bytes.TrimSpace(line))
				}
			} else {
				cr := csv.NewReader(bytes.NewReader(line))
				cr.Comma = comma
				cr.FieldsPerRecord = -1
				rec, err := cr.Read()
				if err != nil {
					return nil, fmt.Errorf("a quoted field runs over lines: %w", err)
				}
				if idx < len(rec) {
					field = strings.TrimSpace(rec[idx])
				}
			}
			if !missing(field) && !out[field] {
				out[field] = true
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// sourceGroups are the values of column col of a table a command read,
// remembered while the file's size and time stay the same (the source of
// a derived table is read again and again, and rarely changes); nil when
// the table cannot be read or lacks the column.
func sourceGroups(p, col string, d Domain) map[string]bool {
	info, err := os.Stat(p)
	if err != nil {
		return nil
	}
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%d", p, col, info.Size(), info.ModTime().UnixNano())
	sourceMemo.Lock()
	g, ok := sourceMemo.m[key]
	sourceMemo.Unlock()
	if ok {
		return g
	}
	_, g, err = tableGroups(p, col, d)
	if err != nil {
		g = nil
	}
	sourceMemo.Lock()
	defer sourceMemo.Unlock()
	if len(sourceMemo.m) >= maxSourceMemo {
		sourceMemo.m = map[string]map[string]bool{}
	}
	sourceMemo.m[key] = g
	return g
}

// maxSourceMemo bounds the remembered source tables; past it the memo
// starts again.
const maxSourceMemo = 32

var sourceMemo = struct {
	sync.Mutex
	m map[string]map[string]bool
}{m: map[string]map[string]bool{}}
