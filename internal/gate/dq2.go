package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
		res.fail("parse", fmt.Sprintf("%s is not a JSON object: %v", base, err), "write the metrics as one JSON object (see the DQ2 format in vibe gate list)")
		return res
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
	auc, aucKey, haveAUC := firstNumber(obj, aucKeys)
	r2, r2Key, haveR2 := firstNumber(obj, r2Keys)
	baseline, _ := obj["baseline"].(map[string]any)

	switch {
	case !haveAUC && !haveR2:
		res.fail("baseline", fmt.Sprintf("%s reports neither an AUC (%s) nor an R² (%s)", base, strings.Join(aucKeys, ", "), strings.Join(r2Keys, ", ")), "write the held-out score under one of those keys")
	case task == "classification" && !haveAUC:
		res.fail("baseline", fmt.Sprintf("%s is a classification but reports no AUC", base), "write the held-out AUC under `auc`")
	case task == "regression" && !haveR2:
		res.fail("baseline", fmt.Sprintf("%s is a regression but reports no R²", base), "write the held-out R² under `r2`")
	}
	if haveAUC && task != "regression" {
		beats(&res, "AUC", aucKey, auc, d.DQ2.MinAUC, baseline, aucKeys)
	}
	if haveR2 && task != "classification" {
		beats(&res, "R²", r2Key, r2, d.DQ2.MinR2, baseline, r2Keys)
	}

	dq2Dominance(&res, obj, d.DQ2.MaxDominance)
	metricKeys := r2Keys
	if haveAUC && task != "regression" {
		metricKeys = aucKeys
	}
	dq2Folds(&res, obj, metricKeys, d.DQ2.MaxFoldCV)
	dq2Groups(&res, obj, d.DQ2)
	return res
}

func beats(res *Result, label, key string, score, min float64, baseline map[string]any, keys []string) {
	if score < min {
		res.fail("baseline", fmt.Sprintf("%s = %s (`%s`) is below the minimum %s for a model that beats the trivial baseline", label, formatFloat(score), key, formatFloat(min)), "improve the model or report that it does not beat the baseline; do not build claims on it")
		return
	}
	if b, bk, ok := firstNumber(baseline, keys); ok && score <= b {
		res.fail("baseline", fmt.Sprintf("%s = %s does not beat the stated baseline %s = %s", label, formatFloat(score), bk, formatFloat(b)), "improve the model or report that it does not beat the baseline")
		return
	}
	res.pass("baseline", fmt.Sprintf("%s = %s, at least %s", label, formatFloat(score), formatFloat(min)))
}

func dq2Dominance(res *Result, obj map[string]any, max float64) {
	imp, key := importances(obj)
	if imp == nil {
		res.warn("dominance", fmt.Sprintf("no feature importances (%s), so feature dominance was not checked", strings.Join(importanceKeys, ", ")), "write the importances as {\"feature\": importance} under `feature_importance`")
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

func importances(obj map[string]any) (map[string]float64, string) {
	for _, k := range importanceKeys {
		switch v := obj[k].(type) {
		case map[string]any:
			out := map[string]float64{}
			for n, x := range v {
				if f, ok := toFloat(x); ok {
					out[n] = f
				}
			}
			if len(out) > 0 {
				return out, k
			}
		case []any:
			out := map[string]float64{}
			for _, item := range v {
				m, ok := item.(map[string]any)
				if !ok {
					continue
				}
				name, _ := m["feature"].(string)
				if name == "" {
					name, _ = m["name"].(string)
				}
				if f, ok := toFloat(m["importance"]); ok && name != "" {
					out[name] = f
				}
			}
			if len(out) > 0 {
				return out, k
			}
		}
	}
	return nil, ""
}

func dq2Folds(res *Result, obj map[string]any, metricKeys []string, max float64) {
	var scores []float64
	key := ""
	for _, k := range foldKeys {
		list, ok := obj[k].([]any)
		if !ok {
			continue
		}
		key = k
		for _, item := range list {
			if f, ok := toFloat(item); ok {
				scores = append(scores, f)
				continue
			}
			if m, ok := item.(map[string]any); ok {
				if f, _, ok := firstNumber(m, append(append([]string{}, metricKeys...), "score")); ok {
					scores = append(scores, f)
				}
			}
		}
		break
	}
	switch {
	case key == "":
		res.warn("fold_cv", fmt.Sprintf("no fold scores (%s), so stability across folds was not checked", strings.Join(foldKeys, ", ")), "write the per-fold scores as a list under `folds`")
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
	res.pass("fold_cv", fmt.Sprintf("coefficient of variation %.2f over %d folds, below %s", cv, len(scores), formatFloat(max)))
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
	what, _ := obj["group_key"].(string)
	if what == "" {
		what = "group"
	}
	var perFold []float64
	key := ""
	if list, ok := obj["groups_per_fold"].([]any); ok {
		for _, item := range list {
			if f, ok := toFloat(item); ok {
				perFold = append(perFold, f)
			}
		}
		if len(perFold) > 0 {
			key = "groups_per_fold"
		}
	} else {
		for _, k := range foldKeys {
			list, ok := obj[k].([]any)
			if !ok {
				continue
			}
			for _, item := range list {
				if m, ok := item.(map[string]any); ok {
					if f, ok := toFloat(m["n_groups"]); ok {
						perFold = append(perFold, f)
					}
				}
			}
			if len(perFold) > 0 {
				key = k + "[].n_groups"
			}
			break
		}
	}
	total, haveTotal := toFloat(obj["n_groups_total"])
	used, haveUsed := toFloat(obj["n_groups_used"])
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
	switch {
	case haveTotal && haveUsed && total > 0:
		share := used / total
		if share < cfg.MinGroupShareKept {
			res.fail("groups_kept", fmt.Sprintf("only %s of %s %ss were kept (%s, below %s): the result describes a subsample", formatFloat(used), formatFloat(total), what, percent(share), percent(cfg.MinGroupShareKept)),
				fmt.Sprintf("run on all %ss, or report the result as a subsample and say how the %ss were chosen", what, what))
		} else {
			res.pass("groups_kept", fmt.Sprintf("%s of %s %ss kept (%s, at least %s)", formatFloat(used), formatFloat(total), what, percent(share), percent(cfg.MinGroupShareKept)))
		}
	case haveTotal != haveUsed:
		res.warn("groups_kept", "the metrics state only one of n_groups_total and n_groups_used, so the share of groups kept was not checked", "write both")
	case haveTotal && haveUsed:
		res.fail("groups_kept", fmt.Sprintf("n_groups_total is %s", formatFloat(total)), "write the number of groups in the data before subsampling")
	}
}
