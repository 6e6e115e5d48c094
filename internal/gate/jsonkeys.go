package gate

import (
	"slices"
	"sort"
	"strings"
)

// The metrics and calibration JSON of DQ2 and DQ3 name their numbers as
// the tool that wrote them does: scikit-learn's cross_validate writes
// test_roc_auc, xgboost feature_importances_, caret ROC, tidymodels a list
// of {".metric": "roc_auc", "mean": …}, MAPIE coverage_score. The keys the
// skill documents (auc, folds, feature_importance…) are looked up first;
// when none is present, a key is inferred from the parts of its name, and
// the gate names the key it read in its message, so a wrong guess shows.
//
// A keyRule matches a key whose name parts (split at separators and case
// changes: test_roc_auc → test, roc, auc) hold one of parts, or whose
// letters, lower-cased and run together, hold one of within; a key with
// a part in avoid never matches. Among several, the key whose parts say
// held-out (test, holdout, oof > cv, mean, overall > val, validation)
// goes first, then the shorter name, then the name in order.
type keyRule struct {
	exact  []string
	parts  []string
	within []string
	avoid  []string
}

// notTheScore are name parts of numbers that sit beside a score and are not
// it: its spread, bounds, a baseline's or the training set's score, counts.
var notTheScore = []string{"std", "sd", "se", "sem", "stderr", "err", "error", "ci", "lower", "upper", "lo", "hi",
	"low", "high", "var", "variance", "baseline", "null", "random", "dummy", "chance", "majority", "train", "training",
	"fit", "min", "max", "delta", "diff", "rank", "n", "count", "p", "pvalue", "time", "seconds"}

var (
	aucRule = keyRule{exact: aucKeys, parts: []string{"auc", "auroc", "rocauc", "roc"},
		within: []string{"auroc", "rocauc", "aucroc"},
		avoid:  append([]string{"pr", "prc", "auprc", "aupr", "precision", "pauc"}, notTheScore...)}
	r2Rule = keyRule{exact: r2Keys, parts: []string{"r2", "rsquared", "rsq", "r2score", "squared"},
		within: []string{"rsquared", "r2score"}, avoid: notTheScore}
	foldRule = keyRule{exact: foldKeys, parts: []string{"fold", "folds", "cv", "split", "splits", "resample", "resamples",
		"kfold", "perfold", "crossval", "scores"}, avoid: []string{"n", "count", "groups", "group", "time"}}
	importanceRule = keyRule{exact: importanceKeys, parts: []string{"importance", "importances", "gain", "shap",
		"weight", "weights", "coef", "coefs", "coefficients", "contribution", "contributions", "varimp"},
		within: []string{"importance", "shap", "varimp"}}
	baselineRule = keyRule{exact: []string{"baseline"}, parts: []string{"baseline", "null", "dummy", "chance", "majority", "random"}}
)

// heldOut ranks name parts that say a score was measured on held-out data.
var heldOut = map[string]int{"test": 3, "testing": 3, "holdout": 3, "heldout": 3, "oof": 3, "outer": 3,
	"cv": 2, "mean": 2, "avg": 2, "average": 2, "overall": 2, "crossval": 2,
	"val": 1, "valid": 1, "validation": 1}

// matches reports whether key k is a rule's key by its name.
func (r keyRule) matches(k string) bool {
	toks := nameTokens(k)
	if hasAny(toks, r.avoid) {
		return false
	}
	if hasAny(toks, r.parts) {
		return true
	}
	compact := strings.Join(toks, "")
	for _, w := range r.within {
		if strings.Contains(compact, w) {
			return true
		}
	}
	return false
}

// keys lists obj's keys that the rule matches: the exact names first, in
// the rule's order, then the inferred ones by rank.
func (r keyRule) keys(obj map[string]any) []string {
	var out []string
	for _, k := range r.exact {
		if _, ok := obj[k]; ok {
			out = append(out, k)
		}
	}
	var inferred []string
	for k := range obj {
		if !slices.Contains(r.exact, k) && r.matches(k) {
			inferred = append(inferred, k)
		}
	}
	sort.Slice(inferred, func(i, j int) bool {
		a, b := heldOutRank(inferred[i]), heldOutRank(inferred[j])
		if a != b {
			return a > b
		}
		if len(inferred[i]) != len(inferred[j]) {
			return len(inferred[i]) < len(inferred[j])
		}
		return inferred[i] < inferred[j]
	})
	return append(out, inferred...)
}

func heldOutRank(k string) int {
	best := 0
	for _, t := range nameTokens(k) {
		best = max(best, heldOut[t])
	}
	return best
}

// scoreIn finds a held-out score: a number under a key the rule matches,
// at the top of obj or one object down (under a key that is not a
// baseline's or the training set's); else the mean of a list of numbers
// under such a key (cross_validate's test_roc_auc); else an item of a
// list of metric records ({".metric": "roc_auc", "mean": 0.81}). It
// returns the score, the key it read (dotted for a nested one), and
// whether one was found.
func scoreIn(obj map[string]any, r keyRule) (float64, string, bool) {
	for _, k := range r.keys(obj) {
		if f, ok := toFloat(obj[k]); ok {
			return f, k, true
		}
	}
	for _, k := range sortedKeys(obj) {
		inner, ok := obj[k].(map[string]any)
		if !ok || hasAny(nameTokens(k), notTheScore) {
			continue
		}
		for _, ik := range r.keys(inner) {
			if f, ok := toFloat(inner[ik]); ok {
				return f, k + "." + ik, true
			}
		}
	}
	for _, k := range r.keys(obj) {
		if list := numbers(obj[k]); len(list) >= 2 {
			m, _ := meanSD(list)
			return m, k + " (mean of " + countOf(len(list), "value") + ")", true
		}
	}
	return recordScore(obj, r)
}

// metricValueKeys are the keys of a metric record that hold its value.
var metricValueKeys = []string{"mean", "estimate", ".estimate", "value", "score", "result"}

// recordScore reads a list of metric records: objects naming a metric in a
// string field and holding its value under mean, estimate or value.
func recordScore(obj map[string]any, r keyRule) (float64, string, bool) {
	for _, k := range sortedKeys(obj) {
		list, ok := obj[k].([]any)
		if !ok {
			continue
		}
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			for _, nk := range sortedKeys(m) {
				name, ok := m[nk].(string)
				if !ok || !r.matches(name) {
					continue
				}
				for _, vk := range metricValueKeys {
					if f, ok := toFloat(m[vk]); ok {
						return f, k + "[" + nk + "=" + name + "]." + vk, true
					}
				}
			}
		}
	}
	return 0, "", false
}

// numbers returns v's numbers when v is a list of numbers, else nil.
func numbers(v any) []float64 {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]float64, 0, len(list))
	for _, item := range list {
		f, ok := toFloat(item)
		if !ok {
			return nil
		}
		out = append(out, f)
	}
	return out
}
