package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/blueprints"
	"github.com/vibe-science/vibe/internal/filememo"
	"github.com/vibe-science/vibe/internal/walltime"
)

// DomainConfigPath is where a project picks its domain, relative to the
// project root.
const DomainConfigPath = ".vibe-science/domain-config.json"

// GenericDomain is the domain used when a project has no domain config.
const GenericDomain = "generic"

// Domain is a domain config: the thresholds of the data-quality gates, the
// domain's own column checks, its literature sources, the file patterns that
// fire the gates automatically and, optionally, its own promotion table.
type Domain struct {
	Name string `json:"domain"`
	// Extends names the shipped domain a custom domain starts from.
	Extends     string       `json:"extends,omitempty"`
	DisplayName string       `json:"display_name"`
	Notes       string       `json:"notes,omitempty"`
	Literature  Literature   `json:"literature"`
	Files       FilePatterns `json:"files"`
	DQ1         DQ1Config    `json:"dq1"`
	DQ2         DQ2Config    `json:"dq2"`
	DQ3         DQ3Config    `json:"dq3"`
	DQ4         DQ4Config    `json:"dq4"`
	// Observer holds the thresholds of the observer's checks that belong
	// to the domain.
	Observer ObserverConfig `json:"observer"`
	// Compute is the compute a job may ask for and run without the user's
	// approval; the zero value (no "compute" key) lets none.
	Compute ComputeConfig `json:"compute,omitzero"`
	// Terms are the domain's words that are easy to misuse; DQ4 warns when
	// a findings file uses one of the misuses, and the reviewer's checklist
	// carries them.
	Terms []Term `json:"terms"`
	// Promotion maps a claim tier (0–3) to the gates its promotion needs;
	// nil means the methodology's default table (claim.DefaultPromotionGates).
	Promotion map[int][]string `json:"promotion,omitempty"`
}

// Literature lists the domain's literature sources by their id in the
// literature registry; L-1 names Primary when it denies a direction.
type Literature struct {
	Primary   []string `json:"primary"`
	Secondary []string `json:"secondary"`
	Datasets  []string `json:"datasets"`
	Preprints []string `json:"preprints"`
	Grey      []string `json:"grey"`
	// CuratedRAG is zotero, paperqa2, notebooklm, or nil for none.
	CuratedRAG *string         `json:"curated_rag"`
	RAGConfig  json.RawMessage `json:"rag_config,omitempty"`
}

// FilePatterns are the file-name patterns that make a written file an input
// of a gate. A pattern without a slash matches the base name in any folder
// (so "features*.csv" matches RQ-001-x/03-data/features_v2.csv); a pattern
// with slashes matches as many trailing path segments as it has; a leading
// "**/" is the same as none. Matching ignores case and reads backslashes
// as separators; the syntax of each segment is path.Match's.
type FilePatterns struct {
	Features    []string `json:"features"`
	Metrics     []string `json:"metrics"`
	Calibration []string `json:"calibration"`
	Findings    []string `json:"findings"`
	Dictionary  []string `json:"dictionary"`
}

// DQ1Config holds the thresholds of DQ1 and the domain's column checks.
type DQ1Config struct {
	// LabelColumn names the label; empty means the first of label, y,
	// target found in the header (ignoring case).
	LabelColumn            string   `json:"label_column"`
	AllowedMissingFraction float64  `json:"allowed_missing_fraction"`
	LeakageCorrThreshold   float64  `json:"leakage_corr_threshold"`
	MinSamples             int      `json:"min_samples"`
	RequiredColumns        []string `json:"required_columns"`
	// Checks are the domain's own column checks. A key of the dq1 block
	// that equals a check's name sets that check's bound: the blueprint's
	// `"mean_mismatch_range": [2, 8]` sets the range of the check named
	// mean_mismatch_range.
	Checks []ColumnCheck `json:"checks"`
	// MaxShareChange is the largest absolute change of a column's zero
	// share or missing share between two versions of the same table
	// (DQ1Compare).
	MaxShareChange float64 `json:"max_share_change"`
	// CrossChecks are pairs of columns of the same table that must agree
	// row by row.
	CrossChecks []CrossCheck `json:"cross_checks"`
	// LeakageExempt names columns shown to be known before the label (say
	// why in the data dictionary): the leakage checks pass them and say so.
	LeakageExempt []string `json:"leakage_exempt"`
	// Pairs tunes the inferred cross-check: two numeric columns that agree
	// on most rows but not all, whatever their names (see dq1pairs.go).
	Pairs PairsConfig `json:"pairs"`
	// PointMass tunes the point-mass check: one value (0, or a code such
	// as -1 or 999) held by a share of a column's rows and set apart from
	// its other values (see dq1point.go).
	PointMass PointMassConfig `json:"point_mass"`
	// Grouping names or turns off the inferred grouping column and fold
	// column of a table (see dq1groups.go).
	Grouping GroupingConfig `json:"grouping"`
}

