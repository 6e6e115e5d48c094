package gate

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// defaultLabelColumns are tried, ignoring case, when the domain names no
// label column.
var defaultLabelColumns = []string{"label", "y", "target"}

// missingTokens are the cell values (trimmed, any case) read as missing.
var missingTokens = []string{"", "na", "n/a", "nan", "null", "none", "#n/a", "?"}

// missing reports a trimmed cell read as missing, without allocating: the
// check runs on every cell of a table.
func missing(t string) bool {
	if len(t) > 4 {
		return false
	}
	for _, m := range missingTokens {
		if strings.EqualFold(t, m) {
			return true
		}
	}
	return false
}

// colStats accumulates one column in a single pass: counts, Welford moments
// for the mean and variance, extremes, and the co-moment with the label.
type colStats struct {
	name      string
	missing   int
	present   int
	nonNumber int
	infinite  int
	nonzero   int
	nNum      int
	mean, m2  float64
	min, max  float64
	first     string // first present value as written
	allSame   bool   // every present value equals first, as text
	// pairing with the label, on rows where both are finite numbers
	pn                 int
	px, py, cxx, cyy   float64
	cxy                float64
	isLabel            bool
	dupOf              int // index+1 of an earlier column with the same name
	firstNonNumberText string
	// the column's range within each class of a two-valued label
	cls [2]classRange
	// For the point-mass check: how many values equal the smallest and the
	// largest, and the values next to them.
	minN, maxN         int
	min2, max2         float64
	haveMin2, haveMax2 bool
	// few holds the first fewDistinct distinct values; nonInt counts the
	// values with a fractional part; rising and falling say every value
	// so far was above (below) the one before it.
	few             [fewDistinct]float64
	nFew            int
	nonInt          int
	last            float64
	rising, falling bool
}

// fewDistinct is how many distinct values of a numeric column DQ1 counts;
// more is "many".
const fewDistinct = 8

// classRange is the range of a feature's values within one label class.
type classRange struct {
	n        int
	min, max float64
}

func (r *classRange) add(v float64) {
	if r.n == 0 || v < r.min {
		r.min = v
	}
	if r.n == 0 || v > r.max {
		r.max = v
	}
	r.n++
}

// minSeparationClass is the fewest rows each label class needs before a
// feature that separates the classes perfectly is called a leak: with 15
// rows per class, a feature unrelated to the label separates them by
// chance with probability 2/C(30,15), about 1e-8.
const minSeparationClass = 15

func (c *colStats) add(cell string) (float64, bool) {
	t := strings.TrimSpace(cell)
	if missing(t) {
		c.missing++
		return 0, false
	}
	if c.present == 0 {
		c.first = t
		c.allSame = true
	} else if c.allSame && t != c.first {
		c.allSame = false
	}
	c.present++
	v, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		if c.nonNumber == 0 {
			c.firstNonNumberText = t
		}
		c.nonNumber++
		return 0, false
	}
	if math.IsInf(v, 0) {
		c.infinite++
		return 0, false
	}
	if math.IsNaN(v) {
		c.missing++
		c.present--
		return 0, false
	}
	c.extremes(v)
	c.nNum++
	if v != 0 {
		c.nonzero++
	}
	delta := v - c.mean
	c.mean += delta / float64(c.nNum)
	c.m2 += delta * (v - c.mean)
	return v, true
}

// extremes follows the smallest and largest values with their counts and
// the values next to them, the first distinct values, whether the column
// only rises or only falls, and how many values are not integers.
func (c *colStats) extremes(v float64) {
	if c.nNum == 0 {
		c.min, c.max, c.minN, c.maxN = v, v, 1, 1
		c.rising, c.falling = true, true
	} else {
		switch {
		case v < c.min:
			c.min2, c.haveMin2 = c.min, true
			c.min, c.minN = v, 1
		case v == c.min:
			c.minN++
		case !c.haveMin2 || v < c.min2:
			c.min2, c.haveMin2 = v, true
		}
		switch {
		case v > c.max:
			c.max2, c.haveMax2 = c.max, true
			c.max, c.maxN = v, 1
		case v == c.max:
			c.maxN++
		case !c.haveMax2 || v > c.max2:
			c.max2, c.haveMax2 = v, true
		}
		c.rising = c.rising && v > c.last
		c.falling = c.falling && v < c.last
	}
	c.last = v
	if c.nFew < fewDistinct && !slices.Contains(c.few[:c.nFew], v) {
		c.few[c.nFew] = v
		c.nFew++
	}
	if v != math.Trunc(v) {
		c.nonInt++
	}
}

