package calibrate

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/markdown"
)

// The kinds of file under 05-reviewer2/ that calibration reads.
const (
	KindR2Report  = "r2-report"       // formats/review-report.md, schemas/r2-report.schema.json
	KindJudge     = "judge-report"    // formats/judge-report.md, schemas/judge-report.schema.json
	KindVigilance = "vigilance-check" // schemas/vigilance-check.schema.json (V0)
)

// Dimensions are the six J0 rubric dimensions, in the rubric's order.
var Dimensions = []string{"specificity", "counter_evidence_search", "confounder_analysis", "falsification_demand",
	"independence", "escalation"}

// WeakScore is the highest dimension score that counts as a weakness: the
// rubric's 0 (absent) and 1 (token), below the 2 a PASS needs for
// counter-evidence search.
const WeakScore = 1

// knownModes are the review modes of the r2-report schema plus FINAL, which
// the review-report format's YAML example uses.
var knownModes = []string{"BRAINSTORM", "FORCED", "BATCH", "SHADOW", "VETO", "REDIRECT", "INLINE", "FINAL"}

// Review is what one file says about one review. Zero or nil parts mean
// the file does not say (see record.R2Review).
type Review struct {
	Kind     string   `json:"kind"`
	ReviewID string   `json:"review_id"`
	Mode     string   `json:"mode,omitempty"`
	Claims   []string `json:"claims"`
	// ClaimsWeak: the judge's copy of the claims, which never replaces the
	// R2 report's own list.
	ClaimsWeak   bool           `json:"claims_weak,omitempty"`
	J0Score      *int           `json:"j0_score,omitempty"`
	J0Dimensions map[string]int `json:"j0_dimensions,omitempty"`
	SFIKnown     bool           `json:"sfi_known"`
	SFIInjected  int            `json:"sfi_injected"`
	SFICaught    int            `json:"sfi_caught"`
	SFIMissed    []string       `json:"sfi_missed"`
	Weaknesses   []string       `json:"weaknesses"`
	// At is the time the file gives (reviewed_at, judged_at, checked_at).
	At time.Time `json:"at"`
	// Problems are inconsistencies worth telling the writer about; they do
	// not stop the file from being recorded.
	Problems []string `json:"problems"`
}