// PairsConfig tunes the inferred cross-check of DQ1.
type PairsConfig struct {
	// MinAgreement is the smallest share of rows on which two columns
	// must agree to be judged a computed/reported pair.
	MinAgreement float64 `json:"min_agreement"`
	// MinKappa is the smallest chance-corrected agreement (Cohen's kappa)
	// of such a pair: two columns that are mostly 0 agree on most rows by
	// chance, and their kappa stays low.
	MinKappa float64 `json:"min_kappa"`
	// Exempt lists pairs of columns that are different quantities and may
	// agree on most rows (age at enrolment and age at diagnosis).
	Exempt [][]string `json:"exempt"`
}

// PointMassConfig tunes the point-mass check of DQ1.
type PointMassConfig struct {
	// MinShare is the smallest share of rows one value must hold to be a
	// point mass.
	MinShare float64 `json:"min_share"`
	// Exempt lists columns whose point mass is by design (a detector's
	// saturation value, a floor written as 0 on purpose).
	Exempt []string `json:"exempt"`
}

// GroupingConfig names what DQ1 otherwise infers: the grouping column (an
// id-like column with many rows per value: guide, patient, site) and the
// fold column of a table. Empty infers it; "none" turns it off.
type GroupingConfig struct {
	Column     string `json:"column"`
	FoldColumn string `json:"fold_column"`
}

// GroupingOff is the value of GroupingConfig.Column or FoldColumn that turns
// the inference off.
const GroupingOff = "none"

// CrossCheck is a computed column that must equal a reported one on every
// row, up to ToleranceFraction of disagreeing rows (the blueprint's M5: a
// mismatch count computed from the sequences that disagrees with the one
// the source reported).
type CrossCheck struct {
	// Computed and Reported are the accepted names of each column; the
	// first present in the header is used.
	Computed Names `json:"computed"`
	Reported Names `json:"reported"`
	// ToleranceFraction is the largest share of compared rows that may
	// disagree.
	ToleranceFraction float64 `json:"tolerance_fraction"`
	// Why is the domain reason, quoted in a failure.
	Why string `json:"why,omitempty"`
}

// Names is a list of alternative column names; in JSON, one string or a
// list of strings.
type Names []string

// UnmarshalJSON accepts "name" or ["name", "other name"].
func (n *Names) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*n = Names{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("want a column name or a list of names: %w", err)
	}
	*n = list
	return nil
}

// ObserverConfig holds the design-drift thresholds: a dataset planned in
// DESIGN.md, present in 02-data/raw/ or downloaded is reported when no
// action or analysis script has read it after DesignDriftActions recorded
// actions or DesignDriftHours hours since vibe first saw it.
type ObserverConfig struct {
	DesignDriftActions int     `json:"design_drift_actions"`
	DesignDriftHours   float64 `json:"design_drift_hours"`
}

// ComputeConfig is the project's allowance for compute jobs (issue 34):
// PreToolUse asks the user before a job submission (sbatch, qsub, bsub,
// srun, a detached analysis run, a container with GPUs) unless the job
// states a wall time at or below MaxTime and, when it asks for GPUs, its
// GPU count times its wall time is at most MaxGPUHours.
type ComputeConfig struct {
	// MaxTime is the longest wall time, in Slurm's spelling
	// ("01:00:00", "90" minutes, "1-12:00:00"); empty allows no job.
	MaxTime string `json:"max_time,omitempty"`
	// MaxGPUHours bounds GPUs × wall time of one job; 0 allows no GPU job.
	MaxGPUHours float64 `json:"max_gpu_hours,omitempty"`
}

// Limit is MaxTime as a duration, 0 when none is set.
func (c ComputeConfig) Limit() time.Duration {
	d, _ := walltime.Slurm(c.MaxTime)
	return d
}

// Term is a word of the domain with the ways it is misused: DQ4 warns
// (never blocks) when a findings file uses a misuse, quoting Note.
type Term struct {
	Term    string   `json:"term"`
	Misuses []string `json:"misuses"`
	Note    string   `json:"note,omitempty"`
}

// The kinds of domain column check.
const (
	// CheckMeanWithin: the column's mean lies within Range.
	CheckMeanWithin = "mean_within"
	// CheckValuesWithin: every value lies within Range.
	CheckValuesWithin = "values_within"
	// CheckValuesAtLeast: every value is at least Min.
	CheckValuesAtLeast = "values_at_least"
	// CheckFractionNonzero: the fraction of non-zero values is at least Min.
	CheckFractionNonzero = "fraction_nonzero_at_least"
)

var checkKinds = []string{CheckMeanWithin, CheckValuesWithin, CheckValuesAtLeast, CheckFractionNonzero}

// ColumnCheck is one data-driven domain check of DQ1 on a numeric column.
type ColumnCheck struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Columns are the accepted names of the column; the first present in
	// the header is checked.
	Columns []string  `json:"columns"`
	Range   []float64 `json:"range,omitempty"`
	Min     *float64  `json:"min,omitempty"`
	// Required makes a table without any of Columns fail; otherwise the
	// check is reported as not applicable.
	Required bool `json:"required,omitempty"`
	// Why is the domain reason, quoted in a failure.
	Why string `json:"why,omitempty"`
}