// distinctAtLeast reports whether the column's numbers take at least k
// distinct values (k at most fewDistinct).
func (c *colStats) distinctAtLeast(k int) bool { return c.nFew >= k }

// counter reports integers that only rise or only fall: row numbers and
// ids, which agree with any other counter up to the first skipped row.
func (c *colStats) counter() bool {
	return c.nNum >= 3 && c.nonInt == 0 && (c.rising || c.falling)
}

func (c *colStats) pair(x, y float64) {
	c.pn++
	n := float64(c.pn)
	dx := x - c.px
	c.px += dx / n
	dy := y - c.py
	c.py += dy / n
	c.cxx += dx * (x - c.px)
	c.cyy += dy * (y - c.py)
	c.cxy += dx * (y - c.py)
}

// numeric reports whether every present value is a number (infinite
// values count as numbers, so they are reported as such, not as text).
func (c *colStats) numeric() bool { return c.nonNumber == 0 && c.nNum+c.infinite > 0 }

func (c *colStats) corr() (float64, bool) {
	if c.pn < 3 || c.cxx <= 0 || c.cyy <= 0 {
		return 0, false
	}
	return c.cxy / math.Sqrt(c.cxx*c.cyy), true
}

// DQ1 checks a features table (CSV or TSV, streamed): zero-variance
// columns, missing fraction above dq1.allowed_missing_fraction, |Pearson r|
// with the label above dq1.leakage_corr_threshold, infinite values, too few
// rows, absent required columns, ragged rows, and the domain's own column
// checks. The delimiter is the one (comma, tab or semicolon) that splits the
// header most, the extension breaking ties; quoted fields follow RFC 4180.
// A label given as two distinct words (pos/neg) is read as 0/1.
//
// It also checks the domain's cross-checks (dq1.cross_checks: a computed
// column that must equal a reported one row by row) and returns the
// table's profile in Result.Profile, so a caller can keep it and compare
// the next version of the table with DQ1Compare.
func DQ1(featuresPath string, d Domain) (Result, error) {
	return DQ1Compare(featuresPath, nil, d)
}

// DQ1Compare runs DQ1 and, when prev (the profile of an earlier version of
// the same table, from Result.Profile) is not nil, also fails every column
// whose zero share or missing share moved by more than
// dq1.max_share_change, or that became constant: the signature of a
// simplified computation that zeroes part of a feature, or of a join that
// misaligned rows (the blueprint's M4 and M7).
func DQ1Compare(featuresPath string, prev *TableProfile, d Domain) (Result, error) {
	f, err := os.Open(featuresPath)
	if err != nil {
		return Result{}, fmt.Errorf("dq1: open features: %w", err)
	}
	defer f.Close()
	return dq1With(f, featuresPath, d, prev), nil
}

func dq1(r io.Reader, name string, d Domain) Result { return dq1With(r, name, d, nil) }

