package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The metrics JSON that DQ2 reads is one object; its keys may also sit
// under a "metrics" object. Recognised keys (first match wins):
//
//	task                      "classification" or "regression" (optional)
//	auc | roc_auc | auroc     held-out AUC (classification)
//	r2 | r_squared            held-out R² (regression)
//	baseline                  {"auc": …} or {"r2": …}: the trivial model's score (optional)
//	feature_importance        {"feature": importance, …} or [{"feature"|"name": …, "importance": …}]
//	folds | fold_scores | cv_scores
//	                          [score, …] or [{"auc"|"r2"|"score": …, "n_groups": …}, …]
//	groups_per_fold           [n, …]: groups (guides, patients, sites) in each held-out fold
//	n_groups_total            groups in the data before any subsampling
//	n_groups_used             groups the model was trained and evaluated on
//	group_key                 what a group is ("guide"), named in messages (optional)
var (
	aucKeys        = []string{"auc", "roc_auc", "auroc"}
	r2Keys         = []string{"r2", "r_squared"}
	importanceKeys = []string{"feature_importance", "feature_importances", "importance"}
	foldKeys       = []string{"folds", "fold_scores", "cv_scores"}
)

// DQ2 checks a metrics JSON: the model beats the trivial baseline (AUC at
// least dq2.min_auc, R² at least dq2.min_r2, and above a stated baseline),
// no feature holds more than dq2.max_dominance of the total absolute
// importance, and the coefficient of variation of the fold scores (sample
// standard deviation over |mean|) is below dq2.max_fold_cv. Missing
// importances or folds are a WARN: the gate cannot vouch for what it
// cannot see.
func DQ2(metricsPath string, d Domain) (Result, error) {
	raw, err := os.ReadFile(metricsPath)
	if err != nil {
		return Result{}, fmt.Errorf("dq2: read metrics: %w", err)
	}
	return dq2(raw, metricsPath, d), nil
}

func dq2(raw []byte, name string, d Domain) Result {
	res := newResult("DQ2", name)
	base := filepath.Base(name)
	obj, err := decodeObject(raw)
	if err != nil {
		// A list of metric records (tidymodels' collect_metrics written
		// as JSON) is read as if it sat under "metrics".
		var list []any
		if decodeList(raw, &list) != nil || !allObjects(list) {
			res.fail("parse", fmt.Sprintf("%s is not a JSON object: %v", base, err), "write the metrics as one JSON object (see the DQ2 format in vibe gate list)")
			return res
		}
		obj = map[string]any{"metrics": list}
	}
	if inner, ok := obj["metrics"].(map[string]any); ok {
		for k, v := range obj {
			if _, dup := inner[k]; !dup && k != "metrics" {
				inner[k] = v
			}
		}
		obj = inner
	}
	task, _ := obj["task"].(string)
	task = strings.ToLower(task)
	auc, aucKey, haveAUC := scoreIn(obj, aucRule)
	r2, r2Key, haveR2 := scoreIn(obj, r2Rule)

	switch {
	case !haveAUC && !haveR2:
		res.fail("baseline", fmt.Sprintf("%s reports neither an AUC (%s, or a key naming one such as test_roc_auc) nor an R² (%s, or a key naming one)", base, strings.Join(aucKeys, ", "), strings.Join(r2Keys, ", ")), "write the held-out score under one of those keys")
	case task == "classification" && !haveAUC:
		res.fail("baseline", fmt.Sprintf("%s is a classification but reports no AUC", base), "write the held-out AUC under `auc`")
	case task == "regression" && !haveR2:
		res.fail("baseline", fmt.Sprintf("%s is a regression but reports no R²", base), "write the held-out R² under `r2`")
	}
	if haveAUC && task != "regression" {
		beats(&res, "AUC", aucKey, auc, d.DQ2.MinAUC, obj, aucRule)
	}
	if haveR2 && task != "classification" {
		beats(&res, "R²", r2Key, r2, d.DQ2.MinR2, obj, r2Rule)
	}

	dq2Dominance(&res, obj, d.DQ2.MaxDominance)
	metric := r2Rule
	if haveAUC && task != "regression" {
		metric = aucRule
	}
	dq2Folds(&res, obj, metric, d.DQ2.MaxFoldCV)
	dq2Groups(&res, obj, d.DQ2)
	return res
}

