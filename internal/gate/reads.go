package gate

// What the gates read, for the recognition of research artifacts
// (internal/research): a file is recognised as a gate's input by the same
// keys, wrappers and delimiters the gate itself reads, so a recognised file
// is one the gate can judge.

// DQ2ScoreKeys are the keys DQ2 takes a held-out score from (AUC, then R²),
// at the top level of the metrics object or inside its "metrics" object.
func DQ2ScoreKeys() (auc, r2 []string) { return aucKeys, r2Keys }

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