func dq1With(r io.Reader, name string, d Domain, prev *TableProfile) Result {
	res := newResult("DQ1", name)
	base := filepath.Base(name)
	_, cr, head := tableReader(r, name)
	if len(strings.TrimSpace(string(head))) == 0 {
		res.fail("rows", fmt.Sprintf("%s is empty", base), "write the header and the data rows")
		return res
	}
	header, err := readHeader(cr)
	if err != nil {
		res.fail("parse", fmt.Sprintf("%s: cannot read the header: %v", base, err), "fix the file's quoting or delimiter")
		return res
	}
	cols := make([]*colStats, len(header))
	byName := make(map[string]int, len(header))
	for i, h := range header {
		cols[i] = &colStats{name: h}
		if j, ok := byName[h]; ok {
			cols[i].dupOf = j + 1
		} else {
			byName[h] = i
		}
	}
	label := findLabel(cols, d.DQ1.LabelColumn)
	if label >= 0 {
		cols[label].isLabel = true
	}
	cross := newCrossStates(d.DQ1.CrossChecks, byName)
	pairs := newPairInference(cols, label)
	groups := newGroupInference(cols, label, d.DQ1.Grouping)
	vals := make([]float64, len(cols)) // this row's numbers, NaN where a cell is none

	// Binary word labels map to 0/1 in order of appearance; sign does not
	// matter for |r|.
	var labelWords []string
	// labelVals are the first two distinct label values; a third makes
	// the label not two-valued, and the separation check is skipped.
	var labelVals []float64
	labelBinary := true
	labelTooManyWords := false
	rows, ragged, firstRagged, firstRaggedLen := 0, 0, 0, 0
	var parseErr error
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			parseErr = err
			break
		}
		rows++
		for i := range cross {
			cross[i].add(rec, rows)
		}
		if len(rec) != len(cols) {
			if ragged == 0 {
				firstRagged, firstRaggedLen = rows, len(rec)
			}
			ragged++
		}
		var y float64
		haveY := false
		if label >= 0 && label < len(rec) {
			if v, ok := cols[label].add(rec[label]); ok {
				y, haveY = v, true
			} else if t := strings.TrimSpace(rec[label]); !missing(t) && cols[label].nonNumber > 0 {
				idx := indexOf(labelWords, t)
				if idx < 0 && len(labelWords) < 2 {
					labelWords = append(labelWords, t)
					idx = len(labelWords) - 1
				}
				if idx < 0 {
					labelTooManyWords = true
				} else {
					y, haveY = float64(idx), true
				}
			}
		} else if label >= 0 {
			cols[label].missing++
		}
		yClass := -1
		if haveY && labelBinary {
			yClass = indexOfFloat(labelVals, y)
			if yClass < 0 && len(labelVals) < 2 {
				labelVals = append(labelVals, y)
				yClass = len(labelVals) - 1
			} else if yClass < 0 {
				labelBinary = false
			}
		}
		for i, c := range cols {
			vals[i] = math.NaN()
			if i == label {
				continue
			}
			if i >= len(rec) {
				c.missing++
				continue
			}
			v, ok := c.add(rec[i])
			if !ok {
				continue
			}
			vals[i] = v
			if haveY {
				if k := yClass; k >= 0 {
					c.cls[k].add(v)
				}
				c.pair(v, y)
			}
		}
		pairs.row(vals, rows)
		groups.row(rec)
	}

	if parseErr != nil {
		res.fail("parse", fmt.Sprintf("%s: %v", base, parseErr), "fix the quoting of that line (a field containing the delimiter or a quote must be quoted, with inner quotes doubled)")
	}
	minRows := d.DQ1.MinSamples
	switch {
	case rows == 0:
		res.fail("rows", fmt.Sprintf("%s has a header but no data rows", base), "write the extracted rows")
		return res
	case rows < minRows:
		res.fail("rows", fmt.Sprintf("%s has only %d data rows; at least %d are needed", base, rows, minRows), "extract more samples before modelling, or lower dq1.min_samples in the domain config with a stated reason")
	default:
		res.pass("rows", fmt.Sprintf("%d data rows, %d columns", rows, len(cols)))
	}

	colsOK := true
	for i, c := range cols {
		if c.name == "" {
			colsOK = false
			res.fail("columns", fmt.Sprintf("column %d has no name", i+1), "name every column in the header")
		}
		if c.dupOf > 0 && c.name != "" {
			colsOK = false
			res.fail("columns", fmt.Sprintf("column name `%s` appears twice (columns %d and %d)", c.name, c.dupOf, i+1), "rename one of them")
		}
	}
	for _, want := range d.DQ1.RequiredColumns {
		if _, ok := byName[want]; !ok {
			colsOK = false
			res.fail("columns", fmt.Sprintf("required column `%s` is absent", want), "add it to the extraction; the domain config requires it")
		}
	}
	if colsOK {
		res.pass("columns", fmt.Sprintf("%d named, distinct columns", len(cols)))
	}
	if ragged > 0 {
		more := ""
		if ragged > 1 {
			more = fmt.Sprintf(" (and %d more rows like it)", ragged-1)
		}
		res.fail("shape", fmt.Sprintf("data row %d has %d fields, the header has %d%s", firstRagged, firstRaggedLen, len(cols), more), "fix the delimiter or the quoting of those rows")
	}

	constant := 0
	for _, c := range cols {
		if c.present < 2 {
			continue
		}
		if (c.numeric() && c.nNum == c.present && c.min == c.max) || (!c.numeric() && c.allSame) {
			constant++
			res.fail("zero_variance", fmt.Sprintf("column `%s` has zero variance (all %s)", c.name, c.first), "drop it or explain it in the data dictionary")
		}
	}
	if constant == 0 {
		res.pass("zero_variance", "no constant column")
	}
	profile := newProfile(cols, rows)

	allowed := d.DQ1.AllowedMissingFraction
	worst, worstName, overMissing := 0.0, "", 0
	for _, c := range cols {
		frac := float64(c.missing) / float64(rows)
		if frac > allowed {
			overMissing++
			res.fail("missing", fmt.Sprintf("column `%s` is %s missing (%d of %d rows; allowed %s)", c.name, percent(frac), c.missing, rows, percent(allowed)), "drop the column, impute it with a stated rule, or fix the extraction")
		}
		if frac > worst {
			worst, worstName = frac, c.name
		}
	}
	if overMissing == 0 {
		detail := "no missing values"
		if worstName != "" {
			detail = fmt.Sprintf("highest missing fraction %s (`%s`), allowed %s", percent(worst), worstName, percent(allowed))
		}
		res.pass("missing", detail)
	}

	for _, c := range cols {
		if c.infinite > 0 {
			res.fail("infinite", fmt.Sprintf("column `%s` has %d infinite values", c.name, c.infinite), "replace them (they usually come from a division by zero or a log of zero) or drop those rows")
		}
	}

	var classes []float64
	if labelBinary && len(labelVals) == 2 {
		classes = labelVals
	}
	dq1Leakage(&res, cols, label, labelWords, labelTooManyWords, classes, d)
	for _, ch := range d.DQ1.Checks {
		dq1DomainCheck(&res, cols, byName, ch)
	}
	for i := range cross {
		cross[i].report(&res)
	}
	if parseErr == nil {
		pairs.report(&res, cols, d)
		dq1Points(&res, cols, label, rows, d.DQ1.PointMass)
		groups.report(&res, cols, d)
	}
	if parseErr == nil {
		res.Profile = profile
		if prev != nil {
			compareProfiles(&res, prev, profile, d.DQ1.MaxShareChange)
		}
	}
	return res
}

