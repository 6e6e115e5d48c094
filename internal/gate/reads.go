package gate

// What the gates read, for the recognition of research artifacts
// (internal/research): a file is recognised as a gate's input by the same
// keys, wrappers and delimiters the gate itself reads, so a recognised file
// is one the gate can judge.

// DQ2Wrapper is the key of the object DQ2 reads its keys from when present.
const DQ2Wrapper = "metrics"

// DQ3CoverageKeys are the keys DQ3 takes the empirical coverage, the
// nominal coverage and the number of points from; "alpha" stands for
// the nominal coverage as 1 − alpha.
func DQ3CoverageKeys() (empirical, nominal, n []string) { return empiricalKeys, nominalKeys, nKeys }

// DQ3Wrapper is the key of the object DQ3 reads its keys from when present.
const DQ3Wrapper = "calibration"

// DefaultLabelColumns are the label columns DQ1 looks for, in order and
// ignoring case, when the domain names none.
func DefaultLabelColumns() []string { return defaultLabelColumns }

// Delimiter is the delimiter DQ1 reads a table with: the one that splits
// the first line of head into the most fields (outside quotes), the file
// name's extension breaking ties.
func Delimiter(head []byte, name string) rune { return sniffDelimiter(head, name) }

// FindingIDs are the finding ids of a line of text by DQ4's rule (F1,
// F12, F6b as words of their own, not an F1 score, an F1 key or an F2
// population), in order, aliases included.
func FindingIDs(line string) []string {
	hits := findingIDs(line)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}

// HeldOutScore finds the held-out score DQ2 reads at the top of a metrics
// object (obj, or its "metrics" object): an AUC in [0, 1] or an R² of at
// most 1, under a documented key or a key naming one, as one number or
// the mean of fold scores (cross_validate's test_roc_auc). Scores one
// object down (one per model, per split) are not looked at: such a file
// compares models, and no single score is its result. It returns which
// score ("AUC" or "R²"), the key read and its value: what makes a JSON a
// metrics file for recognition (research.Recognize).
func HeldOutScore(obj map[string]any) (what, key string, v float64, ok bool) {
	for _, o := range []map[string]any{obj, asObject(obj[DQ2Wrapper])} {
		for _, r := range []struct {
			what string
			rule keyRule
			max  float64
		}{{"AUC", aucRule, 1}, {"R²", r2Rule, 1}} {
			for _, k := range r.rule.keys(o) {
				f, ok := toFloat(o[k])
				if !ok {
					list := numbers(o[k])
					if len(list) < 2 {
						continue
					}
					f, _ = meanSD(list)
				}
				if f <= r.max && (r.what != "AUC" || f >= 0) {
					return r.what, k, f, true
				}
			}
		}
	}
	return "", "", 0, false
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
