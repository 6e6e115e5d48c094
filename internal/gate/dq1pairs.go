package gate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// The inferred cross-check (the blueprint's M5 without a configured pair):
// two numeric columns of one table that agree on most rows but not all are
// a value computed twice, or computed and reported, and one of them is
// wrong on the rows where they differ. Finding such a pair costs little:
//
//  1. The first pairSampleRows rows of up to maxPairColumns numeric columns
//     are kept, column by column; every pair is compared on them, and a
//     pair is a candidate when it agrees on at least half of the sampled
//     rows where either is not 0 (two mostly-zero columns agree on their
//     zeros and nowhere else, so they are no candidate).
//  2. At most maxPairCandidates candidates are then followed over the
//     whole table: rows compared, rows that agree, the first rows that
//     differ, and the value counts of each column (for chance agreement).
//  3. A candidate is a pair when both columns are numbers with at least
//     three distinct values (two binary flags that mostly agree are
//     correlated features, not a recomputation), neither is a counter
//     (integers that only rise or only fall: row numbers, ids), they differ
//     on at least one of at least minPairRows compared rows (below 30 rows,
//     one chance difference moves the share by more than 3%), agree on at
//     least dq1.pairs.min_agreement of them, and their chance-corrected
//     agreement (Cohen's kappa, with the chance agreement from each
//     column's value counts) is at least dq1.pairs.min_kappa. A pair whose
//     differences are a transform of one column into the other is not
//     reported: one side constant at its extreme where they differ (a
//     clipped or floored copy), the other side's negative (an absolute
//     value), or differences in one unbroken run of rows at the top of the
//     table (a filter or a rolling window warming up).
//
// Configured cross-checks (dq1.cross_checks) and pairs listed under
// dq1.pairs.exempt are left to their own rule.
const (
	pairSampleRows    = 256
	maxPairColumns    = 200
	maxPairCandidates = 32
	minPairRows       = 30
	// maxMarginValues caps the value counts kept per column: a column with
	// more distinct values than this is continuous, and its values beyond
	// the cap each add next to nothing to the chance agreement.
	maxMarginValues = 4096
)

// pairInference follows the columns of one DQ1 pass for the inferred
// cross-check.
type pairInference struct {
	cols   []int     // indexes of the columns considered, in header order
	sample []float64 // column-major: sample[k*pairSampleRows+r], NaN when absent
	rows   int       // rows sampled
	chosen bool
	cands  []*pairState
	margin map[int]*margin // column index → value counts of a candidate's column
	// trimmed says columns beyond maxPairColumns were left out.
	trimmed int
}

type pairState struct {
	a, b                int // column indexes
	compared, agree     int
	examples            []string
	aConst, bConst      bool // every difference has the same a (or b) value
	aAbove, aBelow, neg bool // a > b, a < b, a = -b on every difference
	firstA, firstB      float64
	// firstRow and lastRow are the first and last rows that differ.
	firstRow, lastRow int
}

type margin struct {
	n      int
	counts map[float64]int32
}

func (m *margin) add(v float64) {
	m.n++
	if c, ok := m.counts[v]; ok {
		m.counts[v] = c + 1
	} else if len(m.counts) < maxMarginValues {
		m.counts[v] = 1
	}
}

func newPairInference(cols []*colStats, label int) *pairInference {
	p := &pairInference{}
	for i, c := range cols {
		if i == label || c.dupOf > 0 || c.name == "" {
			continue
		}
		if len(p.cols) == maxPairColumns {
			p.trimmed++
			continue
		}
		p.cols = append(p.cols, i)
	}
	if len(p.cols) < 2 {
		p.chosen = true
		return p
	}
	p.sample = make([]float64, len(p.cols)*pairSampleRows)
	return p
}