// UnmarshalJSON merges a dq1 block onto c: present keys replace, absent
// keys keep their value, and a key naming one of the checks sets its bound.
func (c *DQ1Config) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if v, ok := raw["checks"]; ok {
		var checks []ColumnCheck
		if err := json.Unmarshal(v, &checks); err != nil {
			return fmt.Errorf("dq1.checks: %w", err)
		}
		c.Checks = checks
	}
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		var err error
		switch k {
		case "checks":
			continue
		case "label_column":
			err = json.Unmarshal(v, &c.LabelColumn)
		case "allowed_missing_fraction":
			err = json.Unmarshal(v, &c.AllowedMissingFraction)
		case "leakage_corr_threshold":
			err = json.Unmarshal(v, &c.LeakageCorrThreshold)
		case "min_samples":
			err = json.Unmarshal(v, &c.MinSamples)
		case "required_columns":
			err = json.Unmarshal(v, &c.RequiredColumns)
		case "leakage_exempt":
			err = json.Unmarshal(v, &c.LeakageExempt)
		case "max_share_change":
			err = json.Unmarshal(v, &c.MaxShareChange)
		case "cross_checks":
			var cc []CrossCheck
			if err = json.Unmarshal(v, &cc); err == nil {
				c.CrossChecks = cc
			}
		case "pairs":
			err = json.Unmarshal(v, &c.Pairs)
		case "point_mass":
			err = json.Unmarshal(v, &c.PointMass)
		case "grouping":
			err = json.Unmarshal(v, &c.Grouping)
		default:
			i := c.checkIndex(k)
			if i < 0 {
				// Unknown keys are reported by ValidateDomain with their
				// full path; decoding leaves them alone.
				continue
			}
			err = c.Checks[i].setBound(v)
		}
		if err != nil {
			return fmt.Errorf("dq1.%s: %w", k, err)
		}
	}
	return nil
}

func (c *DQ1Config) checkIndex(name string) int {
	for i, ch := range c.Checks {
		if ch.Name == name {
			return i
		}
	}
	return -1
}

// setBound applies a flat dq1 key: a [lo, hi] pair for range kinds, a
// number for the others.
func (ch *ColumnCheck) setBound(v json.RawMessage) error {
	switch ch.Kind {
	case CheckMeanWithin, CheckValuesWithin:
		var r []float64
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("check %s takes a [low, high] pair: %w", ch.Name, err)
		}
		ch.Range = r
	default:
		var m float64
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("check %s takes a number: %w", ch.Name, err)
		}
		ch.Min = &m
	}
	return nil
}

// DQ2Config holds the thresholds of DQ2.
type DQ2Config struct {
	MinAUC       float64 `json:"min_auc"`
	MinR2        float64 `json:"min_r2"`
	MaxDominance float64 `json:"max_dominance"`
	MaxFoldCV    float64 `json:"max_fold_cv"`
	// MinGroupsPerFold is the fewest groups (guides, patients, sites) a
	// held-out fold may contain.
	MinGroupsPerFold int `json:"min_groups_per_fold"`
	// MinGroupShareKept is the smallest share of the groups a
	// subsampling may keep (n_groups_used / n_groups_total).
	MinGroupShareKept float64 `json:"min_group_share_kept"`
}

// DQ3Config holds the thresholds of DQ3. MinN is the fewest calibration
// points a coverage estimate may rest on: 30 by default, the usual floor
// below which a binomial coverage estimate has a standard error above 0.05
// at 90% nominal coverage.
type DQ3Config struct {
	MaxCoverageGap float64 `json:"max_coverage_gap"`
	MaxCoverage    float64 `json:"max_coverage"`
	MinN           int     `json:"min_n"`
}

// The DQ4 rounding rules.
const (
	// RoundingRound: a reported value equals a source value rounded to the
	// reported number of decimals (half a unit of the last digit either way).
	RoundingRound = "round"
	// RoundingRoundOrTruncate also accepts a source value truncated to the
	// reported decimals, for tools that cut instead of rounding.
	RoundingRoundOrTruncate = "round_or_truncate"
)

// DQ4Config holds the matching rule of DQ4 and its overclaim check.
type DQ4Config struct {
	Rounding string `json:"rounding"`
	// PercentOfFraction lets "87.5%" match a source fraction 0.875.
	PercentOfFraction bool `json:"percent_of_fraction"`
	// SurprisingEffect is the fold change or ratio (written "12-fold",
	// "12×", "fold change of 12", "odds ratio 12"; a ratio r below 1
	// counts as 1/r) at or above which a result is surprising and needs
	// an alternative-explanations section; 0 turns the number rule off.
	SurprisingEffect float64 `json:"surprising_effect"`
	// ClaimWords are words and phrases (matched whole, ignoring case)
	// that make a result a strong claim needing the same section.
	ClaimWords []string `json:"claim_words"`
	// AlternativesHeadings are the headings (matched as part of a
	// heading's text, ignoring case) that count as the
	// alternative-explanations section.
	AlternativesHeadings []string `json:"alternatives_headings"`
}

// ShippedDomains lists the domains shipped in blueprints/domains/, sorted.
func ShippedDomains() []string {
	entries, err := fs.ReadDir(blueprints.FS, "domains")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".json") {
			out = append(out, strings.TrimSuffix(n, ".json"))
		}
	}
	sort.Strings(out)
	return out
}

// ShippedDomain returns a shipped domain config by name.
func ShippedDomain(name string) (Domain, error) {
	raw, err := shippedRaw(name)
	if err != nil {
		return Domain{}, err
	}
	var d Domain
	if err := json.Unmarshal(raw, &d); err != nil {
		return Domain{}, fmt.Errorf("parse shipped domain %s: %w", name, err)
	}
	return d, nil
}

