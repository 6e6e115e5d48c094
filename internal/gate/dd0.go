package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// dictColumnTypes are the types a data-dictionary row may give.
var dictColumnTypes = []string{"integer", "float", "string", "boolean", "category", "date", "datetime"}

// Dictionary is a parsed data dictionary (skill/vibe/formats/data-dictionary.md;
// its JSON form is schemas/data-dictionary.schema.json).
type Dictionary struct {
	Datasets []DictDataset `json:"datasets"`
}

// DictDataset documents one data file, or every file a glob matches, by
// its path relative to the dictionary's folder.
type DictDataset struct {
	Path        string       `json:"path"`
	Description string       `json:"description,omitempty"`
	Columns     []DictColumn `json:"columns"`
}

// DictColumn is one documented column.
type DictColumn struct {
	Column      string `json:"column"`
	Type        string `json:"type"`
	Unit        string `json:"unit"`
	Description string `json:"description"`
}

// dictProblem is a line of the dictionary that does not follow the format.
type dictProblem struct {
	line int
	msg  string
}

// ParseDictionary reads DATA-DICTIONARY.md: a level-2 heading per data
// file (its path, backticks allowed), optional prose, then a table whose
// header is | column | type | unit | description |. Fenced code and HTML
// comments are ignored. Malformed rows come back as problems with their
// line; a heading without a table documents nothing.
func ParseDictionary(text []byte) (Dictionary, []string) {
	d, probs := parseDictionary(text)
	out := make([]string, len(probs))
	for i, p := range probs {
		out[i] = fmt.Sprintf("line %d: %s", p.line, p.msg)
	}
	return d, out
}

func parseDictionary(text []byte) (Dictionary, []dictProblem) {
	var d Dictionary
	var probs []dictProblem
	var cur *DictDataset
	inTable, expectSep, skipTable := false, false, false
	for _, l := range markdownLines(text) {
		if lvl, h, ok := heading(l.Text); ok {
			inTable, expectSep, skipTable = false, false, false
			if lvl == 2 {
				d.Datasets = append(d.Datasets, DictDataset{Path: strings.Trim(h, "` ")})
				cur = &d.Datasets[len(d.Datasets)-1]
			} else if lvl < 2 {
				cur = nil
			}
			continue
		}
		cells, isRow := tableCells(l.Text)
		if !isRow {
			inTable, expectSep, skipTable = false, false, false
			if cur != nil && len(cur.Columns) == 0 {
				if t := strings.TrimSpace(l.Text); t != "" {
					cur.Description = strings.TrimSpace(cur.Description + " " + t)
				}
			}
			continue
		}
		if cur == nil || skipTable {
			continue
		}
		if expectSep {
			expectSep = false
			if !isSeparatorRow(cells) {
				probs = append(probs, dictProblem{l.No, "the table header must be followed by a |---|---|---|---| line"})
			}
			continue
		}
		if !inTable {
			if isDictHeader(cells) {
				inTable, expectSep = true, true
			} else {
				probs = append(probs, dictProblem{l.No, "the table header must be exactly | column | type | unit | description |"})
				skipTable = true
			}
			continue
		}
		if len(cells) != 4 {
			probs = append(probs, dictProblem{l.No, fmt.Sprintf("the row has %d cells; it needs column, type, unit and description", len(cells))})
			continue
		}
		col := DictColumn{Column: strings.Trim(cells[0], "`"), Type: strings.ToLower(cells[1]), Unit: cells[2], Description: cells[3]}
		switch {
		case col.Column == "":
			probs = append(probs, dictProblem{l.No, "the row has no column name"})
			continue
		case col.Description == "":
			probs = append(probs, dictProblem{l.No, fmt.Sprintf("column `%s` has no description; say what one value means and where it comes from", col.Column)})
		case col.Unit == "":
			probs = append(probs, dictProblem{l.No, fmt.Sprintf("column `%s` has no unit; write - when it has none", col.Column)})
		case !slices.Contains(dictColumnTypes, col.Type):
			probs = append(probs, dictProblem{l.No, fmt.Sprintf("column `%s` has type %q; use one of %s", col.Column, cells[1], strings.Join(dictColumnTypes, ", "))})
		}
		cur.Columns = append(cur.Columns, col)
	}
	return d, probs
}

func isDictHeader(cells []string) bool {
	want := []string{"column", "type", "unit", "description"}
	if len(cells) != len(want) {
		return false
	}
	for i, c := range cells {
		if strings.ToLower(strings.TrimSpace(c)) != want[i] {
			return false
		}
	}
	return true
}

