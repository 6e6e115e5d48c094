package gate

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// rows builds a CSV body of n rows from a row function.
func rows(header string, n int, row func(i int) string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := 0; i < n; i++ {
		b.WriteString(row(i) + "\n")
	}
	return b.String()
}

type checkSummary struct {
	Name   string
	Status Status
	Detail string
}

func summarize(r Result, onlyNotPass bool) []checkSummary {
	out := []checkSummary{}
	for _, c := range r.Checks {
		if onlyNotPass && c.Status == StatusPass {
			continue
		}
		out = append(out, checkSummary{c.Name, c.Status, c.Detail})
	}
	return out
}

func crispr(t testing.TB) Domain {
	t.Helper()
	d, err := ShippedDomain("crispr-off-target")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDQ1(t *testing.T) {
	clean := rows("id,gc_content,mismatch_count,label", 20, func(i int) string {
		return fmt.Sprintf("s%d,%.2f,%d,%d", i, 0.3+float64(i%7)/20, 2+i%5, i%2)
	})
	tests := []struct {
		name   string
		file   string
		body   string
		domain func(testing.TB) Domain
		status Status
		want   []checkSummary // the non-passing checks, exactly
	}{
		{name: "clean", file: "features.csv", body: clean, domain: generic, status: StatusPass, want: []checkSummary{}},
		{name: "constant feature", file: "features.csv", domain: generic, status: StatusFail,
			body: rows("gc_content,x,label", 12, func(i int) string { return fmt.Sprintf("0.41,%d,%d", i%3, i%2) }),
			want: []checkSummary{{"zero_variance", StatusFail, "column `gc_content` has zero variance (all 0.41)"}}},
		{name: "constant text column", file: "features.csv", domain: generic, status: StatusFail,
			body: rows("batch,x,label", 12, func(i int) string { return fmt.Sprintf("A,%d,%d", i%3, i%2) }),
			want: []checkSummary{{"zero_variance", StatusFail, "column `batch` has zero variance (all A)"}}},
		{name: "too many missing", file: "features.csv", domain: generic, status: StatusFail,
			body: rows("x,y2,label", 10, func(i int) string {
				v := "NA"
				if i < 4 {
					v = fmt.Sprint(i)
				}
				return fmt.Sprintf("%d,%s,%d", i%4, v, i%2)
			}),
			want: []checkSummary{{"missing", StatusFail, "column `y2` is 60% missing (6 of 10 rows; allowed 50%)"}}},
		{name: "crispr allows only 10% missing", file: "features.csv", domain: crispr, status: StatusFail,
			body: rows("x,cfd_score,label", 10, func(i int) string {
				v := ""
				if i < 8 {
					v = fmt.Sprintf("0.%d", i+1)
				}
				return fmt.Sprintf("%d,%s,%d", i%4, v, i%2)
			}),
			want: []checkSummary{{"missing", StatusFail, "column `cfd_score` is 20% missing (2 of 10 rows; allowed 10%)"}}},
		{name: "leakage column", file: "features.csv", domain: generic, status: StatusFail,
			body: rows("x,leak,label", 20, func(i int) string { return fmt.Sprintf("%d,%d.%d,%d", i%3, i%2, i%3, i%2) }),
			want: []checkSummary{{"leakage", StatusFail, "column `leak` correlates with the label `label` at r = 0.988 (|r| above 0.95): likely leakage"}}},
		{name: "negative leakage counts", file: "f.csv", domain: generic, status: StatusFail,
			body: rows("x,neg,y", 20, func(i int) string { return fmt.Sprintf("%d,%d,%d", i%3, 1-i%2, i%2) }),
			want: []checkSummary{{"leakage", StatusFail, "column `neg` correlates with the label `y` at r = -1.000 (|r| above 0.95): likely leakage"}}},
		{name: "word label read as 0/1", file: "f.csv", domain: generic, status: StatusFail,
			body: rows("x,leak,target", 20, func(i int) string {
				w := "neg"
				if i%2 == 1 {
					w = "pos"
				}
				return fmt.Sprintf("%d,%d,%s", i%3, i%2, w)
			}),
			want: []checkSummary{{"leakage", StatusFail, "column `leak` correlates with the label `target` at r = 1.000 (|r| above 0.95): likely leakage"}}},
		{name: "no label warns", file: "f.csv", domain: generic, status: StatusWarn,
			body: rows("a,b", 12, func(i int) string { return fmt.Sprintf("%d,%d", i, i%3) }),
			want: []checkSummary{{"leakage", StatusWarn, "no label column found (looked for label, y, target), so leakage was not checked"}}},
		{name: "multi-class word label warns", file: "f.csv", domain: generic, status: StatusWarn,
			body: rows("a,label", 12, func(i int) string { return fmt.Sprintf("%d,%s", i, []string{"x", "y", "z"}[i%3]) }),
			want: []checkSummary{{"leakage", StatusWarn, "label `label` is neither numeric nor two-valued, so leakage was not checked"}}},
		{name: "too few rows", file: "f.csv", domain: generic, status: StatusFail,
			body: rows("a,label", 5, func(i int) string { return fmt.Sprintf("%d,%d", i%3, i%2) }),
			want: []checkSummary{{"rows", StatusFail, "f.csv has only 5 data rows; at least 10 are needed"}}},
		{name: "header only", file: "f.csv", domain: generic, status: StatusFail, body: "a,label\n",
			want: []checkSummary{{"rows", StatusFail, "f.csv has a header but no data rows"}}},
		{name: "empty file", file: "f.csv", domain: generic, status: StatusFail, body: "\n\n",
			want: []checkSummary{{"rows", StatusFail, "f.csv is empty"}}},
		{name: "infinite values", file: "f.csv", domain: generic, status: StatusFail,
			body: rows("a,label", 12, func(i int) string {
				if i == 3 {
					return "inf,1"
				}
				return fmt.Sprintf("%d,%d", i%3, i%2)
			}),
			want: []checkSummary{{"infinite", StatusFail, "column `a` has 1 infinite values"}}},
		{name: "ragged rows", file: "f.csv", domain: generic, status: StatusFail,
			body: rows("a,b,label", 12, func(i int) string {
				if i == 4 || i == 6 {
					return fmt.Sprintf("%d,%d", i%3, i%2)
				}
				return fmt.Sprintf("%d,%d,%d", i%3, i%4, i%2)
			}),
			want: []checkSummary{{"shape", StatusFail, "data row 5 has 2 fields, the header has 3 (and 1 more rows like it)"}}},
		{name: "duplicate column", file: "f.csv", domain: generic, status: StatusFail,
			body: rows("a,a,label", 12, func(i int) string { return fmt.Sprintf("%d,%d,%d", i%3, i%4, i%2) }),
			want: []checkSummary{{"columns", StatusFail, "column name `a` appears twice (columns 1 and 2)"}}},
		{name: "bare quote", file: "f.csv", domain: generic, status: StatusFail,
			body: "a,label\n1,0\n2,\"1\n",
			want: []checkSummary{{"parse", StatusFail, "f.csv: parse error on line 3, column 6: extraneous or missing \" in quoted-field"}, {"rows", StatusFail, "f.csv has only 1 data rows; at least 10 are needed"}}},
		{name: "crispr mean mismatch outside range", file: "features.csv", domain: crispr, status: StatusFail,
			body: rows("mismatch_count,cfd_score,label", 12, func(i int) string { return fmt.Sprintf("%d,0.%d,%d", i%2, i%9+1, i%2) }),
			want: []checkSummary{
				{"leakage", StatusFail, "column `mismatch_count` correlates with the label `label` at r = 1.000 (|r| above 0.95): likely leakage"},
				{"domain:mean_mismatch_range", StatusFail, "column `mismatch_count` has mean 0.5, outside [2, 8] (mean_mismatch_range: off-target candidate sites average between 2 and 8 mismatches to the guide; a mean outside that means the site search or the alignment is wrong)"}}},
		{name: "crispr cfd mostly zero", file: "features.csv", domain: crispr, status: StatusFail,
			body: rows("n_mismatches,cfd_score,label", 12, func(i int) string {
				c := "0"
				if i%6 == 0 {
					c = "0.4"
				}
				return fmt.Sprintf("%d,%s,%d", 2+i%5, c, i%2)
			}),
			want: []checkSummary{{"domain:cfd_nonzero_threshold", StatusFail, "column `cfd_score` is non-zero in 16.7% of rows, below 30% (cfd_nonzero_threshold: at least 30% of candidate sites should carry a non-zero CFD score; fewer means the scoring failed on most sites)"}}},
		{name: "tsv with quotes and BOM", file: "features.tsv", domain: generic, status: StatusPass,
			body: "\ufeffname\tx\tlabel\n" + rows("", 12, func(i int) string { return fmt.Sprintf("\"a\tb %d\"\t%d\t%d", i, i%5, i%2) })[1:],
			want: []checkSummary{}},
		{name: "semicolon csv", file: "features.csv", domain: generic, status: StatusPass,
			body: rows("x;label", 12, func(i int) string { return fmt.Sprintf("%d;%d", i%5, i%2) }), want: []checkSummary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq1(strings.NewReader(tt.body), tt.file, tt.domain(t))
			if got := summarize(r, true); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if r.Status != tt.status {
				t.Errorf("status %s, want %s", r.Status, tt.status)
			}
		})
	}
}