func shippedRaw(name string) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, fmt.Errorf("unknown domain %q: shipped domains are %s", name, strings.Join(ShippedDomains(), ", "))
	}
	raw, err := fs.ReadFile(blueprints.FS, "domains/"+name+".json")
	if err != nil {
		return nil, fmt.Errorf("unknown domain %q: shipped domains are %s; to define your own, set \"extends\" to one of them", name, strings.Join(ShippedDomains(), ", "))
	}
	return raw, nil
}

// LoadDomain reads <projectRoot>/.vibe-science/domain-config.json. Its
// "domain" picks a shipped domain (or "extends" names the shipped domain a
// custom one starts from) and every other key present overrides that
// domain's value; lists are replaced whole. Without the file the generic
// domain applies. An invalid config is an error listing every problem, so a
// misspelt threshold never silently falls back to a default.
//
// The resident worker keeps each project's merged config by file and merges
// again only when the file's modification time or size changes (a merge
// costs about 0.4 ms, and PreToolUse needs the config on every call). The
// Domain returned shares its lists and maps with that copy: callers read it
// and never change it.
func LoadDomain(projectRoot string) (Domain, error) {
	p := filepath.Join(projectRoot, filepath.FromSlash(DomainConfigPath))
	d, err := projectDomains.Load(p, func(raw []byte) (Domain, error) {
		d, errs := mergeDomain(raw)
		if len(errs) > 0 {
			return Domain{}, fmt.Errorf("load domain config %s: %w", p, errors.Join(errs...))
		}
		return d, nil
	})
	var read *filememo.ReadError
	if errors.As(err, &read) {
		if errors.Is(read.Err, fs.ErrNotExist) {
			return genericDomain()
		}
		return Domain{}, fmt.Errorf("load domain config: %w", read.Err)
	}
	return d, err
}

// projectDomains keeps each project's merged config; genericDomain is the
// one without a file.
var (
	projectDomains filememo.Memo[Domain]
	genericDomain  = sync.OnceValues(func() (Domain, error) { return ShippedDomain(GenericDomain) })
)

// ValidateDomain checks a domain config as a project writes it (a partial
// override of a shipped domain) or as shipped (complete): it must name a
// known domain or extend one, use only known keys (keys starting with "_"
// are comments), and leave every threshold in its range once merged. It
// returns every problem found, nil when there is none.
func ValidateDomain(raw []byte) []error {
	_, errs := mergeDomain(raw)
	return errs
}

// jsonProblem says why a domain config did not decode as an object: where
// its JSON breaks (line and column, as an editor counts them), or what it
// is instead of an object.
func jsonProblem(raw []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the offending byte; the end of the input has none.
		at := int(syn.Offset)
		if at > 0 && at <= len(raw) && syn.Error() != "unexpected end of JSON input" {
			at--
		}
		line, col := 1, 1
		for _, b := range raw[:min(at, len(raw))] {
			if b == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Errorf("domain config is not valid JSON: %v at line %d, column %d", err, line, col)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("domain config must be one JSON object ({\"domain\": \"generic\", ...}), not %s %s", article(typ.Value), typ.Value)
	}
	return fmt.Errorf("domain config is not a JSON object: %w", err)
}

// article is "a" or "an" before word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func mergeDomain(raw []byte) (Domain, []error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return Domain{}, []error{jsonProblem(raw, err)}
	}
	var name, extends string
	if v, ok := top["domain"]; ok {
		if err := json.Unmarshal(v, &name); err != nil {
			return Domain{}, []error{fmt.Errorf("domain: must be a string: %w", err)}
		}
	}
	if v, ok := top["extends"]; ok {
		if err := json.Unmarshal(v, &extends); err != nil {
			return Domain{}, []error{fmt.Errorf("extends: must be a string: %w", err)}
		}
	}
	if name == "" {
		return Domain{}, []error{fmt.Errorf("domain: missing; set it to one of %s", strings.Join(ShippedDomains(), ", "))}
	}
	baseName := extends
	if baseName == "" {
		baseName = name
	}
	base, err := ShippedDomain(baseName)
	if err != nil {
		return Domain{}, []error{err}
	}
	var errs []error
	var tree any
	if err := json.Unmarshal(raw, &tree); err == nil {
		errs = append(errs, unknownKeys(tree, base)...)
	}
	d := base
	if err := json.Unmarshal(raw, &d); err != nil {
		errs = append(errs, fmt.Errorf("domain config: %w", err))
	}
	d.Name = name
	d.Extends = extends
	errs = append(errs, validateDomain(d, literatureIDs())...)
	return d, errs
}