// dq1Leakage fails a feature whose |Pearson r| with the label is above
// dq1.leakage_corr_threshold and, for a two-valued label (classes holds
// its two values), a feature that separates the classes perfectly: every
// value of one class above every value of the other, with at least
// minSeparationClass rows in each. A count read off the assay that made
// the label (reads at positives, 0 at negatives) separates the classes
// while its r stays far below the threshold when the counts are skewed.
func dq1Leakage(res *Result, cols []*colStats, label int, words []string, tooMany bool, classes []float64, d Domain) {
	if label < 0 {
		looked := d.DQ1.LabelColumn
		if looked == "" {
			looked = strings.Join(defaultLabelColumns, ", ")
		}
		res.warn("leakage", fmt.Sprintf("no label column found (looked for %s), so leakage was not checked", looked), "name the label column `label` or set dq1.label_column in .vibe-science/domain-config.json")
		return
	}
	lc := cols[label]
	if tooMany || (lc.nonNumber > 0 && lc.nNum > 0) {
		res.warn("leakage", fmt.Sprintf("label `%s` is neither numeric nor two-valued, so leakage was not checked", lc.name), "encode the label as numbers (0/1 for classes) in the features table")
		return
	}
	thr := d.DQ1.LeakageCorrThreshold
	leaks := 0
	bestR, bestName := 0.0, ""
	var exempt []string
	for i, c := range cols {
		if i == label || !c.numeric() || c.infinite > 0 {
			continue
		}
		r, ok := c.corr()
		if !ok {
			continue
		}
		if slices.Contains(d.DQ1.LeakageExempt, c.name) {
			exempt = append(exempt, c.name)
			continue
		}
		if math.Abs(r) > thr {
			leaks++
			res.fail("leakage", fmt.Sprintf("column `%s` correlates with the label `%s` at r = %.3f (|r| above %s): likely leakage", c.name, lc.name, r, formatFloat(thr)), leakageFix)
		} else if lo, hi, ok := separates(c, classes); ok {
			leaks++
			res.fail("leakage", fmt.Sprintf("column `%s` separates the label `%s` perfectly (every %s row has `%s` ≤ %s, every %s row ≥ %s; r = %.3f): likely leakage",
				c.name, lc.name, labelValue(classes[lo.class], words), c.name, formatFloat(lo.max), labelValue(classes[hi.class], words), formatFloat(hi.min), r),
				leakageFix)
		}
		if math.Abs(r) > math.Abs(bestR) {
			bestR, bestName = r, c.name
		}
	}
	if leaks == 0 {
		detail := fmt.Sprintf("no numeric feature to correlate with the label `%s`", lc.name)
		if bestName != "" {
			detail = fmt.Sprintf("highest |r| with the label `%s` is %.3f (`%s`), threshold %s", lc.name, math.Abs(bestR), bestName, formatFloat(thr))
		}
		if len(words) == 2 {
			detail += fmt.Sprintf(" (label read as %s = 0, %s = 1)", words[0], words[1])
		}
		if len(exempt) > 0 {
			detail += fmt.Sprintf("; not checked, as dq1.leakage_exempt says they are known before the label: %s", strings.Join(exempt, ", "))
		}
		res.pass("leakage", detail)
	}
}

