package gate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// TableProfile is what DQ1 remembers of a features table to compare it
// with its next version: the row count and, per column, the shares of zero
// and missing cells and whether the column is constant. It is small (a few
// dozen bytes per column) and JSON-serialisable, so a caller can store it
// between two writes of the table.
type TableProfile struct {
	Rows    int             `json:"rows"`
	Columns []ColumnProfile `json:"columns"`
}

// ColumnProfile is one column of a TableProfile. ZeroShare and
// MissingShare are fractions of all data rows.
type ColumnProfile struct {
	Name         string  `json:"name"`
	ZeroShare    float64 `json:"zero_share"`
	MissingShare float64 `json:"missing_share"`
	Constant     bool    `json:"constant,omitempty"`
	Numeric      bool    `json:"numeric,omitempty"`
	// Low and High are a numeric column's smallest and largest values,
	// each with the share of rows holding it.
	Low  *ValueShare `json:"low,omitempty"`
	High *ValueShare `json:"high,omitempty"`
}

// ValueShare is one value of a column and the share of all data rows that
// hold it. Apart says it is set apart from the column's other values by at
// least their range (see the point-mass check).
type ValueShare struct {
	Value float64 `json:"value"`
	Share float64 `json:"share"`
	Apart bool    `json:"apart,omitempty"`
}

// shareOf is the share of rows holding v, when the profile knows it: v is
// an extreme, or lies outside the column's range (share 0).
func (c ColumnProfile) shareOf(v float64) (float64, bool) {
	switch {
	case c.Low == nil || c.High == nil:
		return 0, false
	case c.Low.Value == v:
		return c.Low.Share, true
	case c.High.Value == v:
		return c.High.Share, true
	case v < c.Low.Value || v > c.High.Value:
		return 0, true
	}
	return 0, false
}

// Column returns the profile of the named column.
func (p *TableProfile) Column(name string) (ColumnProfile, bool) {
	if p == nil {
		return ColumnProfile{}, false
	}
	for _, c := range p.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ColumnProfile{}, false
}

func newProfile(cols []*colStats, rows int) *TableProfile {
	p := &TableProfile{Rows: rows, Columns: make([]ColumnProfile, 0, len(cols))}
	for _, c := range cols {
		if c.name == "" || c.dupOf > 0 {
			continue
		}
		cp := ColumnProfile{Name: c.name, Numeric: c.numeric(), Constant: c.constant()}
		if rows > 0 {
			cp.ZeroShare = float64(c.nNum-c.nonzero) / float64(rows)
			cp.MissingShare = float64(c.missing) / float64(rows)
			if cp.Numeric && c.nNum > 0 {
				cp.Low = &ValueShare{Value: c.min, Share: float64(c.minN) / float64(rows), Apart: c.lowApart()}
				cp.High = &ValueShare{Value: c.max, Share: float64(c.maxN) / float64(rows), Apart: c.highApart()}
			}
		}
		p.Columns = append(p.Columns, cp)
	}
	return p
}

// constant reports a column whose present values (at least two) are all
// the same: the zero_variance rule.
func (c *colStats) constant() bool {
	if c.present < 2 {
		return false
	}
	return (c.numeric() && c.nNum == c.present && c.min == c.max) || (!c.numeric() && c.allSame)
}

// compareProfiles fails each column of cur whose zero or missing share
// moved by more than maxChange from prev, or that became constant.
func compareProfiles(res *Result, prev, cur *TableProfile, maxChange float64) {
	common, changed := 0, 0
	for _, c := range cur.Columns {
		p, ok := prev.Column(c.Name)
		if !ok {
			continue
		}
		common++
		fix := fmt.Sprintf("find the step that changed `%s` (a simplified formula, a join or alignment that shifted rows) and fix it, or record the change and its reason in the data dictionary and DESIGN.md", c.Name)
		if d := c.ZeroShare - p.ZeroShare; math.Abs(d) > maxChange {
			changed++
			res.fail("version_change", fmt.Sprintf("column `%s` is zero in %s of rows, against %s in the previous version of the table (%s; at most %s allowed)",
				c.Name, percent(c.ZeroShare), percent(p.ZeroShare), signedPoints(d), percentPoints(maxChange)), fix)
		}
		if d := c.MissingShare - p.MissingShare; math.Abs(d) > maxChange {
			changed++
			res.fail("version_change", fmt.Sprintf("column `%s` is missing in %s of rows, against %s in the previous version of the table (%s; at most %s allowed)",
				c.Name, percent(c.MissingShare), percent(p.MissingShare), signedPoints(d), percentPoints(maxChange)), fix)
		}
		for _, v := range apartValues(p, c) {
			before, ok1 := p.shareOf(v)
			now, ok2 := c.shareOf(v)
			if d := now - before; ok1 && ok2 && math.Abs(d) > maxChange {
				changed++
				res.fail("version_change", fmt.Sprintf("column `%s` holds %s in %s of rows, against %s in the previous version of the table (%s; at most %s allowed)",
					c.Name, formatFloat(v), percent(now), percent(before), signedPoints(d), percentPoints(maxChange)), fix)
			}
		}
		if c.Constant && !p.Constant {
			changed++
			res.fail("version_change", fmt.Sprintf("column `%s` became constant; it varied in the previous version of the table", c.Name), fix)
		}
	}
	if changed > 0 {
		return
	}
	if common == 0 {
		res.pass("version_change", "not applicable: no column in common with the previous version of the table")
		return
	}
	res.pass("version_change", fmt.Sprintf("%s compared with the previous version (%d rows then, %d now): no zero or missing share moved by more than %s, none became constant",
		countOf(common, "column"), prev.Rows, cur.Rows, percentPoints(maxChange)))
}