// knownKeys is the shape of a domain config; nil marks a leaf whose value
// is not walked further (rag_config is free-form).
var knownKeys = map[string]any{
	"domain": nil, "extends": nil, "display_name": nil, "notes": nil,
	"literature": map[string]any{"primary": nil, "secondary": nil, "datasets": nil,
		"preprints": nil, "grey": nil, "curated_rag": nil, "rag_config": nil},
	"files": map[string]any{"features": nil, "metrics": nil, "calibration": nil,
		"findings": nil, "dictionary": nil},
	"dq1": map[string]any{"label_column": nil, "allowed_missing_fraction": nil,
		"leakage_corr_threshold": nil, "min_samples": nil, "required_columns": nil, "checks": nil,
		"max_share_change": nil, "cross_checks": nil, "leakage_exempt": nil,
		"pairs":      map[string]any{"min_agreement": nil, "min_kappa": nil, "exempt": nil},
		"point_mass": map[string]any{"min_share": nil, "exempt": nil},
		"grouping":   map[string]any{"column": nil, "fold_column": nil}},
	"dq2": map[string]any{"min_auc": nil, "min_r2": nil, "max_dominance": nil, "max_fold_cv": nil,
		"min_groups_per_fold": nil, "min_group_share_kept": nil},
	"dq3": map[string]any{"max_coverage_gap": nil, "max_coverage": nil, "min_n": nil},
	"dq4": map[string]any{"rounding": nil, "percent_of_fraction": nil, "surprising_effect": nil,
		"claim_words": nil, "alternatives_headings": nil},
	"observer":  map[string]any{"design_drift_actions": nil, "design_drift_hours": nil},
	"compute":   map[string]any{"max_time": nil, "max_gpu_hours": nil},
	"terms":     nil,
	"promotion": nil,
}

var checkKeys = map[string]bool{"name": true, "kind": true, "columns": true, "range": true,
	"min": true, "required": true, "why": true}

// listItemKeys are the keys of the items of the lists a domain config
// holds besides dq1.checks.
var listItemKeys = []struct {
	at   string
	keys []string
	list func(obj map[string]any) []any
}{
	{"dq1.cross_checks", []string{"computed", "reported", "tolerance_fraction", "why"}, func(obj map[string]any) []any {
		dq1, _ := obj["dq1"].(map[string]any)
		list, _ := dq1["cross_checks"].([]any)
		return list
	}},
	{"terms", []string{"misuses", "note", "term"}, func(obj map[string]any) []any {
		list, _ := obj["terms"].([]any)
		return list
	}},
}

func isCommentKey(k string) bool { return strings.HasPrefix(k, "_") }

func unknownKeys(tree any, base Domain) []error {
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil
	}
	var errs []error
	checkNames := map[string]bool{}
	for _, c := range base.DQ1.Checks {
		checkNames[c.Name] = true
	}
	if dq1, ok := obj["dq1"].(map[string]any); ok {
		if list, ok := dq1["checks"].([]any); ok {
			checkNames = map[string]bool{}
			for i, item := range list {
				m, ok := item.(map[string]any)
				if !ok {
					continue
				}
				if n, ok := m["name"].(string); ok {
					checkNames[n] = true
				}
				for _, k := range sortedKeys(m) {
					if !checkKeys[k] && !isCommentKey(k) {
						errs = append(errs, fmt.Errorf("dq1.checks[%d].%s: unknown key; known keys are columns, kind, min, name, range, required, why", i, k))
					}
				}
			}
		}
	}
	for _, l := range listItemKeys {
		for i, item := range l.list(obj) {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			for _, k := range sortedKeys(m) {
				if !slices.Contains(l.keys, k) && !isCommentKey(k) {
					errs = append(errs, fmt.Errorf("%s[%d].%s: unknown key; known keys are %s", l.at, i, k, strings.Join(l.keys, ", ")))
				}
			}
		}
	}
	var walk func(prefix string, node map[string]any, shape map[string]any)
	walk = func(prefix string, node map[string]any, shape map[string]any) {
		for _, k := range sortedKeys(node) {
			if isCommentKey(k) {
				continue
			}
			sub, known := shape[k]
			if !known {
				if prefix == "dq1." && checkNames[k] {
					continue
				}
				known := sortedKeys(shape)
				if prefix == "dq1." {
					for n := range checkNames {
						known = append(known, n)
					}
					sort.Strings(known)
				}
				errs = append(errs, fmt.Errorf("%s%s: unknown key; known keys here are %s", prefix, k, strings.Join(known, ", ")))
				continue
			}
			if subShape, ok := sub.(map[string]any); ok {
				if child, ok := node[k].(map[string]any); ok {
					walk(prefix+k+".", child, subShape)
				}
			}
		}
	}
	walk("", obj, knownKeys)
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var ragKinds = []string{"zotero", "paperqa2", "notebooklm"}

// literatureIDs reads the source ids of blueprints/literature-registry.json
// ({"databases": {id: {...}}}); nil when the registry is absent or in
// another shape, in which case ids are not checked.
var literatureIDs = sync.OnceValue(readLiteratureIDs)

// readLiteratureIDs reads the ids of the shipped literature registry,
// once per process (literatureIDs): it is embedded and never changes.
func readLiteratureIDs() map[string]bool {
	raw, err := fs.ReadFile(blueprints.FS, "literature-registry.json")
	if err != nil {
		return nil
	}
	var reg struct {
		Databases map[string]json.RawMessage `json:"databases"`
	}
	if json.Unmarshal(raw, &reg) != nil || len(reg.Databases) == 0 {
		return nil
	}
	ids := make(map[string]bool, len(reg.Databases))
	for k := range reg.Databases {
		ids[k] = true
	}
	return ids
}

