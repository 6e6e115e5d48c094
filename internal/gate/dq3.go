package gate

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The calibration JSON that DQ3 reads is one object (its keys may sit under
// a "calibration" object). Recognised keys (first match wins):
//
//	nominal_coverage | target_coverage    the coverage aimed at, e.g. 0.90
//	alpha                                 or the miscoverage level; nominal = 1 − alpha
//	empirical_coverage | coverage         the coverage measured on held-out points
//	n | n_calibration | n_test | n_points how many points the measurement rests on
var (
	nominalKeys   = []string{"nominal_coverage", "target_coverage"}
	empiricalKeys = []string{"empirical_coverage", "coverage"}
	nKeys         = []string{"n", "n_calibration", "n_test", "n_points"}
)

// DQ3 checks calibration results: |empirical − nominal coverage| at most
// dq3.max_coverage_gap, empirical coverage not above dq3.max_coverage (a
// perfect coverage usually means the test points leaked into calibration),
// and n at least dq3.min_n.
func DQ3(calibrationPath string, d Domain) (Result, error) {
	raw, err := os.ReadFile(calibrationPath)
	if err != nil {
		return Result{}, fmt.Errorf("dq3: read calibration: %w", err)
	}
	return dq3(raw, calibrationPath, d), nil
}

func dq3(raw []byte, name string, d Domain) Result {
	res := newResult("DQ3", name)
	base := filepath.Base(name)
	obj, err := decodeObject(raw)
	if err != nil {
		res.fail("parse", fmt.Sprintf("%s is not a JSON object: %v", base, err), "write the calibration results as one JSON object")
		return res
	}
	if inner, ok := obj["calibration"].(map[string]any); ok {
		obj = inner
	}
	nominal, nomKey, haveNom := firstNumber(obj, nominalRule.keys(obj))
	if !haveNom {
		for _, k := range alphaRule.keys(obj) {
			if a, ok := toFloat(obj[k]); ok && a > 0 && a < 1 {
				nominal, nomKey, haveNom = 1-a, "1 − "+k, true
				break
			}
		}
	}
	emp, empKey, haveEmp := firstNumber(obj, empiricalRule.keys(obj))
	n, _, haveN := firstCount(obj, nRule.keys(obj))

	if !haveEmp {
		res.fail("coverage_gap", fmt.Sprintf("%s reports no empirical coverage (%s)", base, strings.Join(empiricalKeys, ", ")), "write the coverage measured on held-out points under `empirical_coverage`")
	} else if !haveNom {
		res.fail("coverage_gap", fmt.Sprintf("%s states no nominal coverage (%s, or alpha)", base, strings.Join(nominalKeys, ", ")), "write the target coverage under `nominal_coverage`")
	} else {
		gap := math.Abs(emp - nominal)
		if gap > d.DQ3.MaxCoverageGap+1e-12 {
			res.fail("coverage_gap", fmt.Sprintf("empirical coverage %s (`%s`) is %s away from the nominal %s (%s); at most %s allowed", formatFloat(emp), empKey, formatFloat(round6(gap)), formatFloat(nominal), nomKey, formatFloat(d.DQ3.MaxCoverageGap)), "recalibrate on exchangeable data, or report the miscalibration instead of the intervals")
		} else {
			res.pass("coverage_gap", fmt.Sprintf("empirical coverage %s is within %s of the nominal %s", formatFloat(emp), formatFloat(d.DQ3.MaxCoverageGap), formatFloat(nominal)))
		}
	}
	if haveEmp {
		if emp > d.DQ3.MaxCoverage {
			res.fail("perfect_coverage", fmt.Sprintf("empirical coverage %s is above %s: suspiciously perfect", formatFloat(emp), formatFloat(d.DQ3.MaxCoverage)), "check that the evaluation points were not used for calibration or training, and that the intervals are not trivially wide")
		} else {
			res.pass("perfect_coverage", fmt.Sprintf("empirical coverage %s is not above %s", formatFloat(emp), formatFloat(d.DQ3.MaxCoverage)))
		}
	}
	switch {
	case !haveN:
		res.fail("sample_size", fmt.Sprintf("%s does not state how many points the coverage rests on (%s)", base, strings.Join(nKeys, ", ")), "write the number of evaluation points under `n`")
	case n < float64(d.DQ3.MinN):
		res.fail("sample_size", fmt.Sprintf("coverage rests on n = %s points; at least %d are needed", formatFloat(n), d.DQ3.MinN), "evaluate on more held-out points before trusting the coverage")
	default:
		res.pass("sample_size", fmt.Sprintf("n = %s, at least %d", formatFloat(n), d.DQ3.MinN))
	}
	return res
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// nominalWords are name parts of the coverage aimed at.
var nominalWords = []string{"nominal", "target", "expected", "desired", "requested", "level", "confidence"}

// The keys of a calibration JSON beyond the documented ones (see
// jsonkeys.go): MAPIE's coverage_score, a picp, confidence_level,
// miscoverage, n_cal, num_test_points.
var (
	nominalRule = keyRule{exact: nominalKeys, parts: []string{"confidence", "nominal", "target", "expected", "desired", "requested"},
		avoid: []string{"empirical", "observed", "actual", "achieved", "realized", "test", "std", "se", "ci", "lower", "upper", "n", "width"}}
	alphaRule     = keyRule{exact: []string{"alpha"}, parts: []string{"alpha", "miscoverage", "significance"}}
	empiricalRule = keyRule{exact: empiricalKeys, parts: []string{"coverage", "picp", "cov"},
		avoid: append(append([]string{}, nominalWords...), notTheScore...)}
	nRule = keyRule{exact: nKeys, parts: []string{"samples", "points", "obs", "observations", "support", "count", "size", "num", "number", "n"},
		avoid: []string{"features", "feature", "bins", "bin", "folds", "fold", "classes", "estimators", "trees", "iter", "iterations", "splits", "jobs", "neighbors", "ratio", "fraction", "share"}}
)

// firstCount is firstNumber for counts: a positive whole number, so a
// test_size of 0.2 is no n.
func firstCount(obj map[string]any, keys []string) (float64, string, bool) {
	for _, k := range keys {
		if f, ok := toFloat(obj[k]); ok && (slices.Contains(nKeys, k) || (f >= 1 && f == math.Trunc(f))) {
			return f, k, true
		}
	}
	return 0, "", false
}
