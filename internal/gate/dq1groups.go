package gate

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// The grouping column of a table: the column whose values name the units
// the rows belong to (a guide's candidate sites, a patient's visits, a
// site's subjects). Rows of one group are not independent, so folds must
// hold whole groups, enough of them, and a subsample must say how many
// groups it kept (the blueprint's M8). dq1.grouping.column names it; left
// empty, DQ1 infers it from the values:
//
//   - the column has at least minGroups distinct values, at most
//     maxGroupValues, and at least two rows per value on average, and no
//     value holds every row;
//   - its values are identifiers (no spaces, and a digit with a letter, or
//     an upper-case code of three characters or more: G07, EMX1,
//     VEGFA_site1, P-0412, HEK293, a guide sequence), or its name says it
//     is one (guide_id, patient, SubjectID, Targetsite, site, donor…); a
//     column of integers qualifies only by a part of its name (patient,
//     subject_id; not persons, a household size), since any count repeats
//     its values; a name that says position (chromosome, chr,
//     contig, strand) never qualifies, since rows sharing a chromosome are
//     no unit;
//   - among several, a column the name says is an identifier goes first,
//     then the leftmost.
//
// The fold column (dq1.grouping.fold_column, else a column whose name
// holds "fold" or is cv, resample or partition, with at most maxFolds
// values) gives the groups of each held-out fold.
const (
	minGroups      = 3
	maxGroupValues = 5000
	maxFolds       = 50
	// uniqueAfter: a column whose first uniqueAfter values are all
	// different is a row id (site_id), and is no longer followed; a
	// grouping column repeats a value long before (two rows per group
	// of 5000, shuffled, repeat one within 256 rows but for a chance of
	// about 1 in 700).
	uniqueAfter = 256
)

// groupNameTokens are name parts that mark a grouping column.
var groupNameTokens = []string{"id", "ids", "subject", "subj", "patient", "participant", "donor", "individual",
	"person", "guide", "sgrna", "grna", "target", "targetsite", "site", "sample", "family", "cluster", "group",
	"batch", "plate", "animal", "mouse", "mice", "rat", "centre", "center", "hospital", "clinic", "household",
	"school", "cohort", "specimen", "tree", "plant", "firm", "unit"}

// positionNameTokens are name parts of genomic or physical positions.
var positionNameTokens = []string{"chr", "chrom", "chromosome", "contig", "strand", "position", "pos"}

type groupInference struct {
	track []*groupTrack // per column, nil when not followed
	fold  int           // fold column index, -1 for none
	// foldSet says the fold column was named in the config.
	foldSet bool
	// joint holds, per followed column, the (fold, value) pairs seen.
	joint []map[[2]string]struct{}
}

type groupTrack struct {
	counts   map[string]int32
	over     bool // too many values, or a number that is not an integer
	set      bool // named by dq1.grouping.column
	named    bool // the name says it is an identifier
	exact    bool // … in a part of its own (patient, Subject_ID), not inside a word (persons)
	idLike   int  // distinct values that look like identifiers
	numbers  int  // distinct values that are integers
	present  int
	position bool
}

func newGroupInference(cols []*colStats, label int, cfg GroupingConfig) *groupInference {
	g := &groupInference{track: make([]*groupTrack, len(cols)), fold: -1}
	if cfg.FoldColumn != GroupingOff {
		for i, c := range cols {
			if c.dupOf > 0 || i == label {
				continue
			}
			if (cfg.FoldColumn != "" && c.name == cfg.FoldColumn) || (cfg.FoldColumn == "" && foldName(c.name)) {
				g.fold, g.foldSet = i, cfg.FoldColumn != ""
				break
			}
		}
	}
	if cfg.Column == GroupingOff {
		return g
	}
	for i, c := range cols {
		if c.dupOf > 0 || c.name == "" || i == label {
			continue
		}
		if cfg.Column != "" && c.name != cfg.Column && i != g.fold {
			continue
		}
		toks := nameTokens(c.name)
		t := &groupTrack{counts: map[string]int32{}, named: hasGroupToken(c.name, toks), exact: hasAny(toks, groupNameTokens) || idSuffix(c.name, toks),
			position: hasAny(toks, positionNameTokens)}
		if cfg.Column != "" && c.name == cfg.Column {
			t.named, t.exact, t.set = true, true, true
		}
		g.track[i] = t
	}
	if g.fold >= 0 {
		g.joint = make([]map[[2]string]struct{}, len(cols))
		for i, t := range g.track {
			if t != nil && i != g.fold {
				g.joint[i] = map[[2]string]struct{}{}
			}
		}
	}
	return g
}

