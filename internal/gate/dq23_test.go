package gate

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDQ2(t *testing.T) {
	imp := `"feature_importance": {"gc": 0.3, "mm": 0.4, "pos": 0.3}`
	folds := `"folds": [0.70, 0.72, 0.69, 0.71]`
	tests := []struct {
		name   string
		body   string
		status Status
		want   []checkSummary
	}{
		{"clean classification", `{"task": "classification", "auc": 0.71, ` + imp + `, ` + folds + `}`, StatusPass, []checkSummary{
			{"baseline", StatusPass, "AUC = 0.71, at least 0.55"},
			{"dominance", StatusPass, "largest share 40% (`mm`), at most 50%"},
			{"fold_cv", StatusPass, "coefficient of variation 0.02 over 4 folds, below 0.5"},
			{"groups", StatusPass, "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used"}}},
		{"nested under metrics", `{"metrics": {"roc_auc": 0.8, ` + imp + `}, ` + folds + `}`, StatusPass, []checkSummary{
			{"baseline", StatusPass, "AUC = 0.8, at least 0.55"},
			{"dominance", StatusPass, "largest share 40% (`mm`), at most 50%"},
			{"fold_cv", StatusPass, "coefficient of variation 0.02 over 4 folds, below 0.5"},
			{"groups", StatusPass, "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used"}}},
		{"AUC under baseline", `{"auc": 0.52, ` + imp + `, ` + folds + `}`, StatusFail, []checkSummary{
			{"baseline", StatusFail, "AUC = 0.52 (`auc`) is below the minimum 0.55 for a model that beats the trivial baseline"}}},
		{"R2 under baseline", `{"task": "regression", "r2": 0.01, ` + imp + `, "fold_scores": [0.01, 0.012]}`, StatusFail, []checkSummary{
			{"baseline", StatusFail, "R² = 0.01 (`r2`) is below the minimum 0.05 for a model that beats the trivial baseline"}}},
		{"does not beat stated baseline", `{"auc": 0.6, "baseline": {"auc": 0.62}, ` + imp + `, ` + folds + `}`, StatusFail, []checkSummary{
			{"baseline", StatusFail, "AUC = 0.6 does not beat the stated baseline auc = 0.62"}}},
		{"no score", `{` + imp + `, ` + folds + `}`, StatusFail, []checkSummary{
			{"baseline", StatusFail, "metrics.json reports neither an AUC (auc, roc_auc, auroc, or a key naming one such as test_roc_auc) nor an R² (r2, r_squared, or a key naming one)"}}},
		{"classification without auc", `{"task": "classification", "r2": 0.3, ` + imp + `, ` + folds + `}`, StatusFail, []checkSummary{
			{"baseline", StatusFail, "metrics.json is a classification but reports no AUC"}}},
		{"dominant feature", `{"auc": 0.9, "feature_importance": [{"feature": "cfd", "importance": 0.8}, {"feature": "gc", "importance": -0.2}], ` + folds + `}`, StatusFail, []checkSummary{
			{"dominance", StatusFail, "feature `cfd` holds 80% of the total importance (above 50%)"}}},
		{"all-zero importance", `{"auc": 0.9, "feature_importance": {"a": 0, "b": 0}, ` + folds + `}`, StatusFail, []checkSummary{
			{"dominance", StatusFail, "every importance in `feature_importance` is zero"}}},
		{"unstable folds", `{"task": "regression", "r2": 0.1, ` + imp + `, "folds": [{"r2": 0.3}, {"r2": -0.1}, {"r2": 0.1}]}`, StatusFail, []checkSummary{
			{"fold_cv", StatusFail, "the fold scores vary with a coefficient of variation of 2.00 (`folds`: 0.3, -0.1, 0.1), at least 0.5"}}},
		{"folds averaging zero", `{"r2": 0.1, ` + imp + `, "folds": [0.1, -0.1]}`, StatusFail, []checkSummary{
			{"fold_cv", StatusFail, "the fold scores in `folds` average 0, so their variation is unbounded"}}},
		{"missing importances and folds warn", `{"auc": 0.7}`, StatusWarn, []checkSummary{
			{"dominance", StatusWarn, "no feature importances (feature_importance, feature_importances, importance, or a key naming importances, gain, shap or coefficients), so feature dominance was not checked"},
			{"fold_cv", StatusWarn, "no fold scores (folds, fold_scores, cv_scores, or a key naming folds or cross-validation), so stability across folds was not checked"}}},
		{"one fold warns", `{"auc": 0.7, ` + imp + `, "cv_scores": [0.7]}`, StatusWarn, []checkSummary{
			{"fold_cv", StatusWarn, "`cv_scores` holds 1 score; stability needs at least 2 folds"}}},
		{"not an object", `[1, 2]`, StatusFail, []checkSummary{
			{"parse", StatusFail, "metrics.json is not a JSON object: json: cannot unmarshal array into Go value of type map[string]interface {}"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq2([]byte(tt.body), "metrics.json", generic(t))
			only := tt.status != StatusPass
			if got := summarize(r, only); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if r.Status != tt.status {
				t.Errorf("status %s, want %s", r.Status, tt.status)
			}
		})
	}
}

// TestDQ2Groups replays the blueprint's M8: a subsampling that kept a third
// of the guides, evaluated on folds of one or two guides.
func TestDQ2Groups(t *testing.T) {
	base := `"auc": 0.71, "feature_importance": {"gc": 0.3, "mm": 0.4, "pos": 0.3}, `
	tests := []struct {
		name   string
		body   string
		status Status
		want   []checkSummary
	}{
		{"absent is not applicable", `{` + base + `"folds": [0.70, 0.72]}`, StatusPass, []checkSummary{
			{"groups", StatusPass, "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used"}}},
		{"clean", `{` + base + `"group_key": "guide", "groups_per_fold": [12, 11, 12], "n_groups_total": 57, "n_groups_used": 57, "folds": [0.70, 0.72, 0.71]}`, StatusPass, []checkSummary{
			{"groups_per_fold", StatusPass, "every fold holds at least 3 guides (smallest 11, `groups_per_fold`)"},
			{"groups_kept", StatusPass, "57 of 57 guides kept (100%, at least 80%)"}}},
		{"M8 subsample of a third", `{` + base + `"group_key": "guide", "n_groups_total": 57, "n_groups_used": 19, "folds": [{"auc": 0.7, "n_groups": 4}, {"auc": 0.72, "n_groups": 2}, {"auc": 0.71, "n_groups": 1}]}`, StatusFail, []checkSummary{
			{"groups_per_fold", StatusFail, "fold 2 has 2, fold 3 has 1 (`folds[].n_groups`); each held-out fold needs at least 3 guides"},
			{"groups_kept", StatusFail, "only 19 of 57 guides were kept (33.3%, below 80%): the result describes a subsample"}}},
		{"leave one group out", `{` + base + `"group_key": "guide", "groups_per_fold": [1, 1, 1, 1], "n_groups_total": 4, "n_groups_used": 4, "folds": [0.70, 0.72, 0.71, 0.70]}`, StatusPass, []checkSummary{
			{"groups_per_fold", StatusPass, "leave-one-guide-out: 4 folds of one guide each (`groups_per_fold`)"},
			{"groups_kept", StatusPass, "4 of 4 guides kept (100%, at least 80%)"}}},
		{"only one count warns", `{` + base + `"n_groups_used": 19, "folds": [0.70, 0.72]}`, StatusWarn, []checkSummary{
			{"groups_kept", StatusWarn, "the metrics state only one of n_groups_total and n_groups_used, so the share of groups kept was not checked"}}},
		{"zero total", `{` + base + `"n_groups_total": 0, "n_groups_used": 0, "folds": [0.70, 0.72]}`, StatusFail, []checkSummary{
			{"groups_kept", StatusFail, "n_groups_total is 0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq2([]byte(tt.body), "metrics.json", generic(t))
			var got []checkSummary
			for _, c := range summarize(r, false) {
				if strings.HasPrefix(c.Name, "groups") {
					got = append(got, c)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if r.Status != tt.status {
				t.Errorf("status %s, want %s: %s", r.Status, tt.status, r.Reason())
			}
		})
	}
	d := generic(t)
	d.DQ2.MinGroupsPerFold, d.DQ2.MinGroupShareKept = 1, 0.3
	if r := dq2([]byte(tests[2].body), "metrics.json", d); r.Status != StatusPass {
		t.Errorf("with the thresholds lowered: %s", r.Reason())
	}
}

func TestDQ3(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		domain string
		status Status
		want   []checkSummary
	}{
		{"clean", `{"nominal_coverage": 0.9, "empirical_coverage": 0.87, "n": 200}`, "generic", StatusPass, []checkSummary{
			{"coverage_gap", StatusPass, "empirical coverage 0.87 is within 0.1 of the nominal 0.9"},
			{"perfect_coverage", StatusPass, "empirical coverage 0.87 is not above 0.999"},
			{"sample_size", StatusPass, "n = 200, at least 30"}}},
		{"alpha and nested", `{"calibration": {"alpha": 0.1, "coverage": 0.92, "n_test": 40}}`, "generic", StatusPass, []checkSummary{
			{"coverage_gap", StatusPass, "empirical coverage 0.92 is within 0.1 of the nominal 0.9"},
			{"perfect_coverage", StatusPass, "empirical coverage 0.92 is not above 0.999"},
			{"sample_size", StatusPass, "n = 40, at least 30"}}},
		{"gap exactly at bound passes", `{"nominal_coverage": 0.9, "empirical_coverage": 0.8, "n": 30}`, "generic", StatusPass, []checkSummary{
			{"coverage_gap", StatusPass, "empirical coverage 0.8 is within 0.1 of the nominal 0.9"},
			{"perfect_coverage", StatusPass, "empirical coverage 0.8 is not above 0.999"},
			{"sample_size", StatusPass, "n = 30, at least 30"}}},
		{"gap too wide", `{"nominal_coverage": 0.9, "empirical_coverage": 0.71, "n": 200}`, "generic", StatusFail, []checkSummary{
			{"coverage_gap", StatusFail, "empirical coverage 0.71 (`empirical_coverage`) is 0.19 away from the nominal 0.9 (nominal_coverage); at most 0.1 allowed"}}},
		{"physics is tighter", `{"nominal_coverage": 0.9, "empirical_coverage": 0.84, "n": 500}`, "particle-physics", StatusFail, []checkSummary{
			{"coverage_gap", StatusFail, "empirical coverage 0.84 (`empirical_coverage`) is 0.06 away from the nominal 0.9 (nominal_coverage); at most 0.05 allowed"}}},
		{"perfect calibration", `{"nominal_coverage": 0.95, "empirical_coverage": 1.0, "n": 200}`, "generic", StatusFail, []checkSummary{
			{"perfect_coverage", StatusFail, "empirical coverage 1 is above 0.999: suspiciously perfect"}}},
		{"too small n", `{"nominal_coverage": 0.9, "empirical_coverage": 0.9, "n_points": 12}`, "generic", StatusFail, []checkSummary{
			{"sample_size", StatusFail, "coverage rests on n = 12 points; at least 30 are needed"}}},
		{"nothing stated", `{}`, "generic", StatusFail, []checkSummary{
			{"coverage_gap", StatusFail, "cal.json reports no empirical coverage (empirical_coverage, coverage)"},
			{"sample_size", StatusFail, "cal.json does not state how many points the coverage rests on (n, n_calibration, n_test, n_points)"}}},
		{"no nominal", `{"coverage": 0.9, "n": 50}`, "generic", StatusFail, []checkSummary{
			{"coverage_gap", StatusFail, "cal.json states no nominal coverage (nominal_coverage, target_coverage, or alpha)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ShippedDomain(tt.domain)
			if err != nil {
				t.Fatal(err)
			}
			r := dq3([]byte(tt.body), "cal.json", d)
			if got := summarize(r, tt.status != StatusPass); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if r.Status != tt.status {
				t.Errorf("status %s, want %s", r.Status, tt.status)
			}
		})
	}
}

func TestDQ2DQ3Files(t *testing.T) {
	dir := t.TempDir()
	if _, err := DQ2(filepath.Join(dir, "none.json"), generic(t)); err == nil || !strings.HasPrefix(err.Error(), "dq2: read metrics:") {
		t.Errorf("DQ2 err %v", err)
	}
	if _, err := DQ3(filepath.Join(dir, "none.json"), generic(t)); err == nil || !strings.HasPrefix(err.Error(), "dq3: read calibration:") {
		t.Errorf("DQ3 err %v", err)
	}
	p := filepath.Join(dir, "calibration.json")
	writeFile(t, p, `{"nominal_coverage": 0.9, "empirical_coverage": 0.9, "n": 40}`)
	r, err := DQ3(p, generic(t))
	if err != nil || r.Status != StatusPass || r.Inputs[0] != p {
		t.Errorf("DQ3 = %+v, %v", r, err)
	}
}