func TestDQ1PassDetails(t *testing.T) {
	body := rows("id,gc,mismatch_count,cfd_score,label", 20, func(i int) string {
		v := fmt.Sprintf("%.2f", 0.3+float64(i%7)/20)
		if i == 0 {
			v = ""
		}
		return fmt.Sprintf("s%d,%s,%d,0.%d,%d", i, v, 2+i%5, i%9+1, i%2)
	})
	r := dq1(strings.NewReader(body), "features.csv", crispr(t))
	want := []checkSummary{
		{"rows", StatusPass, "20 data rows, 5 columns"},
		{"columns", StatusPass, "5 named, distinct columns"},
		{"zero_variance", StatusPass, "no constant column"},
		{"missing", StatusPass, "highest missing fraction 5% (`gc`), allowed 10%"},
		{"leakage", StatusPass, "highest |r| with the label `label` is 0.019 (`cfd_score`), threshold 0.95"},
		{"domain:mean_mismatch_range", StatusPass, "column `mismatch_count` has mean 4, within [2, 8]"},
		{"domain:cfd_nonzero_threshold", StatusPass, "column `cfd_score` is non-zero in 100% of rows (at least 30%)"},
		{"cross_check:mismatch_count", StatusPass, "not applicable: no reported column (reported_mismatches, source_mismatches, mismatches_reported)"},
		{"pairs", StatusPass, "no two of 3 numeric columns agree on 90% of rows or more without agreeing on all"},
		{"point_mass", StatusPass, "no value is held by a share of a column's rows apart from its other values"},
	}
	if got := summarize(r, false); !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}
}