func validateDomain(d Domain, litIDs map[string]bool) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	if !validDomainName(d.Name) {
		bad("domain: %q must be lower-case letters, digits and hyphens", d.Name)
	}
	lists := []struct {
		key string
		ids []string
	}{{"primary", d.Literature.Primary}, {"secondary", d.Literature.Secondary},
		{"datasets", d.Literature.Datasets}, {"preprints", d.Literature.Preprints}, {"grey", d.Literature.Grey}}
	for _, l := range lists {
		for _, id := range l.ids {
			switch {
			case strings.TrimSpace(id) == "":
				bad("literature.%s: empty source id", l.key)
			case litIDs != nil && !litIDs[id]:
				bad("literature.%s: %q is not in blueprints/literature-registry.json", l.key, id)
			}
		}
	}
	if len(d.Literature.Primary) == 0 {
		bad("literature.primary: list at least one source; L-1 names them when it denies a direction")
	}
	if r := d.Literature.CuratedRAG; r != nil && !slices.Contains(ragKinds, *r) {
		bad("literature.curated_rag: %q must be one of %s, or null", *r, strings.Join(ragKinds, ", "))
	}

	pats := []struct {
		key  string
		list []string
		need bool
	}{{"features", d.Files.Features, true}, {"metrics", d.Files.Metrics, true},
		{"calibration", d.Files.Calibration, true}, {"findings", d.Files.Findings, true},
		{"dictionary", d.Files.Dictionary, true}}
	for _, p := range pats {
		if p.need && len(p.list) == 0 {
			bad("files.%s: list at least one pattern", p.key)
		}
		for _, pat := range p.list {
			if _, err := path.Match(strings.TrimPrefix(pat, "**/"), ""); err != nil || strings.TrimSpace(pat) == "" {
				bad("files.%s: %q is not a valid pattern", p.key, pat)
			}
		}
	}

	q1 := d.DQ1
	if !inRange(q1.AllowedMissingFraction, 0, 1) {
		bad("dq1.allowed_missing_fraction: %v must be within [0, 1]", q1.AllowedMissingFraction)
	}
	if !(q1.LeakageCorrThreshold > 0 && q1.LeakageCorrThreshold <= 1) {
		bad("dq1.leakage_corr_threshold: %v must be within (0, 1]", q1.LeakageCorrThreshold)
	}
	if q1.MinSamples < 0 {
		bad("dq1.min_samples: %d must not be negative", q1.MinSamples)
	}
	seen := map[string]bool{}
	for i, c := range q1.Checks {
		at := fmt.Sprintf("dq1.checks[%d]", i)
		if c.Name == "" {
			bad("%s.name: missing", at)
		} else if seen[c.Name] {
			bad("%s.name: %q is used twice", at, c.Name)
		}
		seen[c.Name] = true
		if len(c.Columns) == 0 {
			bad("%s.columns: list at least one column name", at)
		}
		switch c.Kind {
		case CheckMeanWithin, CheckValuesWithin:
			if len(c.Range) != 2 || !(c.Range[0] <= c.Range[1]) {
				bad("%s (%s): range must be [low, high] with low <= high", at, c.Name)
			}
		case CheckValuesAtLeast:
			if c.Min == nil {
				bad("%s (%s): min is missing", at, c.Name)
			}
		case CheckFractionNonzero:
			if c.Min == nil || !inRange(*c.Min, 0, 1) {
				bad("%s (%s): min must be a fraction within [0, 1]", at, c.Name)
			}
		default:
			bad("%s (%s): kind %q must be one of %s", at, c.Name, c.Kind, strings.Join(checkKinds, ", "))
		}
	}

	if !(q1.MaxShareChange > 0 && q1.MaxShareChange <= 1) {
		bad("dq1.max_share_change: %v must be within (0, 1]", q1.MaxShareChange)
	}
	for i, c := range q1.CrossChecks {
		at := fmt.Sprintf("dq1.cross_checks[%d]", i)
		if len(c.Computed) == 0 || slices.Contains(c.Computed, "") {
			bad("%s.computed: name the computed column (or a list of accepted names)", at)
		}
		if len(c.Reported) == 0 || slices.Contains(c.Reported, "") {
			bad("%s.reported: name the reported column (or a list of accepted names)", at)
		}
		if !inRange(c.ToleranceFraction, 0, 1) {
			bad("%s.tolerance_fraction: %v must be within [0, 1]", at, c.ToleranceFraction)
		}
	}

	if p := q1.Pairs; !(p.MinAgreement > 0.5 && p.MinAgreement < 1) {
		bad("dq1.pairs.min_agreement: %v must be above 0.5 and below 1", p.MinAgreement)
	}
	if p := q1.Pairs; !(p.MinKappa > 0 && p.MinKappa <= 1) {
		bad("dq1.pairs.min_kappa: %v must be within (0, 1]", p.MinKappa)
	}
	for i, pair := range q1.Pairs.Exempt {
		if len(pair) != 2 || strings.TrimSpace(pair[0]) == "" || strings.TrimSpace(pair[1]) == "" || pair[0] == pair[1] {
			bad("dq1.pairs.exempt[%d]: write two different column names, [\"a\", \"b\"]", i)
		}
	}
	if m := q1.PointMass.MinShare; !(m > 0 && m < 1) {
		bad("dq1.point_mass.min_share: %v must be within (0, 1)", m)
	}
	for _, c := range q1.PointMass.Exempt {
		if strings.TrimSpace(c) == "" {
			bad("dq1.point_mass.exempt: empty column name")
		}
	}
	if g := q1.Grouping; g.Column != "" && g.Column == g.FoldColumn {
		bad("dq1.grouping: column and fold_column are both %q; the folds hold groups of another column", g.Column)
	}

	q2 := d.DQ2
	if !inRange(q2.MinAUC, 0.5, 1) {
		bad("dq2.min_auc: %v must be within [0.5, 1] (0.5 is a coin flip)", q2.MinAUC)
	}
	if !inRange(q2.MinR2, 0, 1) {
		bad("dq2.min_r2: %v must be within [0, 1]", q2.MinR2)
	}
	if !(q2.MaxDominance > 0 && q2.MaxDominance <= 1) {
		bad("dq2.max_dominance: %v must be within (0, 1]", q2.MaxDominance)
	}
	if !(q2.MaxFoldCV > 0) {
		bad("dq2.max_fold_cv: %v must be above 0", q2.MaxFoldCV)
	}
	if q2.MinGroupsPerFold < 1 {
		bad("dq2.min_groups_per_fold: %d must be at least 1", q2.MinGroupsPerFold)
	}
	if !inRange(q2.MinGroupShareKept, 0, 1) {
		bad("dq2.min_group_share_kept: %v must be within [0, 1]", q2.MinGroupShareKept)
	}

	q3 := d.DQ3
	if !(q3.MaxCoverageGap > 0 && q3.MaxCoverageGap < 1) {
		bad("dq3.max_coverage_gap: %v must be within (0, 1)", q3.MaxCoverageGap)
	}
	if !(q3.MaxCoverage > 0 && q3.MaxCoverage <= 1) {
		bad("dq3.max_coverage: %v must be within (0, 1]", q3.MaxCoverage)
	}
	if q3.MinN < 1 {
		bad("dq3.min_n: %d must be at least 1", q3.MinN)
	}

	if r := d.DQ4.Rounding; r != RoundingRound && r != RoundingRoundOrTruncate {
		bad("dq4.rounding: %q must be %q or %q", r, RoundingRound, RoundingRoundOrTruncate)
	}
	if e := d.DQ4.SurprisingEffect; !(e == 0 || e > 1) || math.IsNaN(e) {
		bad("dq4.surprising_effect: %v must be above 1 (a fold change), or 0 to turn the rule off", e)
	}
	for _, w := range d.DQ4.ClaimWords {
		if strings.TrimSpace(w) == "" {
			bad("dq4.claim_words: empty word")
		}
	}
	if len(d.DQ4.AlternativesHeadings) == 0 {
		bad("dq4.alternatives_headings: list at least one heading (e.g. \"Alternative explanations\")")
	}
	for _, h := range d.DQ4.AlternativesHeadings {
		if strings.TrimSpace(h) == "" {
			bad("dq4.alternatives_headings: empty heading")
		}
	}
	if d.Observer.DesignDriftActions < 1 {
		bad("observer.design_drift_actions: %d must be at least 1", d.Observer.DesignDriftActions)
	}
	if !(d.Observer.DesignDriftHours > 0) {
		bad("observer.design_drift_hours: %v must be above 0", d.Observer.DesignDriftHours)
	}
	errs = append(errs, validateCompute(d.Compute)...)
	for i, t := range d.Terms {
		if strings.TrimSpace(t.Term) == "" {
			bad("terms[%d].term: missing", i)
		}
		if len(t.Misuses) == 0 {
			bad("terms[%d] (%s): list at least one misuse", i, t.Term)
		}
		for _, m := range t.Misuses {
			if strings.TrimSpace(m) == "" {
				bad("terms[%d] (%s): empty misuse", i, t.Term)
			}
		}
	}

	for _, tier := range sortedIntKeys(d.Promotion) {
		if tier < 0 || tier > 3 {
			bad("promotion.%d: tiers run from 0 to 3", tier)
		}
		if len(d.Promotion[tier]) == 0 {
			bad("promotion.%d: list at least one gate", tier)
		}
		for _, id := range d.Promotion[tier] {
			g, ok := Lookup(id)
			switch {
			case !ok:
				bad("promotion.%d: %q is not a gate id (see vibe gate list)", tier, id)
			case g.ID != id:
				bad("promotion.%d: write %q as %q", tier, id, g.ID)
			}
		}
	}
	return errs
}

