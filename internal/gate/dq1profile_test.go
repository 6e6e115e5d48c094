package gate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDQ1Profile(t *testing.T) {
	body := "id,score,note,label\n" +
		"a,0,x,1\n" +
		"b,0.5,x,0\n" +
		"c,,x,1\n" +
		"d,0,x,0\n"
	r := dq1(strings.NewReader(body), "features.csv", generic(t))
	want := &TableProfile{Rows: 4, Columns: []ColumnProfile{
		{Name: "id"},
		{Name: "score", ZeroShare: 0.5, MissingShare: 0.25, Numeric: true, Low: &ValueShare{Value: 0, Share: 0.5}, High: &ValueShare{Value: 0.5, Share: 0.25}},
		{Name: "note", Constant: true},
		{Name: "label", ZeroShare: 0.5, Numeric: true, Low: &ValueShare{Value: 0, Share: 0.5}, High: &ValueShare{Value: 1, Share: 0.5}},
	}}
	if !reflect.DeepEqual(r.Profile, want) {
		t.Fatalf("profile:\n got %+v\nwant %+v", r.Profile, want)
	}
	raw, err := json.Marshal(r.Profile)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"rows":4,"columns":[{"name":"id","zero_share":0,"missing_share":0},{"name":"score","zero_share":0.5,"missing_share":0.25,"numeric":true,"low":{"value":0,"share":0.5},"high":{"value":0.5,"share":0.25}},{"name":"note","zero_share":0,"missing_share":0,"constant":true},{"name":"label","zero_share":0.5,"missing_share":0,"numeric":true,"low":{"value":0,"share":0.5},"high":{"value":1,"share":0.5}}]}`
	if string(raw) != wantJSON {
		t.Errorf("json %s\nwant %s", raw, wantJSON)
	}
	// The profile stays out of the verdict: it is the caller's to keep.
	if v := r.Verdict(); strings.Contains(string(v.Input), "zero_share") {
		t.Errorf("verdict input carries the profile: %s", v.Input)
	}
	if bad := dq1(strings.NewReader("a,label\n1,\"x\n"), "features.csv", generic(t)); bad.Profile != nil {
		t.Errorf("a table that does not parse has a profile: %+v", bad.Profile)
	}
}

// TestDQ1Compare replays the blueprint's M4 (a simplified score zeroes part
// of a feature) and M7 (a misaligned join leaves a column constant or
// empty) as two versions of the same table.
func TestDQ1Compare(t *testing.T) {
	table := func(n int, cell func(i int) string) string {
		return rows("id,cfd_score,gc_content,label", n, func(i int) string {
			return fmt.Sprintf("s%d,%s,%.2f,%d", i, cell(i), 0.3+float64(i%7)/20, i%2)
		})
	}
	v1 := table(40, func(i int) string { return fmt.Sprintf("0.%d", i%9+1) })
	prev := dq1(strings.NewReader(v1), "features.csv", generic(t)).Profile
	tests := []struct {
		name   string
		body   string
		status Status
		want   []checkSummary
	}{
		{"same table", v1, StatusPass, []checkSummary{
			{"version_change", StatusPass, "4 columns compared with the previous version (40 rows then, 40 now): no zero or missing share moved by more than 30 percentage points, none became constant"}}},
		{"M4 simplified score zeroes most rows", table(40, func(i int) string {
			if i%4 == 0 {
				return "0.4"
			}
			return "0"
		}), StatusFail, []checkSummary{
			{"version_change", StatusFail, "column `cfd_score` is zero in 75% of rows, against 0% in the previous version of the table (up 75 percentage points; at most 30 percentage points allowed)"}}},
		{"M7 misaligned join empties a column", table(40, func(i int) string {
			if i < 20 {
				return "0.5"
			}
			return ""
		}), StatusFail, []checkSummary{
			{"version_change", StatusFail, "column `cfd_score` is missing in 50% of rows, against 0% in the previous version of the table (up 50 percentage points; at most 30 percentage points allowed)"},
			{"version_change", StatusFail, "column `cfd_score` became constant; it varied in the previous version of the table"}}},
		{"small drift is fine", table(40, func(i int) string {
			if i < 8 {
				return "0"
			}
			return fmt.Sprintf("0.%d", i%9+1)
		}), StatusPass, []checkSummary{
			{"version_change", StatusPass, "4 columns compared with the previous version (40 rows then, 40 now): no zero or missing share moved by more than 30 percentage points, none became constant"}}},
		{"renamed columns", "a,b,target\n" + strings.Repeat("1,2,0\n3,4,1\n", 10), StatusPass, []checkSummary{
			{"version_change", StatusPass, "not applicable: no column in common with the previous version of the table"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq1With(strings.NewReader(tt.body), "features.csv", generic(t), prev)
			var got []checkSummary
			for _, c := range summarize(r, false) {
				if c.Name == "version_change" {
					got = append(got, c)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if tt.status == StatusFail && r.Status != StatusFail {
				t.Errorf("status %s, want FAIL", r.Status)
			}
		})
	}
	t.Run("threshold from the domain", func(t *testing.T) {
		d := generic(t)
		d.DQ1.MaxShareChange = 0.8
		body := table(40, func(i int) string {
			if i%4 == 0 {
				return "0.4"
			}
			return "0"
		})
		r := dq1With(strings.NewReader(body), "features.csv", d, prev)
		if r.Status != StatusPass {
			t.Errorf("a 75-point change with max_share_change 0.8: %s\n%s", r.Status, r.Reason())
		}
	})
	t.Run("through Run and DQ1Compare", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "features.csv")
		writeFile(t, p, table(40, func(i int) string { return "0" }))
		r, err := Run("DQ1", Inputs{Features: p, PreviousProfile: prev}, generic(t))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Reason(), "column `cfd_score` is zero in 100% of rows, against 0% in the previous version") {
			t.Errorf("reason %s", r.Reason())
		}
		r2, err := DQ1Compare(p, nil, generic(t))
		if err != nil || strings.Contains(r2.Reason(), "previous version") || r2.Profile == nil {
			t.Errorf("without a previous profile: %v %s", err, r2.Reason())
		}
	})
}

// TestDQ1CrossCheck replays M5: a mismatch count computed from the
// sequences that disagrees with the one the source table reported.
func TestDQ1CrossCheck(t *testing.T) {
	d := generic(t)
	d.DQ1.CrossChecks = []CrossCheck{{Computed: Names{"mismatch_count", "n_mm"}, Reported: Names{"reported_mismatches"},
		ToleranceFraction: 0.05, Why: "both count mismatches to the guide"}}
	table := func(reported func(i int) string) string {
		return rows("id,mismatch_count,reported_mismatches,label", 40, func(i int) string {
			return fmt.Sprintf("s%d,%d,%s,%d", i, 2+i%5, reported(i), i%2)
		})
	}
	tests := []struct {
		name string
		body string
		want checkSummary
	}{
		{"agree", table(func(i int) string { return fmt.Sprintf("%d.0", 2+i%5) }),
			checkSummary{"cross_check:mismatch_count", StatusPass, "computed `mismatch_count` agrees with reported `reported_mismatches` on 40 of 40 rows (tolerance 5%)"}},
		{"two off within tolerance", table(func(i int) string {
			if i == 3 {
				return "9"
			}
			return fmt.Sprint(2 + i%5)
		}), checkSummary{"cross_check:mismatch_count", StatusPass, "computed `mismatch_count` agrees with reported `reported_mismatches` on 39 of 40 rows (tolerance 5%)"}},
		{"M5 off by one on a fifth", table(func(i int) string {
			if i%5 == 1 {
				return fmt.Sprint(3 + i%5)
			}
			return fmt.Sprint(2 + i%5)
		}), checkSummary{"cross_check:mismatch_count", StatusFail, "computed `mismatch_count` disagrees with reported `reported_mismatches` on 8 of 40 rows (20%, tolerance 5%); first row 2: 3 vs 4; row 7: 3 vs 4; row 12: 3 vs 4 (both count mismatches to the guide)"}},
		{"missing cells are skipped", table(func(i int) string {
			if i%2 == 0 {
				return ""
			}
			return fmt.Sprint(2 + i%5)
		}), checkSummary{"cross_check:mismatch_count", StatusPass, "computed `mismatch_count` agrees with reported `reported_mismatches` on 20 of 20 rows (tolerance 5%)"}},
		{"never both present", table(func(i int) string { return "NA" }),
			checkSummary{"cross_check:mismatch_count", StatusWarn, "`mismatch_count` and `reported_mismatches` are never both present on a row, so they could not be compared"}},
		{"no reported column", rows("id,mismatch_count,label", 12, func(i int) string { return fmt.Sprintf("s%d,%d,%d", i, i%3, i%2) }),
			checkSummary{"cross_check:mismatch_count", StatusPass, "not applicable: no reported column (reported_mismatches)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq1(strings.NewReader(tt.body), "features.csv", d)
			var got []checkSummary
			for _, c := range summarize(r, false) {
				if strings.HasPrefix(c.Name, "cross_check:") {
					got = append(got, c)
				}
			}
			if !reflect.DeepEqual(got, []checkSummary{tt.want}) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, []checkSummary{tt.want})
			}
			if tt.want.Status == StatusFail && !strings.Contains(r.Reason(), "find which of the two is wrong") {
				t.Errorf("reason lacks the fix: %s", r.Reason())
			}
		})
	}
}

// TestDQ1LeakageM3 replays the blueprint's M3 on the features side: a count
// read off the assay that produced the label (reads at the cleaved sites,
// none elsewhere). Its counts are so skewed that Pearson's r stays far
// below the threshold, yet it separates the classes perfectly.
func TestDQ1LeakageM3(t *testing.T) {
	reads := func(i int) int {
		if i%2 == 1 {
			return 3 + (i*i*37)%2000 // skewed read counts at positives
		}
		return 0
	}
	body := rows("site_id,gc_content,guideseq_reads,label", 40, func(i int) string {
		return fmt.Sprintf("s%d,%.2f,%d,%d", i, 0.3+float64(i%7)/20, reads(i), i%2)
	})
	r := dq1(strings.NewReader(body), "features.csv", generic(t))
	want := []checkSummary{{"leakage", StatusFail, "column `guideseq_reads` separates the label `label` perfectly (every label = 0 row has `guideseq_reads` ≤ 0, every label = 1 row ≥ 40; r = 0.750): likely leakage"}}
	if got := summarize(r, true); !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}

	// A column the domain config exempts passes, and the pass says so.
	d := generic(t)
	d.DQ1.LeakageExempt = []string{"guideseq_reads"}
	r = dq1(strings.NewReader(body), "features.csv", d)
	if got, want := only(r, "leakage"), []checkSummary{{"leakage", StatusPass, "highest |r| with the label `label` is 0.013 (`gc_content`), threshold 0.95; not checked, as dq1.leakage_exempt says they are known before the label: guideseq_reads"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("exempt:\n got %+v\nwant %+v", got, want)
	}

	// Word labels are named as written.
	words := strings.NewReplacer(",0\n", ",neg\n", ",1\n", ",pos\n").Replace(body)
	r = dq1(strings.NewReader(words), "features.csv", generic(t))
	if !strings.Contains(r.Reason(), "every `neg` row has `guideseq_reads` ≤ 0, every `pos` row ≥ 40") {
		t.Errorf("word label: %s", r.Reason())
	}

	// Below 15 rows per class a perfect split is too likely by chance.
	small := rows("site_id,guideseq_reads,label", 28, func(i int) string { return fmt.Sprintf("s%d,%d,%d", i, reads(i), i%2) })
	if r := dq1(strings.NewReader(small), "features.csv", generic(t)); r.Status != StatusPass {
		t.Errorf("14 rows per class: %s", r.Reason())
	}
	// A three-valued label is not split by class.
	three := rows("site_id,guideseq_reads,label", 45, func(i int) string { return fmt.Sprintf("s%d,%d,%d", i, reads(i), i%3) })
	if r := dq1(strings.NewReader(three), "features.csv", generic(t)); strings.Contains(r.Reason(), "separates") {
		t.Errorf("three-valued label: %s", r.Reason())
	}
}