// beats checks a score against the floor and against a stated baseline:
// {"baseline": {"auc": …}}, or a number under a key naming a baseline and
// the metric (dummy_roc_auc, baseline_auc).
func beats(res *Result, label, key string, score, min float64, obj map[string]any, metric keyRule) {
	read := ""
	if !slices.Contains(metric.exact, key) {
		read = fmt.Sprintf(" (read from `%s`)", key)
	}
	if score < min {
		res.fail("baseline", fmt.Sprintf("%s = %s (`%s`) is below the minimum %s for a model that beats the trivial baseline", label, formatFloat(score), key, formatFloat(min)), "improve the model or report that it does not beat the baseline; do not build claims on it")
		return
	}
	if b, bk, ok := baselineOf(obj, metric); ok && score <= b {
		res.fail("baseline", fmt.Sprintf("%s = %s does not beat the stated baseline %s = %s", label, formatFloat(score), bk, formatFloat(b)), "improve the model or report that it does not beat the baseline")
		return
	}
	res.pass("baseline", fmt.Sprintf("%s = %s%s, at least %s", label, formatFloat(score), read, formatFloat(min)))
}

// baselineOf is the trivial model's score for the metric, when stated.
func baselineOf(obj map[string]any, metric keyRule) (float64, string, bool) {
	for _, k := range baselineRule.keys(obj) {
		switch v := obj[k].(type) {
		case map[string]any:
			for _, mk := range metric.keys(v) {
				if f, ok := toFloat(v[mk]); ok {
					return f, mk, true
				}
			}
			// {"dummy": {"roc_auc": …}} names the metric; {"baseline":
			// {"score": …}} does not and is taken as it is.
			if f, ok := toFloat(v["score"]); ok {
				return f, k + ".score", true
			}
		default:
			loose := metric
			loose.avoid = nil
			if f, ok := toFloat(v); ok && loose.matches(k) {
				return f, k, true
			}
		}
	}
	return 0, "", false
}

// allObjects reports a non-empty list of JSON objects.
func allObjects(list []any) bool {
	for _, item := range list {
		if _, ok := item.(map[string]any); !ok {
			return false
		}
	}
	return len(list) > 0
}

func decodeList(raw []byte, list *[]any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(list)
}

func dq2Dominance(res *Result, obj map[string]any, max float64) {
	imp, key := importances(obj)
	if imp == nil {
		res.warn("dominance", fmt.Sprintf("no feature importances (%s, or a key naming importances, gain, shap or coefficients), so feature dominance was not checked", strings.Join(importanceKeys, ", ")), "write the importances as {\"feature\": importance} under `feature_importance`")
		return
	}
	total := 0.0
	for _, v := range imp {
		total += math.Abs(v)
	}
	if total == 0 {
		res.fail("dominance", fmt.Sprintf("every importance in `%s` is zero", key), "recompute the importances; all-zero means the model uses no feature")
		return
	}
	names := sortedKeys(imp)
	topName, topShare := "", 0.0
	over := 0
	for _, n := range names {
		share := math.Abs(imp[n]) / total
		if share > max {
			over++
			res.fail("dominance", fmt.Sprintf("feature `%s` holds %s of the total importance (above %s)", n, percent(share), percent(max)), "check it for leakage (DQ1) and report the model without it")
		}
		if share > topShare {
			topName, topShare = n, share
		}
	}
	if over == 0 {
		res.pass("dominance", fmt.Sprintf("largest share %s (`%s`), at most %s", percent(topShare), topName, percent(max)))
	}
}

// importances finds the feature importances: a {"feature": importance}
// object, or a list of records naming a feature and its importance, under
// feature_importance or a key naming importances (gain, shap, coef…).
func importances(obj map[string]any) (map[string]float64, string) {
	for _, k := range importanceRule.keys(obj) {
		switch v := obj[k].(type) {
		case map[string]any:
			out := map[string]float64{}
			for n, x := range v {
				if f, ok := toFloat(x); ok {
					out[n] = f
				}
			}
			if len(out) >= 2 || (len(out) > 0 && slices.Contains(importanceKeys, k)) {
				return out, k
			}
		case []any:
			out := map[string]float64{}
			for _, item := range v {
				m, ok := item.(map[string]any)
				if !ok {
					continue
				}
				name, value, ok := importanceRecord(m)
				if ok {
					out[name] = value
				}
			}
			if len(out) > 0 {
				return out, k
			}
		}
	}
	return nil, ""
}