// apartValues are the non-zero values set apart from the rest of their
// column in either version (zeros are compared by their own share).
func apartValues(prev, cur ColumnProfile) []float64 {
	var out []float64
	for _, vs := range []*ValueShare{prev.Low, prev.High, cur.Low, cur.High} {
		if vs != nil && vs.Apart && vs.Value != 0 && !slices.Contains(out, vs.Value) {
			out = append(out, vs.Value)
		}
	}
	return out
}

// countOf writes "1 column" or "3 columns".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func percentPoints(f float64) string {
	return strings.TrimSuffix(percent(f), "%") + " percentage points"
}

func signedPoints(d float64) string {
	s := percentPoints(math.Abs(d))
	if d < 0 {
		return "down " + s
	}
	return "up " + s
}

// crossState follows one dq1.cross_checks pair through the rows.
type crossState struct {
	check              CrossCheck
	computed, reported int // column indexes, -1 when absent
	computedName       string
	reportedName       string
	compared, skipped  int
	disagree           int
	examples           []string
}

// maxCrossExamples is how many disagreeing rows a failure names.
const maxCrossExamples = 3

func newCrossStates(checks []CrossCheck, byName map[string]int) []crossState {
	out := make([]crossState, len(checks))
	find := func(names Names) (int, string) {
		for _, n := range names {
			if i, ok := byName[n]; ok {
				return i, n
			}
		}
		return -1, ""
	}
	for i, c := range checks {
		s := crossState{check: c}
		s.computed, s.computedName = find(c.Computed)
		s.reported, s.reportedName = find(c.Reported)
		out[i] = s
	}
	return out
}

// add compares the pair on one data row (row counts from 1). Rows where
// either cell is missing are skipped: they say nothing about agreement.
func (s *crossState) add(rec []string, row int) {
	if s.computed < 0 || s.reported < 0 {
		return
	}
	if s.computed >= len(rec) || s.reported >= len(rec) {
		s.skipped++
		return
	}
	a, b := strings.TrimSpace(rec[s.computed]), strings.TrimSpace(rec[s.reported])
	if missing(a) || missing(b) {
		s.skipped++
		return
	}
	s.compared++
	if cellsAgree(a, b) {
		return
	}
	s.disagree++
	if len(s.examples) < maxCrossExamples {
		s.examples = append(s.examples, fmt.Sprintf("row %d: %s vs %s", row, a, b))
	}
}

// cellsAgree compares two cells as numbers when both are (within a
// relative 1e-6, so 3 equals 3.0 and a float written with fewer digits
// still agrees), else as text.
func cellsAgree(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return math.Abs(x-y) <= 1e-9+1e-6*math.Max(math.Abs(x), math.Abs(y))
	}
	return a == b
}

func (s *crossState) report(res *Result) {
	c := s.check
	name := "cross_check:" + c.Computed[0]
	if s.computed < 0 || s.reported < 0 {
		var absent []string
		if s.computed < 0 {
			absent = append(absent, "computed column ("+strings.Join(c.Computed, ", ")+")")
		}
		if s.reported < 0 {
			absent = append(absent, "reported column ("+strings.Join(c.Reported, ", ")+")")
		}
		res.pass(name, "not applicable: no "+strings.Join(absent, " and no "))
		return
	}
	compName, repName := s.computedName, s.reportedName
	if s.compared == 0 {
		res.warn(name, fmt.Sprintf("`%s` and `%s` are never both present on a row, so they could not be compared", compName, repName), "fill both columns, or remove the cross-check from the domain config with a reason")
		return
	}
	share := float64(s.disagree) / float64(s.compared)
	if share > c.ToleranceFraction {
		why := ""
		if c.Why != "" {
			why = " (" + c.Why + ")"
		}
		res.fail(name, fmt.Sprintf("computed `%s` disagrees with reported `%s` on %d of %d rows (%s, tolerance %s); first %s%s",
			compName, repName, s.disagree, s.compared, percent(share), percent(c.ToleranceFraction), strings.Join(s.examples, "; "), why),
			"find which of the two is wrong (recompute the column, or check how the reported one was parsed) before modelling on this table")
		return
	}
	res.pass(name, fmt.Sprintf("computed `%s` agrees with reported `%s` on %d of %d rows (tolerance %s)", compName, repName, s.compared-s.disagree, s.compared, percent(c.ToleranceFraction)))
}