// row takes one data row's parsed values (NaN where a cell is missing or
// not a number); row counts from 1.
func (p *pairInference) row(vals []float64, row int) {
	if !p.chosen {
		r := p.rows
		for k, i := range p.cols {
			p.sample[k*pairSampleRows+r] = vals[i]
		}
		p.rows++
		if p.rows == pairSampleRows {
			p.choose()
		}
		return
	}
	for _, s := range p.cands {
		s.add(vals[s.a], vals[s.b], row)
	}
	for i, m := range p.margin {
		if v := vals[i]; v == v {
			m.add(v)
		}
	}
}

// choose compares every pair on the sampled rows, keeps the candidates, and
// replays the sample for them.
func (p *pairInference) choose() {
	p.chosen = true
	n := p.rows
	type scored struct {
		a, b  int
		share float64
	}
	var found []scored
	for ka := range p.cols {
		xa := p.sample[ka*pairSampleRows : ka*pairSampleRows+n]
		for kb := ka + 1; kb < len(p.cols); kb++ {
			xb := p.sample[kb*pairSampleRows : kb*pairSampleRows+n]
			nonzero, agree := 0, 0
			for r, x := range xa {
				y := xb[r]
				if x != x || y != y || (x == 0 && y == 0) {
					continue
				}
				nonzero++
				if floatsAgree(x, y) {
					agree++
				}
			}
			if nonzero >= 5 && 2*agree >= nonzero {
				found = append(found, scored{ka, kb, float64(agree) / float64(nonzero)})
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].share > found[j].share })
	if len(found) > maxPairCandidates {
		found = found[:maxPairCandidates]
	}
	p.margin = map[int]*margin{}
	for _, f := range found {
		s := &pairState{a: p.cols[f.a], b: p.cols[f.b]}
		for r := 0; r < n; r++ {
			s.add(p.sample[f.a*pairSampleRows+r], p.sample[f.b*pairSampleRows+r], r+1)
		}
		p.cands = append(p.cands, s)
		for _, k := range []int{f.a, f.b} {
			i := p.cols[k]
			if p.margin[i] != nil {
				continue
			}
			m := &margin{counts: map[float64]int32{}}
			for _, v := range p.sample[k*pairSampleRows : k*pairSampleRows+n] {
				if v == v {
					m.add(v)
				}
			}
			p.margin[i] = m
		}
	}
	p.sample = nil
}

func (s *pairState) add(x, y float64, row int) {
	if x != x || y != y {
		return
	}
	s.compared++
	if floatsAgree(x, y) {
		s.agree++
		return
	}
	differ := s.compared - s.agree
	if differ == 1 {
		s.firstA, s.firstB, s.firstRow = x, y, row
		s.aConst, s.bConst = true, true
		s.aAbove, s.aBelow, s.neg = true, true, true
	}
	s.aConst = s.aConst && x == s.firstA
	s.bConst = s.bConst && y == s.firstB
	s.aAbove = s.aAbove && x > y
	s.aBelow = s.aBelow && x < y
	s.neg = s.neg && x == -y
	s.lastRow = row
	if len(s.examples) < maxCrossExamples {
		s.examples = append(s.examples, fmt.Sprintf("row %d: %s vs %s", row, formatFloat(x), formatFloat(y)))
	}
}

// transform reports differences that one column's transform of the other
// explains: a clip or floor (one side constant where they differ, the other
// beyond it on the same side every time), an absolute value, or a warm-up
// (every row of one run at the top of the table differs, no row after it:
// a filter, a rolling window or a lag that starts differently and then
// agrees).
func (s *pairState) transform() bool {
	differ := s.compared - s.agree
	warmUp := s.firstRow <= warmUpStart && s.lastRow-s.firstRow+1 == differ
	return ((s.aConst || s.bConst) && (s.aAbove || s.aBelow)) || s.neg || warmUp
}

// warmUpStart is the latest row a warm-up run may start at.
const warmUpStart = 5

// floatsAgree is cellsAgree for parsed numbers: equal within a relative
// 1e-6.
func floatsAgree(x, y float64) bool {
	return x == y || math.Abs(x-y) <= 1e-9+1e-6*math.Max(math.Abs(x), math.Abs(y))
}