// leakageFix is the fix of a leakage failure.
const leakageFix = "drop it, or, if it is known before the label, say why in the data dictionary and list it under dq1.leakage_exempt in .vibe-science/domain-config.json"

type classSide struct {
	class    int
	min, max float64
}

// separates reports whether c's values in one label class all lie below
// its values in the other, returning the lower and the upper class.
func separates(c *colStats, classes []float64) (classSide, classSide, bool) {
	if len(classes) != 2 || c.cls[0].n < minSeparationClass || c.cls[1].n < minSeparationClass {
		return classSide{}, classSide{}, false
	}
	a := classSide{0, c.cls[0].min, c.cls[0].max}
	b := classSide{1, c.cls[1].min, c.cls[1].max}
	switch {
	case a.max < b.min:
		return a, b, true
	case b.max < a.min:
		return b, a, true
	}
	return classSide{}, classSide{}, false
}

// labelValue names a label class as written: its word for a word label,
// else the number.
func labelValue(v float64, words []string) string {
	if len(words) == 2 && (v == 0 || v == 1) {
		return "`" + words[int(v)] + "`"
	}
	return "label = " + formatFloat(v)
}

func indexOfFloat(list []float64, v float64) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

func dq1DomainCheck(res *Result, cols []*colStats, byName map[string]int, ch ColumnCheck) {
	name := "domain:" + ch.Name
	idx := -1
	for _, cand := range ch.Columns {
		if i, ok := byName[cand]; ok {
			idx = i
			break
		}
	}
	why := ""
	if ch.Why != "" {
		why = ": " + ch.Why
	}
	fix := "check how the column was produced; if the values are right, override the check in .vibe-science/domain-config.json and give the reason"
	if idx < 0 {
		if ch.Required {
			res.fail(name, fmt.Sprintf("none of the columns %s is present, and the domain check %s requires one", strings.Join(ch.Columns, ", "), ch.Name), "add the column to the extraction")
		} else {
			res.pass(name, fmt.Sprintf("not applicable: none of the columns %s is present", strings.Join(ch.Columns, ", ")))
		}
		return
	}
	c := cols[idx]
	if c.nonNumber > 0 {
		res.fail(name, fmt.Sprintf("column `%s` must be numeric for the domain check %s, but holds %q", c.name, ch.Name, c.firstNonNumberText), "write numbers only (missing values as empty cells)")
		return
	}
	if c.nNum == 0 {
		res.fail(name, fmt.Sprintf("column `%s` has no values, so the domain check %s cannot pass", c.name, ch.Name), fix)
		return
	}
	switch ch.Kind {
	case CheckMeanWithin:
		lo, hi := ch.Range[0], ch.Range[1]
		if c.mean < lo || c.mean > hi {
			res.fail(name, fmt.Sprintf("column `%s` has mean %s, outside [%s, %s] (%s%s)", c.name, formatFloat(c.mean), formatFloat(lo), formatFloat(hi), ch.Name, why), fix)
		} else {
			res.pass(name, fmt.Sprintf("column `%s` has mean %s, within [%s, %s]", c.name, formatFloat(c.mean), formatFloat(lo), formatFloat(hi)))
		}
	case CheckValuesWithin:
		lo, hi := ch.Range[0], ch.Range[1]
		if c.min < lo || c.max > hi {
			res.fail(name, fmt.Sprintf("column `%s` ranges over [%s, %s], outside [%s, %s] (%s%s)", c.name, formatFloat(c.min), formatFloat(c.max), formatFloat(lo), formatFloat(hi), ch.Name, why), fix)
		} else {
			res.pass(name, fmt.Sprintf("column `%s` ranges over [%s, %s], within [%s, %s]", c.name, formatFloat(c.min), formatFloat(c.max), formatFloat(lo), formatFloat(hi)))
		}
	case CheckValuesAtLeast:
		m := *ch.Min
		if c.min < m {
			res.fail(name, fmt.Sprintf("column `%s` has a value of %s, below %s (%s%s)", c.name, formatFloat(c.min), formatFloat(m), ch.Name, why), fix)
		} else {
			res.pass(name, fmt.Sprintf("column `%s` is at least %s everywhere (lowest %s)", c.name, formatFloat(m), formatFloat(c.min)))
		}
	case CheckFractionNonzero:
		m := *ch.Min
		frac := float64(c.nonzero) / float64(c.nNum)
		if frac < m {
			res.fail(name, fmt.Sprintf("column `%s` is non-zero in %s of rows, below %s (%s%s)", c.name, percent(frac), percent(m), ch.Name, why), fix)
		} else {
			res.pass(name, fmt.Sprintf("column `%s` is non-zero in %s of rows (at least %s)", c.name, percent(frac), percent(m)))
		}
	}
}

