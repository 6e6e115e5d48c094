package gate

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/blueprints"
)

func errStrings(errs []error) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestShippedDomains(t *testing.T) {
	want := []string{"crispr-off-target", "generic", "particle-physics", "photonics-integrated"}
	if got := ShippedDomains(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ShippedDomains = %q, want %q", got, want)
	}
	for _, name := range want {
		raw, err := fs.ReadFile(blueprints.FS, "domains/"+name+".json")
		if err != nil {
			t.Fatal(err)
		}
		if errs := ValidateDomain(raw); len(errs) > 0 {
			t.Errorf("%s does not validate: %q", name, errStrings(errs))
		}
		d, err := ShippedDomain(name)
		if err != nil || d.Name != name {
			t.Errorf("ShippedDomain(%s) = %q, %v", name, d.Name, err)
		}
	}
}

// TestBlueprintThresholds pins the values the blueprint (section 10.2)
// gives, and that the registry's generic thresholds are the generic
// domain's.
func TestBlueprintThresholds(t *testing.T) {
	c := crispr(t)
	if c.DQ1.AllowedMissingFraction != 0.1 || c.DQ1.LeakageCorrThreshold != 0.95 {
		t.Errorf("crispr dq1 = %+v", c.DQ1)
	}
	mm := c.DQ1.Checks[0]
	if mm.Name != "mean_mismatch_range" || mm.Kind != CheckMeanWithin || !reflect.DeepEqual(mm.Range, []float64{2, 8}) {
		t.Errorf("crispr mean mismatch check = %+v", mm)
	}
	cfd := c.DQ1.Checks[1]
	if cfd.Name != "cfd_nonzero_threshold" || cfd.Kind != CheckFractionNonzero || *cfd.Min != 0.30 {
		t.Errorf("crispr cfd check = %+v", cfd)
	}
	if c.DQ2 != (DQ2Config{MinAUC: 0.55, MinR2: 0.05, MaxDominance: 0.5, MaxFoldCV: 0.5, MinGroupsPerFold: 3, MinGroupShareKept: 0.8}) {
		t.Errorf("crispr dq2 = %+v", c.DQ2)
	}
	if c.DQ3.MaxCoverageGap != 0.1 || c.DQ3.MaxCoverage != 0.999 {
		t.Errorf("crispr dq3 = %+v", c.DQ3)
	}
	lit := map[string][]string{
		"crispr-off-target":    {"pubmed", "biorxiv", "pmc"},
		"photonics-integrated": {"optica", "spie", "ieee_xplore"},
		"particle-physics":     {"inspire_hep", "arxiv", "cern_cds"},
	}
	for name, primary := range lit {
		d, _ := ShippedDomain(name)
		if !reflect.DeepEqual(d.Literature.Primary, primary) {
			t.Errorf("%s primary = %q, want %q", name, d.Literature.Primary, primary)
		}
	}
	if d, _ := ShippedDomain("photonics-integrated"); d.Literature.CuratedRAG == nil || *d.Literature.CuratedRAG != "notebooklm" {
		t.Errorf("photonics curated_rag = %v", d.Literature.CuratedRAG)
	}

	g := generic(t)
	byGate := map[string]map[string]float64{
		"DQ1": {"allowed_missing_fraction": g.DQ1.AllowedMissingFraction, "leakage_corr_threshold": g.DQ1.LeakageCorrThreshold, "min_samples": float64(g.DQ1.MinSamples),
			"max_share_change": g.DQ1.MaxShareChange, "pairs.min_agreement": g.DQ1.Pairs.MinAgreement, "pairs.min_kappa": g.DQ1.Pairs.MinKappa,
			"point_mass.min_share": g.DQ1.PointMass.MinShare},
		"DQ2": {"min_auc": g.DQ2.MinAUC, "min_r2": g.DQ2.MinR2, "max_dominance": g.DQ2.MaxDominance, "max_fold_cv": g.DQ2.MaxFoldCV,
			"min_groups_per_fold": float64(g.DQ2.MinGroupsPerFold), "min_group_share_kept": g.DQ2.MinGroupShareKept},
		"DQ3": {"max_coverage_gap": g.DQ3.MaxCoverageGap, "max_coverage": g.DQ3.MaxCoverage, "min_n": float64(g.DQ3.MinN)},
	}
	if dq4, _ := Lookup("DQ4"); dq4.Thresholds["surprising_effect"] != int(g.DQ4.SurprisingEffect) && dq4.Thresholds["surprising_effect"] != g.DQ4.SurprisingEffect {
		t.Errorf("DQ4 registry surprising_effect %v, generic domain %v", dq4.Thresholds["surprising_effect"], g.DQ4.SurprisingEffect)
	}
	for id, want := range byGate {
		gate, _ := Lookup(id)
		got := map[string]float64{}
		for k, v := range gate.Thresholds {
			switch n := v.(type) {
			case float64:
				got[k] = n
			case int:
				got[k] = float64(n)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s registry thresholds %v, generic domain %v", id, got, want)
		}
	}
}

// TestLoadDomainFollowsTheFile: the kept merge is used while the file is
// unchanged and replaced as soon as it changes, even to a text of the same
// length; removing the file brings back the generic domain.
func TestLoadDomainFollowsTheFile(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, ".vibe-science", "domain-config.json")
	at := time.Now().Add(-time.Hour)
	write := func(text string) {
		t.Helper()
		writeFile(t, file, text)
		at = at.Add(time.Second)
		if err := os.Chtimes(file, at, at); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"domain": "generic", "dq2": {"min_auc": 0.61}}`)
	if d, err := LoadDomain(root); err != nil || d.DQ2.MinAUC != 0.61 {
		t.Fatalf("first: %v %v", d.DQ2.MinAUC, err)
	}
	write(`{"domain": "generic", "dq2": {"min_auc": 0.72}}`)
	if d, err := LoadDomain(root); err != nil || d.DQ2.MinAUC != 0.72 {
		t.Fatalf("after a same-length edit: %v %v", d.DQ2.MinAUC, err)
	}
	write(`{"domain": "generic", "dq2": {"min_auc": 7.2}}`)
	if _, err := LoadDomain(root); err == nil || !strings.Contains(err.Error(), "min_auc") {
		t.Fatalf("an invalid edit must be reported, got %v", err)
	}
	os.Remove(file)
	if d, err := LoadDomain(root); err != nil || d.Name != "generic" || d.DQ2.MinAUC == 0.72 {
		t.Fatalf("removed: %q %v %v", d.Name, d.DQ2.MinAUC, err)
	}
}

func TestLoadDomain(t *testing.T) {
	t.Run("missing file is generic", func(t *testing.T) {
		d, err := LoadDomain(t.TempDir())
		if err != nil || d.Name != "generic" || d.DQ1.AllowedMissingFraction != 0.5 {
			t.Fatalf("got %q %v, %v", d.Name, d.DQ1.AllowedMissingFraction, err)
		}
	})
	t.Run("override of a shipped domain", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, ".vibe-science", "domain-config.json"), `{
			"domain": "crispr-off-target",
			"_comment": "tighter for this project",
			"dq1": {"mean_mismatch_range": [3, 7], "cfd_nonzero_threshold": 0.4, "label_column": "cleaved"},
			"dq2": {"min_auc": 0.6},
			"literature": {"curated_rag": "zotero"}
		}`)
		d, err := LoadDomain(root)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.DQ1.Checks[0].Range, []float64{3, 7}) || *d.DQ1.Checks[1].Min != 0.4 {
			t.Errorf("alias overrides not applied: %+v", d.DQ1.Checks)
		}
		if d.DQ1.LabelColumn != "cleaved" || d.DQ1.AllowedMissingFraction != 0.1 {
			t.Errorf("dq1 = %+v", d.DQ1)
		}
		if d.DQ2.MinAUC != 0.6 || d.DQ2.MinR2 != 0.05 {
			t.Errorf("dq2 = %+v", d.DQ2)
		}
		if *d.Literature.CuratedRAG != "zotero" || d.Literature.Primary[0] != "pubmed" {
			t.Errorf("literature = %+v", d.Literature)
		}
	})
	t.Run("custom domain extends", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, ".vibe-science", "domain-config.json"),
			`{"domain": "materials", "extends": "generic", "literature": {"primary": ["crossref"]}, "promotion": {"0": ["DQ4", "DC0", "DD0"]}}`)
		d, err := LoadDomain(root)
		if err != nil {
			t.Fatal(err)
		}
		if d.Name != "materials" || d.Extends != "generic" || !reflect.DeepEqual(d.Promotion, map[int][]string{0: {"DQ4", "DC0", "DD0"}}) {
			t.Errorf("got %+v", d)
		}
	})
	t.Run("invalid config is an error", func(t *testing.T) {
		root := t.TempDir()
		p := filepath.Join(root, ".vibe-science", "domain-config.json")
		writeFile(t, p, `{"domain": "generic", "dq2": {"min_acu": 0.6}}`)
		_, err := LoadDomain(root)
		want := "load domain config " + p + ": dq2.min_acu: unknown key; known keys here are max_dominance, max_fold_cv, min_auc, min_group_share_kept, min_groups_per_fold, min_r2"
		if err == nil || err.Error() != want {
			t.Errorf("err %v\nwant %s", err, want)
		}
	})
}

func TestValidateDomain(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{"minimal override", `{"domain": "generic"}`, []string{}},
		{"not json", `{`, []string{"domain config is not valid JSON: unexpected end of JSON input at line 1, column 2"}},
		{"a comma too many", "{\n  \"domain\": \"generic\",\n}\n", []string{"domain config is not valid JSON: invalid character '}' looking for beginning of object key string at line 3, column 1"}},
		{"an array", `["generic"]`, []string{`domain config must be one JSON object ({"domain": "generic", ...}), not an array`}},
		{"no domain", `{}`, []string{"domain: missing; set it to one of crispr-off-target, generic, particle-physics, photonics-integrated"}},
		{"unknown domain", `{"domain": "crispr"}`, []string{`unknown domain "crispr": shipped domains are crispr-off-target, generic, particle-physics, photonics-integrated; to define your own, set "extends" to one of them`}},
		{"bad name", `{"domain": "My Domain", "extends": "generic"}`, []string{`domain: "My Domain" must be lower-case letters, digits and hyphens`}},
		{"unknown keys everywhere", `{"domain": "generic", "dq5": {}, "literature": {"primry": []}, "dq1": {"checks": [{"name": "a", "kind": "mean_within", "columns": ["x"], "range": [1, 2], "colour": 1}], "a": [0, 1], "b": 1}}`, []string{
			"dq1.checks[0].colour: unknown key; known keys are columns, kind, min, name, range, required, why",
			"dq1.b: unknown key; known keys here are a, allowed_missing_fraction, checks, cross_checks, grouping, label_column, leakage_corr_threshold, leakage_exempt, max_share_change, min_samples, pairs, point_mass, required_columns",
			"dq5: unknown key; known keys here are compute, display_name, domain, dq1, dq2, dq3, dq4, extends, files, literature, notes, observer, promotion, terms",
			"literature.primry: unknown key; known keys here are curated_rag, datasets, grey, preprints, primary, rag_config, secondary",
		}},
		{"values out of range", `{"domain": "generic", "dq1": {"allowed_missing_fraction": 1.5, "leakage_corr_threshold": 0},
			"dq2": {"min_auc": 0.4, "min_r2": -1, "max_dominance": 2, "max_fold_cv": 0},
			"dq3": {"max_coverage_gap": 1, "max_coverage": 0, "min_n": 0}, "dq4": {"rounding": "floor"},
			"literature": {"primary": [], "curated_rag": "obsidian"}, "files": {"features": [], "metrics": ["[a"]},
			"promotion": {"5": ["DQ9"], "1": ["dq1"], "2": []}}`, []string{
			"literature.primary: list at least one source; L-1 names them when it denies a direction",
			`literature.curated_rag: "obsidian" must be one of zotero, paperqa2, notebooklm, or null`,
			"files.features: list at least one pattern",
			`files.metrics: "[a" is not a valid pattern`,
			"dq1.allowed_missing_fraction: 1.5 must be within [0, 1]",
			"dq1.leakage_corr_threshold: 0 must be within (0, 1]",
			"dq2.min_auc: 0.4 must be within [0.5, 1] (0.5 is a coin flip)",
			"dq2.min_r2: -1 must be within [0, 1]",
			"dq2.max_dominance: 2 must be within (0, 1]",
			"dq2.max_fold_cv: 0 must be above 0",
			"dq3.max_coverage_gap: 1 must be within (0, 1)",
			"dq3.max_coverage: 0 must be within (0, 1]",
			"dq3.min_n: 0 must be at least 1",
			`dq4.rounding: "floor" must be "round" or "round_or_truncate"`,
			`promotion.1: write "dq1" as "DQ1"`,
			"promotion.2: list at least one gate",
			"promotion.5: tiers run from 0 to 3",
			`promotion.5: "DQ9" is not a gate id (see vibe gate list)`,
		}},
		{"bad checks", `{"domain": "generic", "dq1": {"checks": [
			{"name": "a", "kind": "mean_within", "columns": ["x"], "range": [3, 1]},
			{"name": "a", "kind": "median", "columns": []},
			{"kind": "values_at_least", "columns": ["y"]},
			{"name": "f", "kind": "fraction_nonzero_at_least", "columns": ["z"], "min": 3}]}}`, []string{
			"dq1.checks[0] (a): range must be [low, high] with low <= high",
			`dq1.checks[1].name: "a" is used twice`,
			"dq1.checks[1].columns: list at least one column name",
			`dq1.checks[1] (a): kind "median" must be one of mean_within, values_within, values_at_least, fraction_nonzero_at_least`,
			"dq1.checks[2].name: missing",
			"dq1.checks[2] (): min is missing",
			"dq1.checks[3] (f): min must be a fraction within [0, 1]",
		}},
		{"new keys out of range", `{"domain": "generic", "dq1": {"max_share_change": 0, "cross_checks": [
			{"computed": "a", "reported": ["b", "c"], "tolerance_fraction": 0.05, "why": "fine"},
			{"computed": [], "reported": "", "tolerance_fraction": 2, "colour": 1}]},
			"dq2": {"min_groups_per_fold": 0, "min_group_share_kept": 1.2},
			"dq4": {"surprising_effect": 0.5, "claim_words": [" "], "alternatives_headings": []},
			"terms": [{"term": "", "misuses": []}, {"term": "x", "misuses": ["y"], "notes": "z"}],
			"observer": {"design_drift_actions": 0, "design_drift_hours": -1}}`, []string{
			"dq1.cross_checks[1].colour: unknown key; known keys are computed, reported, tolerance_fraction, why",
			"terms[1].notes: unknown key; known keys are misuses, note, term",
			"dq1.max_share_change: 0 must be within (0, 1]",
			"dq1.cross_checks[1].computed: name the computed column (or a list of accepted names)",
			"dq1.cross_checks[1].reported: name the reported column (or a list of accepted names)",
			"dq1.cross_checks[1].tolerance_fraction: 2 must be within [0, 1]",
			"dq2.min_groups_per_fold: 0 must be at least 1",
			"dq2.min_group_share_kept: 1.2 must be within [0, 1]",
			"dq4.surprising_effect: 0.5 must be above 1 (a fold change), or 0 to turn the rule off",
			"dq4.claim_words: empty word",
			`dq4.alternatives_headings: list at least one heading (e.g. "Alternative explanations")`,
			"observer.design_drift_actions: 0 must be at least 1",
			"observer.design_drift_hours: -1 must be above 0",
			"terms[0].term: missing",
			"terms[0] (): list at least one misuse",
		}},
		{"compute allowance", `{"domain": "generic", "compute": {"max_time": "01:00:00", "max_gpu_hours": 2}}`, []string{}},
		{"compute allowance out of range", `{"domain": "generic", "compute": {"max_time": "an hour", "max_gpu_hours": -1, "max_cpus": 4}}`, []string{
			"compute.max_cpus: unknown key; known keys here are max_gpu_hours, max_time",
			`compute.max_time: "an hour" is not a wall time; write hours:minutes:seconds, e.g. "01:00:00" (or days-hours:minutes:seconds)`,
			"compute.max_gpu_hours: -1 must be a number of GPU-hours at or above 0",
		}},
		{"compute GPU-hours without a wall time", `{"domain": "generic", "compute": {"max_gpu_hours": 4}}`, []string{
			`compute.max_gpu_hours: set compute.max_time too (e.g. "max_time": "01:00:00"); the allowance covers only jobs whose wall time is within it`,
		}},
		{"wrong types", `{"domain": "generic", "dq2": {"min_auc": "high"}}`, []string{
			"domain config: json: cannot unmarshal string into Go struct field DQ2Config.dq2.min_auc of type float64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errStrings(ValidateDomain([]byte(tt.raw))); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateDomainLiteratureIDs(t *testing.T) {
	d := generic(t)
	errs := validateDomain(d, map[string]bool{"openalex": true, "crossref": true, "arxiv": true, "pubmed": true, "biorxiv": true})
	want := []string{`literature.primary: "semantic_scholar" is not in blueprints/literature-registry.json`}
	if got := errStrings(errs); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFilePatterns(t *testing.T) {
	d := generic(t)
	tests := []struct {
		path string
		kind string
		auto []string
	}{
		{"RQ-001-x/03-data/features.csv", FileFeatures, []string{"DQ1", "DD0"}},
		{"RQ-001-x/03-data/Features_v2.TSV", FileFeatures, []string{"DQ1", "DD0"}},
		{`RQ-001-x\03-data\features.tsv`, FileFeatures, []string{"DQ1", "DD0"}},
		{"runs/3/metrics_fold1.json", FileMetrics, []string{"DQ2"}},
		{"calibration.json", FileCalibration, []string{"DQ3"}},
		{"RQ-001-x/FINDINGS.md", FileFindings, []string{"DQ4"}},
		{"RQ-001-x/stage4-findings.md", FileFindings, []string{"DQ4"}},
		{"RQ-001-x/03-data/DATA-DICTIONARY.md", FileDictionary, nil},
		{"RQ-001-x/features.parquet", "", nil},
		{"notes.md", "", nil},
	}
	for _, tt := range tests {
		if got := d.FileKind(tt.path); got != tt.kind {
			t.Errorf("FileKind(%q) = %q, want %q", tt.path, got, tt.kind)
		}
		if got := AutoGates(tt.path, d); !reflect.DeepEqual(got, tt.auto) {
			t.Errorf("AutoGates(%q) = %q, want %q", tt.path, got, tt.auto)
		}
	}
	patterns := []struct {
		pattern, path string
		want          bool
	}{
		{"RQ-*/03-data/features*.csv", "proj/RQ-001/03-data/features.csv", true},
		{"**/RQ-*/features.csv", "RQ-001/features.csv", true},
		{"RQ-*/03-data/features*.csv", "features.csv", false},
		{"RQ-*/03-data/features*.csv", "RQ-001/04-data/features.csv", false},
	}
	for _, p := range patterns {
		if got := MatchPattern(p.pattern, p.path); got != p.want {
			t.Errorf("MatchPattern(%q, %q) = %v", p.pattern, p.path, got)
		}
	}
}

func TestFindDictionary(t *testing.T) {
	root := t.TempDir()
	rq := filepath.Join(root, "RQ-001-x")
	writeFile(t, filepath.Join(rq, "DATA-DICTIONARY.md"), "# dd")
	feats := filepath.Join(rq, "03-data", "features.csv")
	writeFile(t, feats, "a\n1\n")
	got, err := FindDictionary(feats, root, generic(t))
	if err != nil || got != filepath.Join(rq, "DATA-DICTIONARY.md") {
		t.Fatalf("FindDictionary = %q, %v", got, err)
	}
	_, err = FindDictionary(filepath.Join(root, "other", "features.csv"), root, generic(t))
	if err == nil || !strings.HasPrefix(err.Error(), "find data dictionary: no file matching DATA-DICTIONARY.md") {
		t.Errorf("err %v", err)
	}
}

// TestComputeRaise: a write that raises the compute allowance is told
// apart from one that keeps or lowers it.
func TestComputeRaise(t *testing.T) {
	for _, c := range []struct{ old, proposed, want string }{
		{``, `{"domain": "generic", "compute": {"max_time": "01:00:00", "max_gpu_hours": 2}}`,
			"compute.max_time from none to 01:00:00 and compute.max_gpu_hours from 0 to 2"},
		{`{"domain": "generic", "compute": {"max_time": "01:00:00", "max_gpu_hours": 2}}`,
			`{"domain": "generic", "compute": {"max_time": "90", "max_gpu_hours": 2}}`, "compute.max_time from 01:00:00 to 01:30:00"},
		{`{"domain": "generic", "compute": {"max_time": "01:00:00", "max_gpu_hours": 2}}`,
			`{"domain": "generic", "compute": {"max_time": "00:30:00"}}`, ""},
		{`{"domain": "generic", "compute": {"max_time": "01:00:00"}}`,
			`{"domain": "generic", "compute": {"max_time": "01:00:00"}, "dq2": {"min_auc": 0.7}}`, ""},
		{`{"domain": "generic"}`, `{"domain": `, ""},
	} {
		if got := ComputeRaise([]byte(c.old), []byte(c.proposed)); got != c.want {
			t.Errorf("ComputeRaise(%s, %s) = %q, want %q", c.old, c.proposed, got, c.want)
		}
	}
}