// IsReviewFile reports whether relPath is a file calibration reads: a
// markdown, YAML or JSON file anywhere under a 05-reviewer2/ folder
// (judge reports and V0 records included).
func IsReviewFile(relPath string) bool {
	p := strings.ToLower(strings.ReplaceAll(relPath, "\\", "/"))
	if !strings.HasPrefix(p, "05-reviewer2/") && !strings.Contains(p, "/05-reviewer2/") {
		return false
	}
	switch path.Ext(p) {
	case ".md", ".markdown", ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// ParseReport reads one file under 05-reviewer2/. JSON under
// judge-reports/ (or with a judge_report_id) is a judge report; JSON with
// seeded_faults is a V0 record; other JSON follows the r2-report schema;
// markdown and YAML reports are read leniently (see readText), because their
// format documents only how claims are cited.
func ParseReport(relPath string, content []byte) (Review, error) {
	p := strings.ReplaceAll(relPath, "\\", "/")
	switch strings.ToLower(path.Ext(p)) {
	case ".json":
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(content, &keys); err != nil {
			return Review{}, fmt.Errorf("parse review %s: not one JSON object: %w", relPath, err)
		}
		_, judgeID := keys["judge_report_id"]
		if judgeID || strings.Contains(strings.ToLower(p), "judge-reports/") {
			return parseJudge(relPath, content)
		}
		if _, ok := keys["seeded_faults"]; ok {
			return parseVigilance(relPath, content)
		}
		return parseR2JSON(relPath, content)
	case ".yaml", ".yml":
		r, ok, err := readYAML(relPath, content)
		if ok {
			return r, nil
		}
		r = readText(relPath, content)
		r.Problems = append(r.Problems, fmt.Sprintf("not valid YAML (%v), so it was read line by line: fix it so every field is read as written", err))
		return r, nil
	case ".md", ".markdown":
		return readText(relPath, content), nil
	}
	return Review{}, fmt.Errorf("parse review %s: only .md, .yaml and .json reports are read", relPath)
}

// stem is the file name without its extension: R2-2026-01-02-1.md names
// review R2-2026-01-02-1.
func stem(relPath string) string {
	b := path.Base(strings.ReplaceAll(relPath, "\\", "/"))
	return strings.TrimSuffix(b, path.Ext(b))
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func normaliseClaims(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if n, ok := claim.NormaliseID(id); ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func parseJudge(relPath string, content []byte) (Review, error) {
	var j struct {
		ReviewID   string `json:"review_id"`
		Claims     []string
		Dimensions map[string]struct {
			Score *int `json:"score"`
		} `json:"dimensions"`
		Total      *int   `json:"total"`
		Mode       string `json:"mode"`
		SoloScores []int  `json:"solo_scores"`
		JudgedAt   string `json:"judged_at"`
	}
	if err := json.Unmarshal(content, &j); err != nil {
		return Review{}, fmt.Errorf("parse judge report %s: %w", relPath, err)
	}
	if strings.TrimSpace(j.ReviewID) == "" {
		return Review{}, fmt.Errorf("parse judge report %s: review_id is missing: name the R2 report this judge report scores", relPath)
	}
	r := Review{Kind: KindJudge, ReviewID: strings.TrimSpace(j.ReviewID), Claims: normaliseClaims(j.Claims),
		ClaimsWeak: true, J0Dimensions: map[string]int{}, SFIMissed: []string{}, Weaknesses: []string{},
		At: parseTime(j.JudgedAt), Problems: []string{}}
	sum, complete := 0, true
	for _, d := range Dimensions {
		dim, ok := j.Dimensions[d]
		switch {
		case !ok || dim.Score == nil:
			complete = false
			r.Problems = append(r.Problems, fmt.Sprintf("dimension %s has no score", d))
			continue
		case *dim.Score < 0 || *dim.Score > 3:
			complete = false
			r.Problems = append(r.Problems, fmt.Sprintf("dimension %s scores %d, outside 0-3", d, *dim.Score))
			continue
		}
		r.J0Dimensions[d] = *dim.Score
		sum += *dim.Score
		if *dim.Score <= WeakScore {
			r.Weaknesses = append(r.Weaknesses, d)
		}
	}
	switch {
	case complete:
		r.J0Score = &sum
		if j.Total != nil && *j.Total != sum {
			r.Problems = append(r.Problems, fmt.Sprintf("total %d is not the sum of the dimension scores (%d); %d is recorded", *j.Total, sum, sum))
		}
		if strings.EqualFold(j.Mode, "SOLO") && len(j.SoloScores) == 2 {
			if m := min(j.SoloScores[0], j.SoloScores[1]); m != sum {
				r.Problems = append(r.Problems, fmt.Sprintf("in SOLO the dimensions must be those of the lower scoring (%d), but they sum to %d", m, sum))
			}
		}
	case j.Total != nil && *j.Total >= 0 && *j.Total <= 18:
		t := *j.Total
		r.J0Score = &t
	}
	return r, nil
}

func parseVigilance(relPath string, content []byte) (Review, error) {
	var v struct {
		ReviewID     string `json:"review_id"`
		SeededFaults []struct {
			FaultID    string `json:"fault_id"`
			Caught     bool   `json:"caught"`
			Equivalent bool   `json:"equivalent"`
		} `json:"seeded_faults"`
		CheckedAt string `json:"checked_at"`
	}
	if err := json.Unmarshal(content, &v); err != nil {
		return Review{}, fmt.Errorf("parse V0 record %s: %w", relPath, err)
	}
	if strings.TrimSpace(v.ReviewID) == "" {
		return Review{}, fmt.Errorf("parse V0 record %s: review_id is missing: name the review the faults were planted in", relPath)
	}
	r := Review{Kind: KindVigilance, ReviewID: strings.TrimSpace(v.ReviewID), SFIKnown: true, SFIMissed: []string{},
		At: parseTime(v.CheckedAt), Problems: []string{}}
	for _, f := range v.SeededFaults {
		if f.Equivalent {
			continue // undetectable from its evidence: not the reviewer's miss
		}
		r.SFIInjected++
		if f.Caught {
			r.SFICaught++
		} else if f.FaultID != "" {
			r.SFIMissed = append(r.SFIMissed, f.FaultID)
		}
	}
	return r, nil
}

func parseR2JSON(relPath string, content []byte) (Review, error) {
	var j struct {
		ReviewID   string `json:"review_id"`
		Mode       string `json:"mode"`
		ReviewedAt string `json:"reviewed_at"`
		SFI        *struct {
			Injected int      `json:"injected"`
			Caught   int      `json:"caught"`
			Missed   []string `json:"missed"`
		} `json:"sfi"`
	}
	if err := json.Unmarshal(content, &j); err != nil {
		return Review{}, fmt.Errorf("parse R2 report %s: %w", relPath, err)
	}
	r := Review{Kind: KindR2Report, ReviewID: strings.TrimSpace(j.ReviewID), Mode: strings.ToUpper(strings.TrimSpace(j.Mode)),
		Claims: claim.CitedClaims(content), SFIMissed: []string{}, At: parseTime(j.ReviewedAt), Problems: []string{}}
	if r.ReviewID == "" {
		r.ReviewID = stem(relPath)
	}
	if r.Claims == nil {
		r.Claims = []string{}
	}
	if j.SFI != nil {
		r.SFIKnown, r.SFIInjected, r.SFICaught = true, j.SFI.Injected, j.SFI.Caught
		r.SFIMissed = append(r.SFIMissed, j.SFI.Missed...)
		if j.SFI.Caught+len(j.SFI.Missed) > j.SFI.Injected {
			r.Problems = append(r.Problems, fmt.Sprintf("sfi: %d caught and %d missed, but only %d injected", j.SFI.Caught, len(j.SFI.Missed), j.SFI.Injected))
		}
	} else if r.Mode == "FORCED" {
		r.Problems = append(r.Problems, "a FORCED review needs its seeded-fault tally (sfi: injected, caught, missed)")
	}
	return r, nil
}

// readText reads a markdown R2 report (and a YAML one that does not parse
// as YAML; readYAML reads the others). Their format fixes only how
// claims are cited (every claim id counts, claim.CitedClaims), so the rest
// is read where it is found, outside fenced code:
//   - review_id and mode as "key: value" lines (also "- key: value", bold
//     keys, hyphens or spaces for underscores); without review_id the file
//     name is the id; without mode a known mode in parentheses in the first
//     heading, "# R2 review 2026-01-02 (batch)", is the mode;
//   - the seeded-fault tally as an "sfi:" block with injected, caught and
//     missed under it, or sfi_injected / sfi_caught / sfi_missed lines, or
//     seeded_faults_injected / _caught / _missed; caught may be a count or
//     a list of ids, missed is a list ("[a, b]", "a; b", or indented
//     bullets), and an unknown injected count is caught + missed.
func readText(relPath string, content []byte) Review {
	r := Review{Kind: KindR2Report, Claims: claim.CitedClaims(content), SFIMissed: []string{}, Problems: []string{}}
	if r.Claims == nil {
		r.Claims = []string{}
	}
	var injected, caught *int
	var missed []string
	var missedSet bool
	block := ""   // "sfi" while inside an sfi: block
	listKey := "" // key collecting indented list items
	listIndent := -1
	var fences markdown.Fences
	headingSeen := false
	setCaught := func(v string) {
		if n, err := strconv.Atoi(v); err == nil {
			caught = &n
			return
		}
		if items := splitList(v); len(items) > 0 {
			n := len(items)
			caught = &n
		}
	}
	for _, raw := range strings.Split(string(content), "\n") {
		line := strings.TrimRight(raw, "\r")
		t := strings.TrimSpace(line)
		if fences.Step(line) {
			continue
		}
		if t == "" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if strings.HasPrefix(t, "#") && !headingSeen {
			headingSeen = true
			if r.Mode == "" {
				r.Mode = modeInHeading(t)
			}
			continue
		}
		if listKey != "" && indent > listIndent && (strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")) {
			item := strings.Trim(strings.TrimSpace(t[2:]), "`\"'")
			switch listKey {
			case "missed":
				missed, missedSet = append(missed, item), true
			case "caught":
				n := 1
				if caught != nil {
					n = *caught + 1
				}
				caught = &n
			}
			continue
		}
		listKey = ""
		key, value, ok := textField(t)
		if !ok {
			continue
		}
		if indent == 0 {
			block = ""
		}
		if block == "sfi" && indent > 0 {
			key = "sfi_" + key
		}
		switch key {
		case "review_id":
			if r.ReviewID == "" {
				r.ReviewID = strings.Trim(value, "`\"'")
			}
		case "mode":
			m := strings.ToUpper(strings.Trim(value, "`\"'"))
			if isWord(m) {
				r.Mode = m
			}
		case "reviewed_at":
			r.At = parseTime(strings.Trim(value, "\"'"))
		case "sfi", "seeded_faults":
			if value == "" {
				block = "sfi"
			}
		case "sfi_injected", "seeded_faults_injected":
			if n, err := strconv.Atoi(value); err == nil {
				injected = &n
			} else if items := splitList(value); len(items) > 0 {
				n := len(items)
				injected = &n
			}
		case "sfi_caught", "seeded_faults_caught":
			if value == "" {
				listKey, listIndent = "caught", indent
				zero := 0
				caught = &zero
			} else {
				setCaught(value)
			}
		case "sfi_missed", "seeded_faults_missed":
			missedSet = true
			if value == "" {
				listKey, listIndent = "missed", indent
			} else {
				missed = append(missed, splitList(value)...)
			}
		}
	}
	if r.ReviewID == "" {
		r.ReviewID = stem(relPath)
	}
	if injected != nil || caught != nil || missedSet {
		r.SFIKnown = true
		if caught != nil {
			r.SFICaught = *caught
		}
		if missed != nil {
			r.SFIMissed = missed
		}
		if injected != nil {
			r.SFIInjected = *injected
		} else {
			r.SFIInjected = r.SFICaught + len(r.SFIMissed)
		}
	}
	return r
}

// textField splits a "key: value" line (optionally a list item, bold or in
// backticks) with the key normalised to lower case and underscores.
func textField(t string) (string, string, bool) {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		t = strings.TrimSpace(t[2:])
	}
	i := strings.IndexByte(t, ':')
	if i <= 0 {
		return "", "", false
	}
	key := strings.Trim(strings.TrimSpace(t[:i]), "*`")
	value := strings.TrimSpace(strings.TrimLeft(t[i+1:], "*"))
	key = strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(key)))
	return key, value, true
}

// splitList reads "[a, b]", "a; b" or "a, b".
func splitList(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	sep := ","
	if strings.Contains(v, ";") {
		sep = ";"
	}
	var out []string
	for _, p := range strings.Split(v, sep) {
		if p = strings.Trim(strings.TrimSpace(p), "`\"'"); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isWord(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
			return false
		}
	}
	return true
}

// modeInHeading finds a known mode in parentheses in a heading:
// "# R2 review 2026-01-02 (batch)" → BATCH.
func modeInHeading(h string) string {
	for {
		i := strings.IndexByte(h, '(')
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(h[i:], ')')
		if j < 0 {
			return ""
		}
		m := strings.ToUpper(strings.TrimSpace(h[i+1 : i+j]))
		if slices.Contains(knownModes, m) {
			return m
		}
		h = h[i+j:]
	}
}
