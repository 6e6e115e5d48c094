package research

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/gate"
)

// table is what the head of a delimited text file shows.
type table struct {
	header  []string
	rows    int // data rows read (a lower bound when the head was cut)
	numeric []bool
	// distinct counts each column's distinct values, up to maxDistinct+1.
	distinct []map[string]bool
}

// maxDistinct is the most distinct values a label column of a name other
// than DQ1's defaults may hold (classes, not a measurement).
const maxDistinct = 20

// missingCells are the cells that stand for no value.
var missingCells = map[string]bool{"": true, "na": true, "nan": true, "n/a": true, "null": true, "none": true,
	"?": true, "-": true, "#n/a": true, "inf": true, "-inf": true}

// readTable parses the head of a file as DQ1 would (the same delimiter
// rule): a header row, data rows with the header's field count, at least
// one numeric column. A head cut mid-file loses its last partial line.
func readTable(f File) (table, bool) {
	head := bytes.TrimPrefix(f.Head, []byte("\ufeff"))
	if bytes.IndexByte(head, 0) >= 0 {
		return table{}, false
	}
	if f.cut() {
		i := bytes.LastIndexByte(head, '\n')
		if i < 0 {
			return table{}, false
		}
		head = head[:i+1]
	}
	r := csv.NewReader(bytes.NewReader(head))
	r.Comma = gate.Delimiter(head, f.Rel)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil || len(header) < 2 || !headerRow(header) {
		return table{}, false
	}
	t := table{header: make([]string, len(header)), numeric: make([]bool, len(header)), distinct: make([]map[string]bool, len(header))}
	nums := make([]int, len(header))
	present := make([]int, len(header))
	for i, h := range header {
		t.header[i] = strings.TrimSpace(h)
		t.distinct[i] = map[string]bool{}
	}
	for {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return table{}, false
		}
		if len(rec) != len(header) {
			return table{}, false
		}
		t.rows++
		for i, cell := range rec {
			c := strings.TrimSpace(cell)
			if len(t.distinct[i]) <= maxDistinct {
				t.distinct[i][c] = true
			}
			if missingCells[strings.ToLower(c)] {
				continue
			}
			present[i]++
			if _, err := strconv.ParseFloat(c, 64); err == nil {
				nums[i]++
			}
		}
	}
	if t.rows == 0 {
		return table{}, false
	}
	someNumeric := false
	for i := range header {
		// A column is numeric when nearly every present value is a number
		// (a stray "n.d." does not make a measurement a text column).
		t.numeric[i] = present[i] > 0 && float64(nums[i]) >= 0.95*float64(present[i])
		someNumeric = someNumeric || t.numeric[i]
	}
	return t, someNumeric
}

// headerRow reports whether a first row names columns: most of its cells
// are words, not numbers, and the names are distinct. pandas writes its
// index with an empty name, so one empty cell is allowed.
func headerRow(rec []string) bool {
	words, empty := 0, 0
	seen := map[string]bool{}
	for _, c := range rec {
		c = strings.TrimSpace(c)
		if c == "" {
			empty++
			continue
		}
		if seen[c] {
			return false
		}
		seen[c] = true
		if _, err := strconv.ParseFloat(c, 64); err != nil {
			words++
		}
	}
	return empty <= 1 && words*2 >= len(rec)
}

// extraLabels are label column names DQ1 does not look for by itself; a
// table is a feature table by one of them only when it holds a few classes.
var extraLabels = []string{"class", "labels", "outcome"}

// label finds the label column: the domain's dq1.label_column, DQ1's
// defaults (label, y, target), or a class-like column named class, labels
// or outcome. "" for none.
func (t table) label(d gate.Domain) string {
	if c := d.DQ1.LabelColumn; c != "" {
		for _, h := range t.header {
			if h == c {
				return h
			}
		}
	}
	for _, want := range gate.DefaultLabelColumns() {
		for _, h := range t.header {
			if strings.EqualFold(h, want) {
				return h
			}
		}
	}
	for _, want := range extraLabels {
		for i, h := range t.header {
			if strings.EqualFold(h, want) && len(t.distinct[i]) <= maxDistinct {
				return h
			}
		}
	}
	return ""
}

// predictionWords mark a table of a model's predictions (a label beside
// what the model said of it), not a table a model learns from.
var predictionWords = map[string]bool{"pred": true, "preds": true, "prediction": true, "predictions": true,
	"predicted": true, "yhat": true, "proba": true, "probability": true, "fitted": true}

func predictionColumn(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '_' || r == '-' || r == ' ' || r == '.'
	}) {
		if predictionWords[w] {
			return true
		}
	}
	return false
}

// rawFolder reports a folder of data as it was obtained (raw/, 01-raw/,
// raw_data/): its tables are a model's sources, not its feature tables.
func rawFolder(rel string) bool {
	segs := strings.Split(strings.ToLower(path.Dir(rel)), "/")
	for _, s := range segs {
		s = strings.TrimLeft(s, "0123456789-_")
		if s == "raw" || strings.HasPrefix(s, "raw_") || strings.HasPrefix(s, "raw-") || strings.HasSuffix(s, "_raw") || strings.HasSuffix(s, "-raw") {
			return true
		}
	}
	return false
}

// recognizeTable says whether a delimited text file is a feature table or
// another table. A feature table has a label column (see label) or every
// one of the domain's dq1.required_columns, at least two numeric columns
// besides the label, at least dq1.min_samples rows, no prediction columns,
// and lies outside the raw data folders.
func recognizeTable(f File, d gate.Domain) (Artifact, bool) {
	t, ok := readTable(f)
	if !ok {
		return Artifact{}, false
	}
	nNum := 0
	for _, n := range t.numeric {
		if n {
			nNum++
		}
	}
	shape := fmt.Sprintf("%d columns, %d numeric", len(t.header), nNum)
	other := Artifact{Kind: KindTable, Why: "a table (" + shape + ")"}
	if rawFolder(f.Rel) {
		other.Why = "raw data (" + shape + ")"
		return other, true
	}
	for _, h := range t.header {
		if predictionColumn(h) {
			other.Why = fmt.Sprintf("a table of predictions (column `%s`)", h)
			return other, true
		}
	}
	label := t.label(d)
	why := ""
	if label != "" {
		why = fmt.Sprintf("label column `%s`", label)
	} else if req := d.DQ1.RequiredColumns; len(req) > 0 && hasAll(t.header, req) {
		why = "the domain's required columns " + strings.Join(req, ", ")
	} else {
		return other, true
	}
	features := 0
	for i, h := range t.header {
		if t.numeric[i] && h != label {
			features++
		}
	}
	if features < 2 {
		return other, true
	}
	minRows := max(d.DQ1.MinSamples, 2)
	if t.rows < minRows && !f.cut() {
		other.Why = fmt.Sprintf("a sample of %d rows (a feature table has at least dq1.min_samples = %d)", t.rows, minRows)
		return other, true
	}
	return Artifact{Kind: KindFeatures, Label: label, Why: fmt.Sprintf("a feature table: %s, %s", why, shape)}, true
}

func hasAll(header, want []string) bool {
	for _, w := range want {
		if !contains(header, w) {
			return false
		}
	}
	return true
}