func findLabel(cols []*colStats, configured string) int {
	if configured != "" {
		for i, c := range cols {
			if c.name == configured {
				return i
			}
		}
		return -1
	}
	for _, want := range defaultLabelColumns {
		for i, c := range cols {
			if strings.EqualFold(c.name, want) {
				return i
			}
		}
	}
	return -1
}

// sniffDelimiter picks the delimiter that splits the first line into the
// most fields, counting only outside quotes; the extension breaks ties
// (.tsv and .tab mean tab, anything else comma).
func sniffDelimiter(head []byte, name string) rune {
	def := ','
	switch strings.ToLower(filepath.Ext(name)) {
	case ".tsv", ".tab":
		def = '\t'
	}
	counts := map[rune]int{}
	inQuote := false
	for _, b := range head {
		if b == '\n' && !inQuote {
			break
		}
		switch b {
		case '"':
			inQuote = !inQuote
		case ',', '\t', ';':
			if !inQuote {
				counts[rune(b)]++
			}
		}
	}
	best := def
	for _, r := range []rune{',', '\t', ';'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

// Columns reads the header of a features table, with the same delimiter
// rule as DQ1; DD0 takes these as the columns in use.
func Columns(featuresPath string) ([]string, error) {
	f, err := os.Open(featuresPath)
	if err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	defer f.Close()
	_, cr, _ := tableReader(f, featuresPath)
	out, err := readHeader(cr)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", featuresPath, err)
	}
	return out, nil
}

// tableReader reads a CSV or TSV table: its buffered reader, a CSV reader
// over it with the delimiter sniffed from the first 64 KB (returned too),
// ragged rows allowed and records reused.
func tableReader(r io.Reader, name string) (*bufio.Reader, *csv.Reader, []byte) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64 << 10)
	cr := csv.NewReader(br)
	cr.Comma = sniffDelimiter(head, name)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return br, cr, head
}

// readHeader reads the header row: names trimmed, a byte-order mark
// dropped.
func readHeader(cr *csv.Reader) ([]string, error) {
	rec, err := cr.Read()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rec))
	for i, h := range rec {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		out[i] = h
	}
	return out, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// percent renders a fraction as a percentage with up to one decimal.
func percent(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + "%"
}