// chance is the agreement two columns reach by chance: the sum over values
// of the product of each column's share of that value.
func chance(a, b *margin) float64 {
	if a == nil || b == nil || a.n == 0 || b.n == 0 {
		return 0
	}
	if len(b.counts) < len(a.counts) {
		a, b = b, a
	}
	sum := 0.0
	for v, ca := range a.counts {
		if cb, ok := b.counts[v]; ok {
			sum += float64(ca) / float64(a.n) * float64(cb) / float64(b.n)
		}
	}
	return sum
}

// report judges the candidates once the table has been read.
func (p *pairInference) report(res *Result, cols []*colStats, d Domain) {
	if !p.chosen {
		p.choose()
	}
	cfg := d.DQ1.Pairs
	numeric := 0
	for _, i := range p.cols {
		if cols[i].numeric() {
			numeric++
		}
	}
	if numeric < 2 {
		return
	}
	var exempt []string
	found := 0
	for _, s := range p.cands {
		a, b := cols[s.a], cols[s.b]
		if !a.numeric() || !b.numeric() || !a.distinctAtLeast(3) || !b.distinctAtLeast(3) ||
			a.counter() || b.counter() || s.compared < minPairRows || s.agree == s.compared {
			continue
		}
		po := float64(s.agree) / float64(s.compared)
		if po < cfg.MinAgreement {
			continue
		}
		pe := chance(p.margin[s.a], p.margin[s.b])
		if pe >= 1 || (po-pe)/(1-pe) < cfg.MinKappa || s.transform() {
			continue
		}
		if pairListed(cfg.Exempt, a.name, b.name) {
			exempt = append(exempt, fmt.Sprintf("`%s` and `%s`", a.name, b.name))
			continue
		}
		if crossChecked(d.DQ1.CrossChecks, a.name, b.name) {
			continue
		}
		found++
		differ := s.compared - s.agree
		res.fail("pairs", fmt.Sprintf("`%s` agrees with `%s` on %s of rows but differs on %d (%s; by chance they would agree on %s): one of them is likely computed or parsed wrongly",
			a.name, b.name, percentFloor(po), differ, strings.Join(s.examples, "; "), percent(pe)),
			fmt.Sprintf("find which of `%s` and `%s` is wrong on those rows before modelling; if they are different quantities that agree by nature, list [\"%s\", \"%s\"] under dq1.pairs.exempt in .vibe-science/domain-config.json", a.name, b.name, a.name, b.name))
	}
	if found > 0 {
		return
	}
	detail := fmt.Sprintf("no two of %d numeric columns agree on %s of rows or more without agreeing on all", numeric, percent(cfg.MinAgreement))
	if p.trimmed > 0 {
		detail += fmt.Sprintf(" (pairs looked for among the first %d columns; %d more not compared)", maxPairColumns, p.trimmed)
	}
	if len(exempt) > 0 {
		detail += "; not judged, as dq1.pairs.exempt lists them: " + strings.Join(exempt, ", ")
	}
	res.pass("pairs", detail)
}

// percentFloor is percent, rounded down at one decimal, so a share just
// below 1 never reads as 100%.
func percentFloor(f float64) string {
	return percent(math.Floor(f*1000) / 1000)
}

func pairListed(pairs [][]string, a, b string) bool {
	for _, p := range pairs {
		if len(p) == 2 && ((p[0] == a && p[1] == b) || (p[0] == b && p[1] == a)) {
			return true
		}
	}
	return false
}

// crossChecked reports a pair a configured cross-check already judges.
func crossChecked(checks []CrossCheck, a, b string) bool {
	for _, c := range checks {
		if (slices.Contains(c.Computed, a) && slices.Contains(c.Reported, b)) ||
			(slices.Contains(c.Computed, b) && slices.Contains(c.Reported, a)) {
			return true
		}
	}
	return false
}