// loadDictionary reads a dictionary in Markdown or, for a .json file, in
// its parsed JSON form (validated against data-dictionary.schema.json).
func loadDictionary(dictionaryPath string, res *Result) (Dictionary, bool, error) {
	raw, err := os.ReadFile(dictionaryPath)
	if os.IsNotExist(err) {
		res.fail("dictionary", fmt.Sprintf("there is no data dictionary at %s", dictionaryPath), "write DATA-DICTIONARY.md with a | column | type | unit | description | table for each data file (skill/vibe/formats/data-dictionary.md)")
		return Dictionary{}, false, nil
	}
	if err != nil {
		return Dictionary{}, false, fmt.Errorf("dd0: read dictionary: %w", err)
	}
	base := filepath.Base(dictionaryPath)
	if strings.EqualFold(filepath.Ext(dictionaryPath), ".json") {
		v := ValidateSchema("data-dictionary", raw)
		if v.Status == StatusFail {
			for _, c := range v.Checks {
				if c.Status == StatusFail {
					res.fail("dictionary", base+": "+c.Detail, c.Fix)
				}
			}
			return Dictionary{}, false, nil
		}
		var d Dictionary
		if err := json.Unmarshal(raw, &d); err != nil {
			res.fail("dictionary", fmt.Sprintf("%s: %v", base, err), "fix the JSON")
			return Dictionary{}, false, nil
		}
		return d, true, nil
	}
	d, probs := parseDictionary(raw)
	for _, p := range probs {
		res.fail("dictionary", fmt.Sprintf("%s line %d: %s", base, p.line, p.msg), "fix the row as skill/vibe/formats/data-dictionary.md shows")
	}
	return d, true, nil
}

// DD0 checks that every column in usedColumns has a row in the data
// dictionary, in any of its datasets; DD0Table checks one table against
// its own section, which is what the hooks and CI use.
func DD0(dictionaryPath string, usedColumns []string) (Result, error) {
	res := newResult("DD0", dictionaryPath)
	d, ok, err := loadDictionary(dictionaryPath, &res)
	if err != nil || !ok {
		return res, err
	}
	documented := map[string]bool{}
	for _, ds := range d.Datasets {
		for _, c := range ds.Columns {
			documented[c.Column] = true
		}
	}
	dd0Columns(&res, usedColumns, documented, "", filepath.Base(dictionaryPath), "")
	return res, nil
}

// DD0Table checks the columns of a data table (its header row) against the
// dictionary section whose heading path matches the table's path relative
// to the dictionary's folder (a glob heading matches every file it covers).
func DD0Table(dictionaryPath, tablePath string) (Result, error) {
	res := newResult("DD0", dictionaryPath, tablePath)
	cols, err := Columns(tablePath)
	if err != nil {
		return Result{}, fmt.Errorf("dd0: %w", err)
	}
	d, ok, err := loadDictionary(dictionaryPath, &res)
	if err != nil || !ok {
		return res, err
	}
	rel := relSlash(filepath.Dir(dictionaryPath), tablePath)
	dictName := filepath.Base(dictionaryPath)
	documented := map[string]bool{}
	section := ""
	for _, ds := range d.Datasets {
		if ok, _ := path.Match(ds.Path, rel); ok || ds.Path == rel {
			if section == "" {
				section = ds.Path
			}
			for _, c := range ds.Columns {
				documented[c.Column] = true
			}
		}
	}
	if section == "" {
		res.fail("section", fmt.Sprintf("%s has no section for %s", dictName, rel), fmt.Sprintf("add a `## %s` heading with a | column | type | unit | description | table", rel))
		return res, nil
	}
	dd0Columns(&res, cols, documented, rel, dictName, section)
	return res, nil
}

func dd0Columns(res *Result, used []string, documented map[string]bool, table, dictName, section string) {
	of := ""
	if table != "" {
		of = " of " + table
	}
	under := ""
	if section != "" {
		under = fmt.Sprintf(" under \"## %s\"", section)
	}
	missing := 0
	for _, c := range used {
		if documented[c] {
			continue
		}
		missing++
		res.fail("column", fmt.Sprintf("column `%s`%s is not in %s", c, of, dictName), fmt.Sprintf("add a row | %s | type | unit | description |%s", c, under))
	}
	if missing == 0 {
		res.pass("columns", fmt.Sprintf("all %d columns%s are documented in %s", len(used), of, dictName))
	}
}

// relSlash is target relative to base with forward slashes, or target's
// cleaned slash form when it is not below base.
func relSlash(base, target string) string {
	absBase, err1 := filepath.Abs(base)
	absTarget, err2 := filepath.Abs(target)
	if err1 == nil && err2 == nil {
		if r, err := filepath.Rel(absBase, absTarget); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(filepath.Clean(target))
}
