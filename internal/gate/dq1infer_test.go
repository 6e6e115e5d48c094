package gate

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checksNamed keeps the checks of the given names.
func checksNamed(r Result, names ...string) []checkSummary {
	out := []checkSummary{}
	for _, c := range r.Checks {
		for _, n := range names {
			if c.Name == n {
				out = append(out, checkSummary{c.Name, c.Status, c.Detail})
			}
		}
	}
	return out
}

// TestDQ1Pairs is the inferred cross-check: a pair that agrees on most rows
// but not all fails whatever its names; pairs that agree by chance, by
// construction or on every row do not.
func TestDQ1Pairs(t *testing.T) {
	seeded := func(seed int64, header string, n int, row func(r *rand.Rand, i int) string) string {
		r := rand.New(rand.NewSource(seed))
		return rows(header, n, func(i int) string { return row(r, i) })
	}
	withCross := generic(t)
	withCross.DQ1.CrossChecks = []CrossCheck{{Computed: Names{"NumSubstitutions"}, Reported: Names{"mm_calc"}, ToleranceFraction: 0.01}}
	exempt := generic(t)
	exempt.DQ1.Pairs.Exempt = [][]string{{"age_at_diagnosis", "age"}}
	tests := []struct {
		name string
		body string
		d    Domain
		want []checkSummary
	}{
		{"integer counts recomputed, 10 of 300 rows off by one", seeded(1, "NumSubstitutions,mm_calc,gc,label", 300, func(r *rand.Rand, i int) string {
			mm := r.Intn(7)
			calc := mm
			if i%30 == 7 {
				calc = mm + 1
			}
			return fmt.Sprintf("%d,%d,%.3f,%d", mm, calc, r.Float64(), r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusFail, "`NumSubstitutions` agrees with `mm_calc` on 96.6% of rows but differs on 10 (row 8: 2 vs 3; row 38: 0 vs 1; row 68: 0 vs 1; by chance they would agree on 14.5%): one of them is likely computed or parsed wrongly"}}},
		{"floats, the differences after the sampled rows", seeded(2, "score_computed,score_reported,label", 1000, func(r *rand.Rand, i int) string {
			s := r.Float64()
			rep := s
			if i > 900 && i%3 == 0 {
				rep = s * 1.5
			}
			return fmt.Sprintf("%.4f,%.4f,%d", s, rep, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusFail, "`score_computed` agrees with `score_reported` on 96.7% of rows but differs on 33 (row 904: 0.4612 vs 0.6918; row 907: 0.7762 vs 1.1644; row 910: 0.5925 vs 0.8888; by chance they would agree on 0.1%): one of them is likely computed or parsed wrongly"}}},
		{"two sparse counts agree on their zeros only", seeded(3, "reads_rep1,reads_rep2,label", 400, func(r *rand.Rand, i int) string {
			a, b := 0, 0
			if r.Float64() < 0.05 {
				a = 1 + r.Intn(40)
			}
			if r.Float64() < 0.05 {
				b = 1 + r.Intn(40)
			}
			return fmt.Sprintf("%d,%d,%d", a, b, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"two mostly-zero columns that match where non-zero too, but only 5 rows", seeded(4, "a,b,label", 300, func(r *rand.Rand, i int) string {
			if i%60 == 0 {
				return fmt.Sprintf("%d,%d,%d", i, i, r.Intn(2))
			}
			if i == 31 {
				return fmt.Sprintf("3,0,%d", r.Intn(2))
			}
			return fmt.Sprintf("0,0,%d", r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"identical columns", seeded(5, "x,x_copy,label", 100, func(r *rand.Rand, i int) string {
			v := r.Intn(9)
			return fmt.Sprintf("%d,%d,%d", v, v, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"two binary flags that mostly agree", seeded(6, "in_exon,in_gene,label", 300, func(r *rand.Rand, i int) string {
			a := r.Intn(2)
			b := a
			if r.Float64() < 0.05 {
				b = 1 - a
			}
			return fmt.Sprintf("%d,%d,%d", a, b, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"a row number and an index that skips a row", seeded(7, "row,orig_index,label", 300, func(r *rand.Rand, i int) string {
			j := i
			if i >= 280 {
				j = i + 1
			}
			return fmt.Sprintf("%d,%d,%d", i, j, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"a clipped copy", seeded(8, "coverage,coverage_capped,label", 300, func(r *rand.Rand, i int) string {
			v := r.Intn(60)
			if r.Float64() > 0.06 {
				v = r.Intn(50)
			}
			return fmt.Sprintf("%d,%d,%d", v, min(v, 50), r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"an absolute value", seeded(9, "delta,abs_delta,label", 300, func(r *rand.Rand, i int) string {
			v := 1 + r.Intn(20)
			if i%20 == 0 {
				return fmt.Sprintf("%d,%d,%d", -v, v, r.Intn(2))
			}
			return fmt.Sprintf("%d,%d,%d", v, v, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"seed mismatches and mismatches agree on about half the rows", seeded(10, "mismatches,seed_mismatches,label", 300, func(r *rand.Rand, i int) string {
			mm := r.Intn(7)
			return fmt.Sprintf("%d,%d,%d", mm, min(mm, r.Intn(4)), r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"an exempt pair", seeded(11, "age,age_at_diagnosis,label", 200, func(r *rand.Rand, i int) string {
			a := 30 + r.Intn(50)
			if i%25 == 0 {
				return fmt.Sprintf("%d,%d,%d", a, a-1, r.Intn(2))
			}
			return fmt.Sprintf("%d,%d,%d", a, a, r.Intn(2))
		}), exempt, []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all; not judged, as dq1.pairs.exempt lists them: `age` and `age_at_diagnosis`"}}},
		{"a configured cross-check is judged by its own rule", seeded(12, "NumSubstitutions,mm_calc,label", 300, func(r *rand.Rand, i int) string {
			mm := r.Intn(7)
			if i%30 == 7 {
				return fmt.Sprintf("%d,%d,%d", mm, mm+1, r.Intn(2))
			}
			return fmt.Sprintf("%d,%d,%d", mm, mm, r.Intn(2))
		}), withCross, []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
		{"too few rows to judge", seeded(13, "a,b,label", 15, func(r *rand.Rand, i int) string {
			v := r.Intn(9)
			if i == 3 {
				return fmt.Sprintf("%d,%d,%d", v, v+1, r.Intn(2))
			}
			return fmt.Sprintf("%d,%d,%d", v, v, r.Intn(2))
		}), generic(t), []checkSummary{{"pairs", StatusPass, "no two of 2 numeric columns agree on 90% of rows or more without agreeing on all"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq1(strings.NewReader(tt.body), "table.csv", tt.d)
			if got := checksNamed(r, "pairs"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDQ1PointMass: a code set apart from a column's values fails, another
// point mass set apart warns, and a value that belongs to the column's
// range (zeros of a count) or a column of few values is never judged.
func TestDQ1PointMass(t *testing.T) {
	seeded := func(seed int64, header string, n int, row func(r *rand.Rand, i int) string) string {
		r := rand.New(rand.NewSource(seed))
		return rows(header, n, func(i int) string { return row(r, i) })
	}
	exempt := generic(t)
	exempt.DQ1.PointMass.Exempt = []string{"adc"}
	tests := []struct {
		name string
		body string
		d    Domain
		want []checkSummary
	}{
		{"-999 among ages", seeded(1, "age,label", 200, func(r *rand.Rand, i int) string {
			if i%10 == 0 {
				return fmt.Sprintf("-999,%d", r.Intn(2))
			}
			return fmt.Sprintf("%d,%d", 18+r.Intn(73), r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusFail, "column `age` holds -999 in 10% of rows (20 of 200), below all its other values (18 to 90): a missing-value code read as a number"}}},
		{"-1 below scores", seeded(2, "cfd,label", 200, func(r *rand.Rand, i int) string {
			if i%20 == 3 {
				return fmt.Sprintf("-1,%d", r.Intn(2))
			}
			return fmt.Sprintf("%.3f,%d", r.Float64(), r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusFail, "column `cfd` holds -1 in 5% of rows (10 of 200), below all its other values (0.001 to 0.997): a missing-value code read as a number"}}},
		{"9999 above a measurement", seeded(3, "depth_m,label", 100, func(r *rand.Rand, i int) string {
			if i%10 == 0 {
				return fmt.Sprintf("9999,%d", r.Intn(2))
			}
			return fmt.Sprintf("%.1f,%d", 10+r.Float64()*500, r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusFail, "column `depth_m` holds 9999 in 10% of rows (10 of 100), above all its other values (11.6 to 500.4): a missing-value code read as a number"}}},
		{"zeros apart from a score in [0.5, 1]", seeded(4, "cfd_simplified,label", 200, func(r *rand.Rand, i int) string {
			if i%5 < 2 {
				return fmt.Sprintf("0,%d", r.Intn(2))
			}
			return fmt.Sprintf("%.3f,%d", 0.5+r.Float64()/2, r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusWarn, "column `cfd_simplified` holds 0 in 40% of rows (80 of 200), below all its other values (0.501 to 0.992): a point mass inside an otherwise continuous feature"}}},
		{"a saturation value", seeded(5, "adc,label", 200, func(r *rand.Rand, i int) string {
			if i%8 == 0 {
				return fmt.Sprintf("4095,%d", r.Intn(2))
			}
			return fmt.Sprintf("%d,%d", r.Intn(1200), r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusWarn, "column `adc` holds 4095 in 12.5% of rows (25 of 200), above all its other values (0 to 1179): a point mass inside an otherwise continuous feature"}}},
		{"the saturation value, exempt", seeded(5, "adc,label", 200, func(r *rand.Rand, i int) string {
			if i%8 == 0 {
				return fmt.Sprintf("4095,%d", r.Intn(2))
			}
			return fmt.Sprintf("%d,%d", r.Intn(1200), r.Intn(2))
		}), exempt, []checkSummary{{"point_mass", StatusPass, "no value is held by a share of a column's rows apart from its other values; not judged, as dq1.point_mass.exempt lists them: adc"}}},
		{"zeros of a read count belong to its range", seeded(6, "reads,label", 300, func(r *rand.Rand, i int) string {
			if r.Float64() < 0.6 {
				return fmt.Sprintf("0,%d", r.Intn(2))
			}
			return fmt.Sprintf("%d,%d", 1+r.Intn(40), r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusPass, "no value is held by a share of a column's rows apart from its other values"}}},
		{"a code of few values is a category", seeded(7, "grade,label", 100, func(r *rand.Rand, i int) string {
			return fmt.Sprintf("%d,%d", []int{1, 2, 3, 9}[r.Intn(4)], r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusPass, "no value is held by a share of a column's rows apart from its other values"}}},
		{"two stray codes are too few", seeded(8, "age,label", 200, func(r *rand.Rand, i int) string {
			if i == 10 || i == 90 {
				return fmt.Sprintf("-999,%d", r.Intn(2))
			}
			return fmt.Sprintf("%d,%d", 18+r.Intn(73), r.Intn(2))
		}), generic(t), []checkSummary{{"point_mass", StatusPass, "no value is held by a share of a column's rows apart from its other values"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq1(strings.NewReader(tt.body), "table.csv", tt.d)
			if got := checksNamed(r, "point_mass"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDQ1ComparePointMass: a code's share that moved between two versions
// of a table fails, as a zero share does.
func TestDQ1ComparePointMass(t *testing.T) {
	version := func(every int) string {
		r := rand.New(rand.NewSource(1))
		return rows("id,score,label", 200, func(i int) string {
			if i%every == 0 {
				return fmt.Sprintf("s%d,-1,%d", i, r.Intn(2))
			}
			return fmt.Sprintf("s%d,%.3f,%d", i, r.Float64(), r.Intn(2))
		})
	}
	prev := dq1(strings.NewReader(version(20)), "t.csv", generic(t)).Profile
	cur := dq1With(strings.NewReader(version(2)), "t.csv", generic(t), prev)
	want := []checkSummary{{"version_change", StatusFail, "column `score` holds -1 in 50% of rows, against 5% in the previous version of the table (up 45 percentage points; at most 30 percentage points allowed)"}}
	if got := checksNamed(cur, "version_change"); !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}
	// The code vanishing is a change too: the profile knows -1 lies below
	// the new version's range.
	back := dq1With(strings.NewReader(rows("id,score,label", 200, func(i int) string { return fmt.Sprintf("s%d,0.%03d,%d", i, i+1, i%2) })), "t.csv", generic(t),
		dq1(strings.NewReader(version(2)), "t.csv", generic(t)).Profile)
	want = []checkSummary{{"version_change", StatusFail, "column `score` holds -1 in 0% of rows, against 50% in the previous version of the table (down 50 percentage points; at most 30 percentage points allowed)"}}
	if got := checksNamed(back, "version_change"); !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}
}

// TestDQ1Grouping: the grouping column is inferred from its values (or
// named), stated, and the groups of each fold judged.
func TestDQ1Grouping(t *testing.T) {
	table := func(header string, fold func(g int) string) string {
		r := rand.New(rand.NewSource(1))
		return rows(header, 300, func(i int) string {
			g := i / 25
			return fmt.Sprintf("G%02d,chr%d,s%d,%.3f,%d,%s", g, 1+r.Intn(22), i, r.Float64(), r.Intn(2), fold(g))
		})
	}
	named := generic(t)
	named.DQ1.Grouping.Column = "chromosome"
	off := generic(t)
	off.DQ1.Grouping = GroupingConfig{Column: GroupingOff, FoldColumn: GroupingOff}
	tests := []struct {
		name string
		body string
		d    Domain
		want []checkSummary
	}{
		{"guides in four folds of three", table("guide,chromosome,site,score,label,cv_fold", func(g int) string { return fmt.Sprint(g % 4) }), generic(t), []checkSummary{
			{"grouping", StatusPass, "grouped by `guide` (12 groups, 25 rows each on average; inferred from its values; set dq1.grouping.column to change)"},
			{"groups_per_fold", StatusPass, "grouped by `guide` with folds in `cv_fold`: every fold holds at least 3 groups"}}},
		{"folds of one and two guides", table("Targetsite,Chromosome,site,score,label,Fold", func(g int) string { return []string{"1", "1", "1", "1", "1", "1", "1", "1", "1", "2", "2", "3"}[g] }), generic(t), []checkSummary{
			{"grouping", StatusPass, "grouped by `Targetsite` (12 groups, 25 rows each on average; inferred from its values; set dq1.grouping.column to change)"},
			{"groups_per_fold", StatusFail, "grouped by `Targetsite` with folds in `Fold`: fold 2 holds 2 groups, fold 3 holds 1 group; each held-out fold needs at least 3 groups (dq2.min_groups_per_fold)"}}},
		{"leave one guide out", table("sgRNA,chrom,site,score,label,fold", func(g int) string { return fmt.Sprint(g) }), generic(t), []checkSummary{
			{"grouping", StatusPass, "grouped by `sgRNA` (12 groups, 25 rows each on average; inferred from its values; set dq1.grouping.column to change)"},
			{"groups_per_fold", StatusPass, "grouped by `sgRNA` with folds in `fold`: leave-one-group-out, 12 folds of one group each"}}},
		{"the grouping column named in the config", table("guide,chromosome,site,score,label,other", func(g int) string { return "x" }), named, []checkSummary{
			{"grouping", StatusPass, "grouped by `chromosome` (22 groups, 13.6 rows each on average; set by dq1.grouping.column)"}}},
		{"turned off", table("guide,chromosome,site,score,label,fold", func(g int) string { return fmt.Sprint(g % 4) }), off, []checkSummary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq1(strings.NewReader(tt.body), "table.csv", tt.d)
			if got := checksNamed(r, "grouping", "groups_per_fold"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// Rows of a guide spread over folds: the held-out fold shares guides.
	spread := rows("patient_id,visit,bp,label,fold", 120, func(i int) string {
		return fmt.Sprintf("%d,%d,%d,%d,%d", 1000+i/6, i%6, 110+i%37, i%2, i%5)
	})
	want := []checkSummary{
		{"grouping", StatusPass, "grouped by `patient_id` (20 groups, 6 rows each on average; inferred from its values; set dq1.grouping.column to change)"},
		{"groups_per_fold", StatusPass, "grouped by `patient_id` with folds in `fold`: every fold holds at least 3 groups"},
		{"groups_per_fold", StatusWarn, "grouped by `patient_id` with folds in `fold`: 20 of 20 groups have rows in more than one fold, so a held-out fold shares groups with the folds it is tested against"}}
	if got := checksNamed(dq1(strings.NewReader(spread), "visits.csv", generic(t)), "grouping", "groups_per_fold"); !reflect.DeepEqual(got, want) {
		t.Errorf("spread folds:\n got %+v\nwant %+v", got, want)
	}
	// What is not a grouping: words, integers without a name that says
	// so, a chromosome, a column of one row per value.
	none := rows("cell_type,count,chr,site_id,label", 200, func(i int) string {
		return fmt.Sprintf("%s,%d,chr%d,s%d,%d", []string{"liver", "kidney", "lung", "heart"}[i%4], i%9, 1+i%20, i, i%2)
	})
	if got := checksNamed(dq1(strings.NewReader(none), "t.csv", generic(t)), "grouping"); len(got) != 0 {
		t.Errorf("a grouping was inferred: %+v", got)
	}
}

// TestRealTables runs DQ1 over public tables (testdata/tables, see its
// README): the grouping is inferred where rows are grouped, the zeros that
// RAND's log payments hold by design are a warning (a point mass, named),
// and no pair, code or fold check fires anywhere.
func TestRealTables(t *testing.T) {
	want := map[string][]checkSummary{
		"engel.csv":   {},
		"strikes.csv": {},
		"grunfeld.csv": {
			{"grouping", StatusPass, "grouped by `firm` (11 groups, 20 rows each on average; inferred from its values; set dq1.grouping.column to change)"}},
		"modechoice.csv": {
			{"grouping", StatusPass, "grouped by `individual` (210 groups, 4 rows each on average; inferred from its values; set dq1.grouping.column to change)"}},
		"randhie-head2000.csv": {
			{"point_mass", StatusWarn, "column `lpi` holds 0 in 22.9% of rows (459 of 2000), below all its other values (3.95124 to 6.90775): a point mass inside an otherwise continuous feature"},
			{"point_mass", StatusWarn, "column `fmde` holds 0 in 62.2% of rows (1243 of 2000), below all its other values (5.66296 to 8.29405): a point mass inside an otherwise continuous feature"}},
		"iowa-electricity.csv": {},
		"us-employment.csv":    {},
	}
	d := generic(t)
	for name, w := range want {
		r, err := DQ1(filepath.Join("testdata", "tables", name), d)
		if err != nil {
			t.Fatal(err)
		}
		got := []checkSummary{}
		for _, c := range checksNamed(r, "pairs", "point_mass", "grouping", "groups_per_fold") {
			if c.Status != StatusPass || c.Name == "grouping" {
				got = append(got, c)
			}
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}
