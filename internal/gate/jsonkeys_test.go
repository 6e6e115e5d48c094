package gate

import (
	"reflect"
	"testing"
)

// TestDQ2KeysOfOtherTools: metrics written as scikit-learn, tidymodels,
// caret and xgboost write them are read by the keys their names infer, and
// each message names the key it read.
func TestDQ2KeysOfOtherTools(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []checkSummary
	}{
		{"scikit-learn cross_validate with xgboost gain", `{"fit_time": [0.4, 0.5, 0.4, 0.4], "score_time": [0.01, 0.01, 0.01, 0.01],
			"test_roc_auc": [0.79, 0.83, 0.80, 0.82], "train_roc_auc": [0.97, 0.98, 0.97, 0.98],
			"gain": {"mismatch_count": 41.2, "seed_mm": 35.1, "gc": 24.0}}`, []checkSummary{
			{"baseline", StatusPass, "AUC = 0.81 (read from `test_roc_auc (mean of 4 values)`), at least 0.55"},
			{"dominance", StatusPass, "largest share 41.1% (`mismatch_count`), at most 50%"},
			{"fold_cv", StatusPass, "coefficient of variation 0.02 over 4 folds (`test_roc_auc`), below 0.5"},
			{"groups", StatusPass, "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used"}}},
		{"tidymodels collect_metrics", `[{".metric": "accuracy", ".estimator": "binary", "mean": 0.74, "n": 5, "std_err": 0.01},
			{".metric": "roc_auc", ".estimator": "binary", "mean": 0.81, "n": 5, "std_err": 0.012}]`, []checkSummary{
			{"baseline", StatusPass, "AUC = 0.81 (read from `metrics[.metric=roc_auc].mean`), at least 0.55"},
			{"dominance", StatusWarn, "no feature importances (feature_importance, feature_importances, importance, or a key naming importances, gain, shap or coefficients), so feature dominance was not checked"},
			{"fold_cv", StatusWarn, "no fold scores (folds, fold_scores, cv_scores, or a key naming folds or cross-validation), so stability across folds was not checked"},
			{"groups", StatusPass, "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used"}}},
		{"caret train", `{"ROC": 0.81, "Sens": 0.7, "Spec": 0.8, "ROCSD": 0.02,
			"resample": [{"ROC": 0.79, "Resample": "Fold1"}, {"ROC": 0.83, "Resample": "Fold2"}, {"ROC": 0.81, "Resample": "Fold3"}],
			"varImp": {"mismatch": 100, "gc": 80, "seed": 60}}`, []checkSummary{
			{"baseline", StatusPass, "AUC = 0.81 (read from `ROC`), at least 0.55"},
			{"dominance", StatusPass, "largest share 41.7% (`mismatch`), at most 50%"},
			{"fold_cv", StatusPass, "coefficient of variation 0.02 over 3 folds (`resample`), below 0.5"},
			{"groups", StatusPass, "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used"}}},
		{"a PR AUC is not the AUC, a dummy's AUC is the baseline", `{"pr_auc": 0.9, "holdout_auroc": 0.6, "dummy_auroc": 0.62,
			"coefficients": [{"term": "gc", "estimate": 0.4}, {"term": "mm", "estimate": -0.5}], "cv_auroc": [0.6, 0.61]}`, []checkSummary{
			{"baseline", StatusFail, "AUC = 0.6 does not beat the stated baseline dummy_auroc = 0.62"},
			{"dominance", StatusFail, "feature `mm` holds 55.6% of the total importance (above 50%)"}}},
		{"grouped folds under other keys", `{"auc": 0.8, "feature_importance": {"a": 1, "b": 1, "c": 1}, "folds": [0.8, 0.81, 0.79],
			"n_guides_per_fold": [1, 2, 1], "guide_groups_total": 12, "guide_groups_used": 4}`, []checkSummary{
			{"groups_kept", StatusFail, "only 4 of 12 groups were kept (33.3%, below 80%; `guide_groups_used` of `guide_groups_total`): the result describes a subsample"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq2([]byte(tt.body), "scores.json", generic(t))
			onlyBad := r.Status == StatusFail
			if got := summarize(r, onlyBad); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDQ3KeysOfOtherTools reads calibration results named otherwise, and
// never takes a fraction for n.
func TestDQ3KeysOfOtherTools(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []checkSummary
	}{
		{"MAPIE", `{"alpha": 0.1, "coverage_score": 0.88, "mean_width": 0.31, "n_test": 300}`, []checkSummary{
			{"coverage_gap", StatusPass, "empirical coverage 0.88 is within 0.1 of the nominal 0.9"},
			{"perfect_coverage", StatusPass, "empirical coverage 0.88 is not above 0.999"},
			{"sample_size", StatusPass, "n = 300, at least 30"}}},
		{"a confidence level and a PICP", `{"confidence_level": 0.9, "picp": 0.71, "num_test_points": 120}`, []checkSummary{
			{"coverage_gap", StatusFail, "empirical coverage 0.71 (`picp`) is 0.19 away from the nominal 0.9 (confidence_level); at most 0.1 allowed"},
			{"perfect_coverage", StatusPass, "empirical coverage 0.71 is not above 0.999"},
			{"sample_size", StatusPass, "n = 120, at least 30"}}},
		{"a test_size fraction is no n", `{"nominal_coverage": 0.9, "coverage": 0.9, "test_size": 0.2}`, []checkSummary{
			{"coverage_gap", StatusPass, "empirical coverage 0.9 is within 0.1 of the nominal 0.9"},
			{"perfect_coverage", StatusPass, "empirical coverage 0.9 is not above 0.999"},
			{"sample_size", StatusFail, "cal.json does not state how many points the coverage rests on (n, n_calibration, n_test, n_points)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dq3([]byte(tt.body), "cal.json", generic(t))
			if got := summarize(r, false); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