// row counts one data row's values in the followed columns.
func (g *groupInference) row(rec []string) {
	fold := ""
	if g.fold >= 0 && g.fold < len(rec) {
		fold = strings.TrimSpace(rec[g.fold])
	}
	for i, t := range g.track {
		if t == nil || t.over || i >= len(rec) {
			continue
		}
		v := strings.TrimSpace(rec[i])
		if missing(v) {
			continue
		}
		t.present++
		if t.present == uniqueAfter+1 && len(t.counts) == uniqueAfter && !t.set {
			// Every value so far was new: an id of rows, not of groups.
			g.drop(i)
			continue
		}
		n, seen := t.counts[v]
		if !seen {
			f, err := strconv.ParseFloat(v, 64)
			if len(t.counts) == maxGroupValues || (err == nil && (f != math.Trunc(f) || (!t.exact && i != g.fold))) {
				g.drop(i)
				continue
			}
			if err == nil {
				t.numbers++
			} else if idLike(v) {
				t.idLike++
			}
		}
		t.counts[v] = n + 1
		if g.joint != nil && g.joint[i] != nil && fold != "" {
			g.joint[i][[2]string{fold, v}] = struct{}{}
		}
	}
}

// drop stops following column i: too many values for a grouping, or a
// number that cannot be one.
func (g *groupInference) drop(i int) {
	g.track[i].over, g.track[i].counts = true, nil
	if g.joint != nil {
		g.joint[i] = nil
	}
}

// grouping is the chosen grouping column: its index (-1 for none) and how
// it was found.
func (g *groupInference) grouping(cols []*colStats, cfg GroupingConfig) (int, bool) {
	best, bestNamed := -1, false
	for i, t := range g.track {
		if t == nil || t.over || i == g.fold {
			continue
		}
		if cfg.Column != "" {
			if cols[i].name == cfg.Column {
				return i, true
			}
			continue
		}
		n := len(t.counts)
		largest := int32(0)
		for _, c := range t.counts {
			largest = max(largest, c)
		}
		if n < minGroups || t.present < 2*n || int(largest) == t.present || t.position {
			continue
		}
		idValues := t.numbers == 0 && t.idLike*10 >= 8*n
		if !t.named && !idValues {
			continue
		}
		if best < 0 || (t.named && !bestNamed) {
			best, bestNamed = i, t.named
		}
	}
	return best, false
}