// importanceRecord reads {"feature": "gc", "importance": 0.3}, or any
// record of one string (the feature) and one number, or of a string and a
// number under a key naming an importance ({"variable": "gc", "Overall":
// 12, "rank": 3} is read by "Overall" only if it is the sole number).
func importanceRecord(m map[string]any) (string, float64, bool) {
	name, _ := m["feature"].(string)
	if name == "" {
		name, _ = m["name"].(string)
	}
	if f, ok := toFloat(m["importance"]); ok && name != "" {
		return name, f, true
	}
	var texts []string
	var nums []string
	for _, k := range sortedKeys(m) {
		switch m[k].(type) {
		case string:
			texts = append(texts, k)
		default:
			if _, ok := toFloat(m[k]); ok {
				nums = append(nums, k)
			}
		}
	}
	if len(texts) != 1 || len(nums) == 0 {
		return "", 0, false
	}
	name = m[texts[0]].(string)
	if len(nums) == 1 {
		f, _ := toFloat(m[nums[0]])
		return name, f, true
	}
	for _, k := range nums {
		if importanceRule.matches(k) {
			f, _ := toFloat(m[k])
			return name, f, true
		}
	}
	return "", 0, false
}

func dq2Folds(res *Result, obj map[string]any, metric keyRule, max float64) {
	scores, key := foldScores(obj, metric)
	switch {
	case key == "":
		res.warn("fold_cv", fmt.Sprintf("no fold scores (%s, or a key naming folds or cross-validation), so stability across folds was not checked", strings.Join(foldKeys, ", ")), "write the per-fold scores as a list under `folds`")
		return
	case len(scores) < 2:
		res.warn("fold_cv", fmt.Sprintf("`%s` holds %d score; stability needs at least 2 folds", key, len(scores)), "run cross-validation with at least 2 folds and write each fold's score")
		return
	}
	mean, sd := meanSD(scores)
	if mean == 0 {
		res.fail("fold_cv", fmt.Sprintf("the fold scores in `%s` average 0, so their variation is unbounded", key), "the model is unstable or broken; check the folds before reporting")
		return
	}
	cv := sd / math.Abs(mean)
	if cv >= max {
		res.fail("fold_cv", fmt.Sprintf("the fold scores vary with a coefficient of variation of %.2f (`%s`: %s), at least %s", cv, key, joinFloats(scores), formatFloat(max)), "the result is unstable across folds: check for small or unbalanced folds before reporting")
		return
	}
	read := ""
	if !slices.Contains(foldKeys, key) {
		read = fmt.Sprintf(" (`%s`)", key)
	}
	res.pass("fold_cv", fmt.Sprintf("coefficient of variation %.2f over %d folds%s, below %s", cv, len(scores), read, formatFloat(max)))
}

// foldScores finds the per-fold scores: a list of numbers, or of objects
// holding the metric, under folds or a key naming folds; else a list of
// numbers under a key naming the metric (test_roc_auc: [0.79, 0.83, …]).
func foldScores(obj map[string]any, metric keyRule) ([]float64, string) {
	for _, k := range foldRule.keys(obj) {
		list, ok := obj[k].([]any)
		if !ok {
			continue
		}
		var scores []float64
		for _, item := range list {
			if f, ok := toFloat(item); ok {
				scores = append(scores, f)
				continue
			}
			if m, ok := item.(map[string]any); ok {
				if f, _, ok := scoreIn(m, metric); ok {
					scores = append(scores, f)
				} else if f, ok := toFloat(m["score"]); ok {
					scores = append(scores, f)
				}
			}
		}
		if len(scores) > 0 || slices.Contains(foldKeys, k) {
			return scores, k
		}
	}
	for _, k := range metric.keys(obj) {
		if list := numbers(obj[k]); len(list) >= 2 {
			return list, k
		}
	}
	return nil, ""
}

func meanSD(xs []float64) (float64, float64) {
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = formatFloat(x)
	}
	return strings.Join(parts, ", ")
}

func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, fmt.Errorf("null")
	}
	return obj, nil
}

func firstNumber(obj map[string]any, keys []string) (float64, string, bool) {
	if obj == nil {
		return 0, "", false
	}
	for _, k := range keys {
		if f, ok := toFloat(obj[k]); ok {
			return f, k, true
		}
	}
	return 0, "", false
}

func toFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return t, !math.IsInf(t, 0) && !math.IsNaN(t)
	}
	return 0, false
}

// leaveOneGroupOut reports folds of exactly one group each, at least min
// of them: leave-one-group-out, where every group is held out once by
// design and one group per fold is no defect.
func leaveOneGroupOut(perFold []float64, min int) bool {
	if len(perFold) < min || len(perFold) < 2 {
		return false
	}
	for _, n := range perFold {
		if n != 1 {
			return false
		}
	}
	return true
}

