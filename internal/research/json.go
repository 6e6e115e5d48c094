package research

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
)

// decodeHead decodes a JSON object from the head of a file. A head cut
// mid-document keeps the top-level keys whose values were read whole. ok
// is false for anything that is not a JSON object.
func decodeHead(f File) (map[string]any, bool) {
	head := bytes.TrimSpace(bytes.TrimPrefix(f.Head, []byte("\ufeff")))
	if len(head) == 0 || head[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if !f.cut() {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, false
		}
		return obj, true
	}
	if _, err := dec.Token(); err != nil { // {
		return nil, false
	}
	obj := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := tok.(string)
		if !ok {
			break
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		obj[key] = v
	}
	return obj, len(obj) > 0
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// findingKey matches a finding id used as a key: F1, F12, F6b.
var findingKey = regexp.MustCompile(`^F[0-9]{1,3}[a-z]?$`)

// recognizeJSON says whether a JSON document is a findings source (keyed
// by finding ids, or beside a findings file of its name), metrics DQ2 can
// judge, a calibration result DQ3 can judge, or other evaluation output.
func recognizeJSON(f File, d gate.Domain) (Artifact, bool) {
	obj, ok := decodeHead(f)
	if !ok {
		return Artifact{}, false
	}
	ids := 0
	for k, v := range obj {
		if _, isObj := v.(map[string]any); isObj && findingKey.MatchString(k) {
			ids++
		}
	}
	if ids > 0 && ids*2 >= len(obj) {
		return Artifact{Kind: KindFindingsSource, Why: "results keyed by finding ids"}, true
	}
	// FINDINGS.json beside FINDINGS.md is the findings' source before it
	// is anything else: DQ4 reads it, and the numbers it holds are the
	// ones the findings report.
	if md := findingsBeside(f, d); md != "" {
		return Artifact{Kind: KindFindingsSource, Why: "the source of " + md}, true
	}
	if a, ok := metricsObject(obj); ok {
		return a, true
	}
	if a, ok := calibrationObject(obj); ok {
		return a, true
	}
	if a, ok := evaluationObject(obj); ok {
		return a, true
	}
	return Artifact{}, false
}

// metricsObject finds a held-out score where DQ2 reads it
// (gate.HeldOutScore): an AUC in [0, 1] or an R² of at most 1, under a
// documented key or one naming it, one number or the mean of fold scores.
func metricsObject(obj map[string]any) (Artifact, bool) {
	if _, k, v, ok := gate.HeldOutScore(obj); ok {
		return Artifact{Kind: KindMetrics, Why: fmt.Sprintf("a held-out score `%s` = %g", k, v)}, true
	}
	return Artifact{}, false
}

// calibrationObject finds an empirical and a nominal coverage where DQ3
// reads them, both in [0, 1] (the nominal one may be given as alpha).
func calibrationObject(obj map[string]any) (Artifact, bool) {
	empKeys, nomKeys, _ := gate.DQ3CoverageKeys()
	o := obj
	if in := inner(obj, gate.DQ3Wrapper); in != nil {
		o = in
	}
	empName, empVal := "", 0.0
	for _, k := range empKeys {
		if v, ok := number(o[k]); ok && v >= 0 && v <= 1 {
			empName, empVal = k, v
			break
		}
	}
	if empName == "" {
		return Artifact{}, false
	}
	for _, k := range nomKeys {
		if v, ok := number(o[k]); ok && v > 0 && v <= 1 {
			return Artifact{Kind: KindCalibration, Why: fmt.Sprintf("coverage `%s` = %g against `%s` = %g", empName, empVal, k, v)}, true
		}
	}
	if v, ok := number(o["alpha"]); ok && v > 0 && v < 1 {
		return Artifact{Kind: KindCalibration, Why: fmt.Sprintf("coverage `%s` = %g against alpha = %g", empName, empVal, v)}, true
	}
	return Artifact{}, false
}

func inner(obj map[string]any, key string) map[string]any {
	m, _ := obj[key].(map[string]any)
	return m
}

// findingsBeside returns the name of the findings file beside a JSON
// document with its name (results.json → results.md), "" for none.
func findingsBeside(f File, d gate.Domain) string {
	if f.Sibling == nil {
		return ""
	}
	base := path.Base(f.Rel)
	md := strings.TrimSuffix(base, path.Ext(base)) + ".md"
	mdRel := path.Join(path.Dir(f.Rel), md)
	if d.FileKind(mdRel) == KindFindings {
		if f.Sibling(md) != nil {
			return md
		}
		return ""
	}
	head := f.Sibling(md)
	if head == nil {
		return ""
	}
	if a, ok := recognizeMarkdown(File{Rel: mdRel, Head: head, Size: int64(len(head))}); ok && a.Kind == KindFindings {
		return md
	}
	return ""
}

// evaluationNames are the names of evaluation measures, after the usual
// prefixes (val_, test_, mean_…) and suffixes (_score, _mean…) are cut.
var evaluationNames = map[string]bool{
	"accuracy": true, "acc": true, "balanced_accuracy": true, "top1": true, "top5": true,
	"f1": true, "f1_macro": true, "f1_micro": true, "f1_weighted": true, "macro_f1": true, "micro_f1": true, "fbeta": true,
	"precision": true, "recall": true, "sensitivity": true, "specificity": true, "tpr": true, "fpr": true,
	"auc": true, "roc_auc": true, "auroc": true, "pr_auc": true, "auprc": true, "average_precision": true, "ap": true,
	"mcc": true, "kappa": true, "cohen_kappa": true, "jaccard": true, "iou": true, "miou": true, "dice": true,
	"loss": true, "log_loss": true, "logloss": true, "nll": true, "cross_entropy": true, "bce": true, "perplexity": true,
	"rmse": true, "mse": true, "mae": true, "mape": true, "smape": true, "medae": true, "r2": true, "r_squared": true,
	"explained_variance": true, "pearson": true, "pearson_r": true, "spearman": true, "spearman_rho": true,
	"brier": true, "ece": true, "mce": true, "c_index": true, "concordance": true, "coverage": true,
	"bleu": true, "rouge": true, "rouge_l": true, "wer": true, "cer": true, "map": true, "ndcg": true,
}

var evalPrefixes = []string{"val_", "valid_", "validation_", "test_", "train_", "eval_", "mean_", "cv_", "oof_", "holdout_", "best_"}
var evalSuffixes = []string{"_score", "_mean", "_std", "_avg", "_value"}

// evaluationName reports whether a key names an evaluation measure.
func evaluationName(key string) (string, bool) {
	k := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(key, "-", "_"), " ", "_"))
	for range 2 {
		for _, p := range evalPrefixes {
			k = strings.TrimPrefix(k, p)
		}
		for _, s := range evalSuffixes {
			k = strings.TrimSuffix(k, s)
		}
	}
	k = strings.TrimSuffix(k, "@k")
	return k, evaluationNames[k]
}