// report states the inferred grouping and judges the groups of each fold.
func (g *groupInference) report(res *Result, cols []*colStats, d Domain) {
	cfg := d.DQ1.Grouping
	gi, set := g.grouping(cols, cfg)
	if gi < 0 {
		if cfg.Column != "" && cfg.Column != GroupingOff {
			res.pass("grouping", fmt.Sprintf("not applicable: dq1.grouping.column names `%s`, which this table does not hold with at most %d values", cfg.Column, maxGroupValues))
		}
		return
	}
	t, name := g.track[gi], cols[gi].name
	res.Groups = &TableGroups{Column: name, Values: make(map[string]bool, len(t.counts))}
	for v := range t.counts {
		res.Groups.Values[v] = true
	}
	how := "inferred from its values; set dq1.grouping.column to change"
	if set {
		how = "set by dq1.grouping.column"
	}
	res.pass("grouping", fmt.Sprintf("grouped by `%s` (%d groups, %s rows each on average; %s)", name, len(t.counts), formatFloat(round1(float64(t.present)/float64(len(t.counts)))), how))
	if g.fold < 0 || g.track[g.fold] == nil || g.track[g.fold].over {
		return
	}
	ft, fname := g.track[g.fold], cols[g.fold].name
	if len(ft.counts) < 2 || len(ft.counts) > maxFolds {
		return
	}
	perFold := map[string]int{}
	foldsOf := map[string]int{}
	for k := range g.joint[gi] {
		perFold[k[0]]++
		foldsOf[k[1]]++
	}
	folds := make([]string, 0, len(perFold))
	for f := range perFold {
		folds = append(folds, f)
	}
	sortFolds(folds)
	counts := make([]float64, len(folds))
	for i, f := range folds {
		counts[i] = float64(perFold[f])
	}
	what := fmt.Sprintf("grouped by `%s` with folds in `%s`", name, fname)
	min := d.DQ2.MinGroupsPerFold
	switch {
	case leaveOneGroupOut(counts, min):
		res.pass("groups_per_fold", fmt.Sprintf("%s: leave-one-group-out, %d folds of one group each", what, len(folds)))
	default:
		var small []string
		for _, f := range folds {
			if perFold[f] < min {
				small = append(small, fmt.Sprintf("fold %s holds %s", f, countOf(perFold[f], "group")))
			}
		}
		if len(small) > 0 {
			res.fail("groups_per_fold", fmt.Sprintf("%s: %s; each held-out fold needs at least %d groups (dq2.min_groups_per_fold)", what, strings.Join(small, ", "), min),
				fmt.Sprintf("use fewer folds or more groups, so that no fold's score rests on one or two groups; if `%s` is not what the rows are grouped by, set dq1.grouping.column in .vibe-science/domain-config.json", name))
		} else {
			res.pass("groups_per_fold", fmt.Sprintf("%s: every fold holds at least %d groups", what, min))
		}
	}
	spread := 0
	for _, n := range foldsOf {
		if n > 1 {
			spread++
		}
	}
	if spread > 0 {
		res.warn("groups_per_fold", fmt.Sprintf("%s: %d of %d groups have rows in more than one fold, so a held-out fold shares groups with the folds it is tested against", what, spread, len(foldsOf)),
			fmt.Sprintf("assign folds by `%s` (GroupKFold), or say in DESIGN.md why rows of one group may be split", name))
	}
}

// sortFolds orders fold labels as numbers when they all are, else as text.
func sortFolds(folds []string) {
	sort.Slice(folds, func(i, j int) bool {
		a, errA := strconv.ParseFloat(folds[i], 64)
		b, errB := strconv.ParseFloat(folds[j], 64)
		if errA == nil && errB == nil {
			return a < b
		}
		return folds[i] < folds[j]
	})
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// nameTokens splits a column name into lower-case parts at separators and
// at lower-to-upper case changes: "SubjectID" → subject, id.
func nameTokens(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(runes[i-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// hasGroupToken reports a name that says its column is an identifier: a
// part of it (guide_id, Subject), an id glued to its end (patientid), or,
// for a column of text, a word inside it (Targetsite).
func hasGroupToken(name string, toks []string) bool {
	if hasAny(toks, groupNameTokens) || idSuffix(name, toks) {
		return true
	}
	compact := strings.ToLower(strings.Join(toks, ""))
	for _, t := range groupNameTokens {
		if len(t) >= 4 && strings.Contains(compact, t) {
			return true
		}
	}
	return false
}

// idSuffix reports a name ending in id glued to a word: patientid, guideID.
func idSuffix(name string, toks []string) bool {
	compact := strings.ToLower(strings.Join(toks, ""))
	return len(compact) > 2 && strings.HasSuffix(compact, "id") && strings.HasSuffix(strings.ToLower(name), "id")
}

func hasAny(toks, set []string) bool {
	for _, t := range toks {
		for _, s := range set {
			if t == s {
				return true
			}
		}
	}
	return false
}

// foldName reports a column named as a fold assignment.
func foldName(name string) bool {
	toks := nameTokens(name)
	for _, t := range toks {
		if strings.Contains(t, "fold") || t == "cv" || t == "resample" || t == "partition" {
			return true
		}
	}
	return false
}

// idLike reports a value written as an identifier: no spaces, and either a
// letter with a digit or an upper-case code of at least three characters.
func idLike(v string) bool {
	if len(v) == 0 || len(v) > 64 {
		return false
	}
	letter, digit, lower := false, false, false
	for _, r := range v {
		switch {
		case unicode.IsSpace(r):
			return false
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsLetter(r):
			letter = true
			lower = lower || unicode.IsLower(r)
		}
	}
	return (letter && digit) || (letter && !lower && len(v) >= 3)
}