func TestDQ1File(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "features.csv")
	writeFile(t, p, rows("a,label", 12, func(i int) string { return fmt.Sprintf("%d,%d", i%3, i%2) }))
	r, err := DQ1(p, generic(t))
	if err != nil || r.Status != StatusPass || !reflect.DeepEqual(r.Inputs, []string{p}) {
		t.Fatalf("DQ1 = %+v, %v", r, err)
	}
	if _, err := DQ1(filepath.Join(dir, "absent.csv"), generic(t)); err == nil || !strings.HasPrefix(err.Error(), "dq1: open features:") {
		t.Errorf("err %v", err)
	}
	cols, err := Columns(p)
	if err != nil || !reflect.DeepEqual(cols, []string{"a", "label"}) {
		t.Errorf("Columns = %q, %v", cols, err)
	}
}

func TestDomainChecksKinds(t *testing.T) {
	min0, min3 := 0.0, 3.0
	d := generic(t)
	d.DQ1.Checks = []ColumnCheck{
		{Name: "wl", Kind: CheckValuesWithin, Columns: []string{"wavelength_nm"}, Range: []float64{400, 2000}},
		{Name: "snr", Kind: CheckValuesAtLeast, Columns: []string{"snr_db"}, Min: &min3},
		{Name: "pt", Kind: CheckValuesAtLeast, Columns: []string{"pt"}, Min: &min0, Required: true},
		{Name: "absent", Kind: CheckMeanWithin, Columns: []string{"nope"}, Range: []float64{0, 1}},
	}
	body := rows("wavelength_nm,snr_db,label", 12, func(i int) string {
		w := 1550
		if i == 2 {
			w = 1550000
		}
		return fmt.Sprintf("%d,%d,%d", w+i, 2+i, i%2)
	})
	r := dq1(strings.NewReader(body), "f.csv", d)
	want := []checkSummary{
		{"domain:wl", StatusFail, "column `wavelength_nm` ranges over [1550, 1.55e+06], outside [400, 2000] (wl)"},
		{"domain:snr", StatusFail, "column `snr_db` has a value of 2, below 3 (snr)"},
		{"domain:pt", StatusFail, "none of the columns pt is present, and the domain check pt requires one"},
		{"domain:absent", StatusPass, "not applicable: none of the columns nope is present"},
	}
	var got []checkSummary
	for _, c := range summarize(r, false) {
		if strings.HasPrefix(c.Name, "domain:") {
			got = append(got, c)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}
}