// ComputeRaise says how a new text of the domain config raises the
// compute allowance over the old one ("compute.max_time from none to
// 01:00:00"), "" when it does not: more jobs would then run without the
// user's approval, which the user, not the agent, decides. A text that
// does not parse raises nothing here (validation reports it).
func ComputeRaise(old, proposed []byte) string {
	read := func(raw []byte) (ComputeConfig, bool) {
		var top struct {
			Compute ComputeConfig `json:"compute"`
		}
		err := json.Unmarshal(raw, &top)
		return top.Compute, err == nil
	}
	before, _ := read(old) // no file yet, or a broken one: no allowance
	after, ok := read(proposed)
	if !ok {
		return ""
	}
	var changes []string
	if after.Limit() > before.Limit() {
		from := "none"
		if before.Limit() > 0 {
			from = walltime.Format(before.Limit())
		}
		changes = append(changes, fmt.Sprintf("compute.max_time from %s to %s", from, walltime.Format(after.Limit())))
	}
	if after.MaxGPUHours > before.MaxGPUHours {
		changes = append(changes, fmt.Sprintf("compute.max_gpu_hours from %s to %s", formatFloat(before.MaxGPUHours), formatFloat(after.MaxGPUHours)))
	}
	return strings.Join(changes, " and ")
}

