package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The point-mass check: one value held by a share of a numeric column's
// rows and set apart from the column's other values. Such a value is a
// code (-1, 999, -9999 for "missing" or "not computed") or a fallback a
// code path writes (0 for "no score"), and a model reads it as a
// measurement. DQ1 finds it without knowing the column: it keeps each
// column's smallest and largest values with their counts and the values
// next to them, and calls the smallest (largest) a point mass when
//
//   - it holds at least dq1.point_mass.min_share of the rows, and at least
//     minPointRows of them;
//   - the column has at least six distinct values (five besides the
//     point), so a flag, a grade or a small count is never judged; and
//   - the gap to the next value is at least the range of the other values
//     (-1 below scores in [0, 1]; 999 above ages in [18, 90]; 0 below a
//     score that otherwise lies in [0.5, 1]).
//
// A point that is a code (a negative whole number below a column that is
// otherwise never negative, or 9, 99, 999… or ±1000, ±10000… ) fails: it is
// a missing value read as a number. (log(x + 0.01) puts the zeros of x at
// -4.6, apart from the rest: a point mass, not a code.) Any other point mass (0, a saturation
// value) is a warning: it may be real. The profile keeps each column's
// extremes and their shares, so DQ1Compare also fails a point mass whose
// share moved by more than dq1.max_share_change between versions.
const minPointRows = 5

// pointMass is one value set apart from the rest of its column.
type pointMass struct {
	value  float64
	count  int
	share  float64
	lo, hi float64 // range of the column's other values
	code   bool
	high   bool // the largest value, not the smallest
}

// lowApart reports a smallest value set apart from the column's other
// values by at least their range, in a column of at least six distinct
// values; highApart the same of the largest.
func (c *colStats) lowApart() bool {
	rest := c.max - c.min2
	return c.distinctAtLeast(6) && c.haveMin2 && rest > 0 && c.min2-c.min >= rest
}

func (c *colStats) highApart() bool {
	rest := c.max2 - c.min
	return c.distinctAtLeast(6) && c.haveMax2 && rest > 0 && c.max-c.max2 >= rest
}

// points returns the point masses of a column (at most one per end).
func (c *colStats) points(rows int, minShare float64) []pointMass {
	if !c.numeric() || rows == 0 {
		return nil
	}
	var out []pointMass
	if c.lowApart() {
		out = append(out, pointMass{value: c.min, count: c.minN, lo: c.min2, hi: c.max})
	}
	if c.highApart() {
		out = append(out, pointMass{value: c.max, count: c.maxN, lo: c.min, hi: c.max2, high: true})
	}
	kept := out[:0]
	for _, p := range out {
		p.share = float64(p.count) / float64(rows)
		if p.count < minPointRows || p.share < minShare {
			continue
		}
		p.code = codeValue(p.value) || (!p.high && p.value < 0 && p.value == math.Trunc(p.value) && p.lo >= 0)
		kept = append(kept, p)
	}
	return kept
}

// codeValue reports the values used as missing-value codes: 9, 99, 999…,
// their negatives, and ±1000, ±10000….
func codeValue(v float64) bool {
	a := math.Abs(v)
	if a != math.Trunc(a) || a < 9 || a > 1e12 {
		return false
	}
	s := fmt.Sprintf("%.0f", a)
	if strings.Trim(s, "9") == "" {
		return true
	}
	return a >= 1000 && strings.Trim(s[1:], "0") == "" && s[0] == '1'
}

// dq1Points fails code values and warns about other point masses.
func dq1Points(res *Result, cols []*colStats, label, rows int, cfg PointMassConfig) {
	found := 0
	var exempt []string
	for i, c := range cols {
		if i == label || c.dupOf > 0 || c.name == "" {
			continue
		}
		for _, p := range c.points(rows, cfg.MinShare) {
			if slices.Contains(cfg.Exempt, c.name) {
				exempt = append(exempt, c.name)
				break
			}
			found++
			where := "below"
			if p.high {
				where = "above"
			}
			detail := fmt.Sprintf("column `%s` holds %s in %s of rows (%d of %d), %s all its other values (%s to %s)",
				c.name, formatFloat(p.value), percent(p.share), p.count, rows, where, formatFloat(p.lo), formatFloat(p.hi))
			if p.code {
				res.fail("point_mass", detail+": a missing-value code read as a number",
					fmt.Sprintf("read %s as missing (pandas: na_values=[%s]) or fix the step that writes it; if it is a real value, list `%s` under dq1.point_mass.exempt in .vibe-science/domain-config.json", formatFloat(p.value), formatFloat(p.value), c.name))
				continue
			}
			res.warn("point_mass", detail+": a point mass inside an otherwise continuous feature",
				fmt.Sprintf("check the step that writes %s (a fallback, a failed lookup, a simplified formula); if it is a real value, list `%s` under dq1.point_mass.exempt in .vibe-science/domain-config.json", formatFloat(p.value), c.name))
		}
	}
	if found > 0 {
		return
	}
	detail := "no value is held by a share of a column's rows apart from its other values"
	if len(exempt) > 0 {
		detail += "; not judged, as dq1.point_mass.exempt lists them: " + strings.Join(exempt, ", ")
	}
	res.pass("point_mass", detail)
}