// measured reports whether a value is what a measure's value looks like: a
// number, or a list of numbers (per fold, per epoch).
func measured(v any) bool {
	if _, ok := number(v); ok {
		return true
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, x := range list {
		if _, ok := number(x); !ok {
			return false
		}
	}
	return true
}

// evaluationObject finds at least two distinct evaluation measures with
// numbers (or lists of numbers) at the top level, or in one object per
// model, split or fold one level down: evaluation output DQ2 cannot read
// (no AUC or R² where it looks), judged by no gate.
func evaluationObject(obj map[string]any) (Artifact, bool) {
	names := map[string]bool{}
	count := func(o map[string]any) {
		for k, v := range o {
			if n, ok := evaluationName(k); ok && measured(v) {
				names[n] = true
			}
		}
	}
	count(obj)
	for _, v := range obj {
		switch t := v.(type) {
		case map[string]any:
			count(t)
		case []any:
			for _, x := range t {
				if m, ok := x.(map[string]any); ok {
					count(m)
				}
			}
		}
	}
	if len(names) < 2 {
		return Artifact{}, false
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	if len(list) > 4 {
		list = list[:4]
	}
	return Artifact{Kind: KindEvaluation, Why: "evaluation results (" + strings.Join(list, ", ") + ") no gate reads"}, true
}