// validateCompute checks the compute allowance: a wall time Slurm can
// read, and GPU-hours that are a number at or above 0 and come with a
// wall time (an allowance by GPU-hours alone would let a CPU job of any
// length through).
func validateCompute(c ComputeConfig) []error {
	var errs []error
	if c.MaxTime != "" {
		if _, ok := walltime.Slurm(c.MaxTime); !ok {
			errs = append(errs, fmt.Errorf("compute.max_time: %q is not a wall time; write hours:minutes:seconds, e.g. \"01:00:00\" (or days-hours:minutes:seconds)", c.MaxTime))
		}
	}
	if h := c.MaxGPUHours; !(h >= 0) || math.IsInf(h, 0) {
		errs = append(errs, fmt.Errorf("compute.max_gpu_hours: %v must be a number of GPU-hours at or above 0", h))
	} else if h > 0 && c.MaxTime == "" {
		errs = append(errs, fmt.Errorf("compute.max_gpu_hours: set compute.max_time too (e.g. \"max_time\": \"01:00:00\"); the allowance covers only jobs whose wall time is within it"))
	}
	return errs
}

func validDomainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func inRange(v, lo, hi float64) bool { return !math.IsNaN(v) && v >= lo && v <= hi }

func sortedIntKeys(m map[int][]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// File kinds returned by Domain.FileKind.
const (
	FileFeatures    = "features"
	FileMetrics     = "metrics"
	FileCalibration = "calibration"
	FileFindings    = "findings"
	FileDictionary  = "dictionary"
)

// FileKind says which gate input p is by the domain's file patterns:
// FileFeatures, FileMetrics, FileCalibration, FileFindings, FileDictionary,
// or "" for none.
func (d Domain) FileKind(p string) string {
	kinds := []struct {
		kind string
		pats []string
	}{{FileFindings, d.Files.Findings}, {FileFeatures, d.Files.Features}, {FileMetrics, d.Files.Metrics},
		{FileCalibration, d.Files.Calibration}, {FileDictionary, d.Files.Dictionary}}
	for _, k := range kinds {
		for _, pat := range k.pats {
			if MatchPattern(pat, p) {
				return k.kind
			}
		}
	}
	return ""
}

// AutoGates lists the code gates that fire by themselves when p is
// written: DQ1 and DD0 for a features table, DQ2 for metrics, DQ3 for
// calibration results, DQ4 for a findings file (at PreToolUse, on the
// proposed content).
func AutoGates(p string, d Domain) []string {
	switch d.FileKind(p) {
	case FileFeatures:
		return []string{"DQ1", "DD0"}
	case FileMetrics:
		return []string{"DQ2"}
	case FileCalibration:
		return []string{"DQ3"}
	case FileFindings:
		return []string{"DQ4"}
	}
	return nil
}

// MatchPattern reports whether the file path p matches a FilePatterns
// pattern (see FilePatterns for the rule).
func MatchPattern(pattern, p string) bool {
	// Backslashes are separators whatever the OS: Windows paths reach
	// the hooks too, and no research file has a backslash in its name.
	pattern = strings.ToLower(strings.TrimPrefix(filepath.ToSlash(pattern), "**/"))
	p = strings.ToLower(strings.ReplaceAll(filepath.ToSlash(p), `\`, "/"))
	want := strings.Count(pattern, "/") + 1
	segs := strings.Split(strings.TrimRight(p, "/"), "/")
	if len(segs) < want {
		return false
	}
	ok, err := path.Match(pattern, strings.Join(segs[len(segs)-want:], "/"))
	return err == nil && ok
}

// FindDictionary looks for the data dictionary of a features table: in the
// table's folder, then in each parent up to and including projectRoot, the
// first file matching the domain's dictionary patterns (in sorted order
// within a folder).
func FindDictionary(featuresPath, projectRoot string, d Domain) (string, error) {
	dir := filepath.Dir(featuresPath)
	root, _ := filepath.Abs(projectRoot)
	var tried []string
	for {
		tried = append(tried, dir)
		entries, err := os.ReadDir(dir)
		if err == nil {
			for _, e := range entries {
				if e.IsDir() {
					continue
				}
				for _, pat := range d.Files.Dictionary {
					if MatchPattern(pat, e.Name()) {
						return filepath.Join(dir, e.Name()), nil
					}
				}
			}
		}
		abs, _ := filepath.Abs(dir)
		parent := filepath.Dir(dir)
		if abs == root || parent == dir || !strings.HasPrefix(abs, root) {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("find data dictionary: no file matching %s in %s", strings.Join(d.Files.Dictionary, ", "), strings.Join(tried, ", "))
}

// formatFloat renders v compactly for messages.
func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