// dq2Groups checks grouped cross-validation (the blueprint's M8: a
// subsampling that kept a third of the guides, and folds of one or two
// guides each). Groups per fold come from groups_per_fold or from the
// n_groups of each object in the fold list; the share kept is
// n_groups_used / n_groups_total. A metrics file that states neither is
// not judged here: grouping is reported as not applicable, never failed.
func dq2Groups(res *Result, obj map[string]any, cfg DQ2Config) {
	what, _ := obj[groupKey(obj, "group_key", "key", "by", "column", "unit", "name")].(string)
	if what == "" {
		what = "group"
	}
	var perFold []float64
	key := ""
	if k := groupKey(obj, "groups_per_fold", "fold", "folds", "per"); k != "" {
		if list, ok := obj[k].([]any); ok {
			for _, item := range list {
				if f, ok := toFloat(item); ok {
					perFold = append(perFold, f)
				}
			}
			if len(perFold) > 0 {
				key = k
			}
		}
	}
	if key == "" {
		for _, k := range foldRule.keys(obj) {
			list, ok := obj[k].([]any)
			if !ok {
				continue
			}
			ik := ""
			for _, item := range list {
				if m, ok := item.(map[string]any); ok {
					if ik == "" {
						ik = groupKey(m, "n_groups", "n", "num", "number", "count")
					}
					if f, ok := toFloat(m[ik]); ok {
						perFold = append(perFold, f)
					}
				}
			}
			if len(perFold) > 0 {
				key = k + "[]." + ik
			}
			break
		}
	}
	totalKey := groupKey(obj, "n_groups_total", "total", "all", "before")
	usedKey := groupKey(obj, "n_groups_used", "used", "kept", "retained", "after")
	total, haveTotal := toFloat(obj[totalKey])
	used, haveUsed := toFloat(obj[usedKey])
	if key == "" && !haveTotal && !haveUsed {
		res.pass("groups", "not applicable: no groups_per_fold, folds[].n_groups, or n_groups_total with n_groups_used")
		return
	}
	if key != "" && leaveOneGroupOut(perFold, cfg.MinGroupsPerFold) {
		res.pass("groups_per_fold", fmt.Sprintf("leave-one-%s-out: %d folds of one %s each (`%s`)", what, len(perFold), what, key))
	} else if key != "" {
		min := float64(cfg.MinGroupsPerFold)
		var small []string
		smallest := perFold[0]
		for i, n := range perFold {
			if n < min {
				small = append(small, fmt.Sprintf("fold %d has %s", i+1, formatFloat(n)))
			}
			if n < smallest {
				smallest = n
			}
		}
		if len(small) > 0 {
			res.fail("groups_per_fold", fmt.Sprintf("%s (`%s`); each held-out fold needs at least %d %ss", strings.Join(small, ", "), key, cfg.MinGroupsPerFold, what),
				fmt.Sprintf("use fewer folds or more %ss, so that no fold's score rests on one or two %ss", what, what))
		} else {
			res.pass("groups_per_fold", fmt.Sprintf("every fold holds at least %d %ss (smallest %s, `%s`)", cfg.MinGroupsPerFold, what, formatFloat(smallest), key))
		}
	}
	read := ""
	if totalKey != "n_groups_total" || usedKey != "n_groups_used" {
		read = fmt.Sprintf("; `%s` of `%s`", usedKey, totalKey)
	}
	switch {
	case haveTotal && haveUsed && total > 0:
		share := used / total
		if share < cfg.MinGroupShareKept {
			res.fail("groups_kept", fmt.Sprintf("only %s of %s %ss were kept (%s, below %s%s): the result describes a subsample", formatFloat(used), formatFloat(total), what, percent(share), percent(cfg.MinGroupShareKept), read),
				fmt.Sprintf("run on all %ss, or report the result as a subsample and say how the %ss were chosen", what, what))
		} else {
			res.pass("groups_kept", fmt.Sprintf("%s of %s %ss kept (%s, at least %s%s)", formatFloat(used), formatFloat(total), what, percent(share), percent(cfg.MinGroupShareKept), read))
		}
	case haveTotal != haveUsed:
		res.warn("groups_kept", "the metrics state only one of n_groups_total and n_groups_used, so the share of groups kept was not checked", "write both")
	case haveTotal && haveUsed:
		res.fail("groups_kept", fmt.Sprintf("n_groups_total is %s", formatFloat(total)), "write the number of groups in the data before subsampling")
	}
}

// groupKey is exact when obj holds it, else the first key (in order) whose
// name holds group or groups and one of with, "" for none.
func groupKey(obj map[string]any, exact string, with ...string) string {
	if _, ok := obj[exact]; ok {
		return exact
	}
	for _, k := range sortedKeys(obj) {
		toks := nameTokens(k)
		if hasAny(toks, []string{"group", "groups"}) && hasAny(toks, with) {
			return k
		}
	}
	return ""
}
