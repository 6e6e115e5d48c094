package gate

import "strings"

// Kind says how a gate is enforced.
type Kind string

// The three kinds of gate.
const (
	// KindCode gates are computed by vibe from the researcher's files.
	KindCode Kind = "code"
	// KindSchema gates pass when their JSON artifact validates against its
	// schema under skill/vibe/schemas/.
	KindSchema Kind = "schema"
	// KindPrompt gates are performed by the agent and audited by Reviewer 2;
	// no code can compute them.
	KindPrompt Kind = "prompt"
)

// Gate is one entry of the registry: what the gate is for, when it fires,
// its generic thresholds and how it is run and enforced.
type Gate struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Purpose string `json:"purpose"`
	Kind    Kind   `json:"kind"`
	// Trigger says in words when the gate fires.
	Trigger string `json:"trigger"`
	// Thresholds holds the generic defaults; for DQ1–DQ4 the keys are the
	// domain-config keys of the same block, so a domain's value replaces
	// the one shown here.
	Thresholds map[string]any `json:"thresholds,omitempty"`
	// Command runs the gate; empty for prompt gates, which no code runs.
	Command string `json:"command,omitempty"`
	// Schema is the schema file under skill/vibe/schemas/ (schema gates only).
	Schema string `json:"schema,omitempty"`
	// Enforced lists, comma-separated, where code enforces the gate:
	// PreToolUse, PostToolUse, Stop, CI, or "prompt" when nothing does.
	Enforced string `json:"enforced"`
}

// registry is ordered as the methodology presents the gates: pipeline,
// literature, decision, tree, brainstorm, stage, data quality, review.
var registry = []Gate{
	{ID: "G0", Name: "Input sanity", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "A dataset that loaded wrong is caught before anything is built on it: it loads, counts are integers, no NaN or Inf.",
		Trigger:    "after every data load",
		Thresholds: map[string]any{"max_nan": 0, "max_inf": 0}},
	{ID: "G1", Name: "Schema and types", Kind: KindPrompt, Enforced: "prompt",
		Purpose: "The columns mean what the analysis assumes: required keys present, categorical keys stored as categories.",
		Trigger: "after G0, before any transformation"},
	{ID: "G2", Name: "Design justification", Kind: KindPrompt, Enforced: "prompt",
		Purpose: "Batch key, covariates and feature selection are each justified and logged.",
		Trigger: "before training or fitting a model"},
	{ID: "G3", Name: "Training integrity", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "A model that did not train properly yields no findings: converged, no NaN, no overfitting, several seeds.",
		Trigger:    "after each training run",
		Thresholds: map[string]any{"min_seeds": 2}},
	{ID: "G4", Name: "Metrics decision", Kind: KindPrompt, Enforced: "prompt",
		Purpose: "A metric used for a decision is compared with a baseline and its trade-offs are stated.",
		Trigger: "when a metric is used to make a decision"},
	{ID: "G5", Name: "Artifact completeness", Kind: KindPrompt, Enforced: "prompt",
		Purpose: "Every run leaves a manifest, a report, its figures and its metrics.",
		Trigger: "at the end of each run"},
	{ID: "G6", Name: "Figure check by a vision model", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "Figures show what the text says (optional; needs a vision-capable model).",
		Trigger:    "when figures are produced and a vision model is available",
		Thresholds: map[string]any{"min_score": 0.6}},

	{ID: "L-1", Name: "Literature before direction", Kind: KindCode, Enforced: "PreToolUse, PostToolUse, CI",
		Purpose:    "No research direction is written before prior art was searched in the session.",
		Trigger:    "PreToolUse on a write that sets a research direction, PostToolUse on a direction file any tool changed; the observer warns after cycles without a search",
		Thresholds: map[string]any{"min_searches": 1, "warn_after_cycles": 3},
		Command:    "vibe gate check"},
	{ID: "L0", Name: "Source validity", Kind: KindSchema, Enforced: "CI",
		Purpose: "Every source is real (DOIs verified) and nothing from model memory is presented as data.",
		Trigger: "before a review scope closes and before a claim citing sources is promoted",
		Command: "vibe gate run L0 --artifact FILE", Schema: "source-validity.schema.json"},
	{ID: "L1", Name: "Search coverage", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "The search looked in several databases with several strategies and wrote down what it did not find.",
		Trigger:    "at the end of a literature phase",
		Thresholds: map[string]any{"min_databases": 2, "min_strategies": 3}},
	{ID: "L2", Name: "Review completeness", Kind: KindSchema, Enforced: "CI",
		Purpose: "A review scope closes only when every finding was reviewed and every fatal flaw resolved.",
		Trigger: "when a review scope closes",
		Command: "vibe gate run L2 --artifact FILE", Schema: "review-completeness.schema.json"},

	{ID: "D0", Name: "Decision log", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "A decision that changes direction, data or method is logged with its alternatives and whether it can be reversed.",
		Trigger:    "any decision that changes the direction, the data or the method",
		Thresholds: map[string]any{"min_alternatives": 2}},
	{ID: "D1", Name: "Claim promotion", Kind: KindSchema, Enforced: "PreToolUse, PostToolUse, CI",
		Purpose:    "A claim is promoted only after it survived attack: evidence, confounder harness, falsification attempts, and a review.",
		Trigger:    "PreToolUse when a Write or Edit of the claim ledger promotes a claim, PostToolUse when the ledger on disk does, whatever changed it",
		Thresholds: map[string]any{"min_evidence_quality": 0.2, "min_falsification_attempts": 3},
		Command:    "vibe gate run D1 --claim ID --artifact FILE", Schema: "claim-promotion.schema.json"},
	{ID: "D2", Name: "Research-question conclusion", Kind: KindSchema, Enforced: "CI",
		Purpose: "A research question is closed only with every criterion addressed and an R2 ACCEPT.",
		Trigger: "before a research question is declared answered",
		Command: "vibe gate run D2 --artifact FILE", Schema: "rq-conclusion.schema.json"},

	{ID: "T0", Name: "Node validity", Kind: KindPrompt, Enforced: "prompt",
		Purpose: "A tree node has a valid type, an existing parent and a plan.",
		Trigger: "before a tree node is created"},
	{ID: "T1", Name: "Debug limit", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "A broken node gets a bounded number of debug attempts, then it is pruned.",
		Trigger:    "each debug attempt on a buggy node",
		Thresholds: map[string]any{"max_debug_attempts": 3}},
	{ID: "T2", Name: "Branch diversity", Kind: KindPrompt, Enforced: "prompt",
		Purpose: "Sibling nodes differ in at least one substantive parameter.",
		Trigger: "when a sibling node is created"},
	{ID: "T3", Name: "Tree health", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "The tree keeps exploring (LAW 8) and a failing tree stops early.",
		Trigger:    "every few cycles and after a prune",
		Thresholds: map[string]any{"min_good_ratio": 0.2, "min_exploration_ratio": 0.2, "fail_exploration_ratio": 0.1}},

	{ID: "B0", Name: "Brainstorm quality", Kind: KindSchema, Enforced: "CI",
		Purpose:    "No cycle starts before the question is worth asking: gaps, data availability, a falsifiable hypothesis, user approval.",
		Trigger:    "end of the brainstorm phase, before the first cycle",
		Thresholds: map[string]any{"min_gaps": 3, "min_data_availability": 0.5},
		Command:    "vibe gate run B0 --artifact FILE", Schema: "brainstorm-quality.schema.json"},

	{ID: "S1", Name: "Stage 1 exit", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "One approach works, confirmed on more than one seed, before anything is tuned.",
		Trigger:    "end of stage 1",
		Thresholds: map[string]any{"min_good_nodes": 1, "min_seeds": 2}},
	{ID: "S2", Name: "Stage 2 exit", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "Tuning improved the metric on more than one configuration.",
		Trigger:    "end of stage 2",
		Thresholds: map[string]any{"min_configurations": 2}},
	{ID: "S3", Name: "Stage 3 exit", Kind: KindPrompt, Enforced: "prompt",
		Purpose:    "Every agenda item was attempted, with enough draft nodes.",
		Trigger:    "end of stage 3",
		Thresholds: map[string]any{"min_draft_nodes": 3}},
	{ID: "S4", Name: "Stage 4 exit", Kind: KindSchema, Enforced: "CI",
		Purpose:    "The result survives ablations, several seeds and the confounder harness.",
		Trigger:    "end of stage 4",
		Thresholds: map[string]any{"min_seeds": 3},
		Command:    "vibe gate run S4 --artifact FILE", Schema: "stage4-exit.schema.json"},
	{ID: "S5", Name: "Stage 5 exit", Kind: KindSchema, Enforced: "CI",
		Purpose: "Nothing disputed or unreviewed reaches the synthesis: R2 ACCEPT, D2 passed, no DISPUTED claim.",
		Trigger: "before the final synthesis",
		Command: "vibe gate run S5 --artifact FILE", Schema: "stage5-exit.schema.json"},

	{ID: "DQ1", Name: "Features after extraction", Kind: KindCode, Enforced: "PostToolUse, CI",
		Purpose: "Constant, mostly missing and label-leaking features are caught before a model sees them, plus the domain's own column checks and cross-checks; without any name in the config, two columns that agree on most rows but not all (a computed value against a reported one), a missing-value code or point mass set apart from a column's values, and folds of too few groups (the grouping column inferred from its values) are caught too; against the previous version of the same table, a column whose zero, missing or code share moved sharply or that turned constant fails; after a script, a table that keeps few of the groups of the table it was made from fails.",
		Trigger: "PostToolUse when a features table (CSV or TSV) matching the domain's features patterns changed, whatever tool changed it (a Write, a script run through Bash)",
		Thresholds: map[string]any{"allowed_missing_fraction": 0.5, "leakage_corr_threshold": 0.95,
			"min_samples": 10, "max_share_change": 0.3, "pairs.min_agreement": 0.9, "pairs.min_kappa": 0.8,
			"point_mass.min_share": 0.02},
		Command: "vibe gate run DQ1 --features FILE"},
	{ID: "DQ2", Name: "Model after training", Kind: KindCode, Enforced: "PostToolUse, CI",
		Purpose: "A model beats the trivial baseline, does not hang on one feature, is stable across folds, and, when the metrics state groups, rests on enough groups per fold and on most of the groups rather than a subsample.",
		Trigger: "PostToolUse when a metrics JSON matching the domain's metrics patterns changed, whatever tool changed it",
		Thresholds: map[string]any{"min_auc": 0.55, "min_r2": 0.05, "max_dominance": 0.5,
			"max_fold_cv": 0.5, "min_groups_per_fold": 3, "min_group_share_kept": 0.8},
		Command: "vibe gate run DQ2 --metrics FILE"},
	{ID: "DQ3", Name: "Calibration", Kind: KindCode, Enforced: "PostToolUse, CI",
		Purpose:    "Coverage is close to nominal, not suspiciously perfect, and rests on enough points.",
		Trigger:    "PostToolUse when calibration results matching the domain's calibration patterns changed, whatever tool changed it",
		Thresholds: map[string]any{"max_coverage_gap": 0.1, "max_coverage": 0.999, "min_n": 30},
		Command:    "vibe gate run DQ3 --calibration FILE"},
	{ID: "DQ4", Name: "Findings match their data", Kind: KindCode, Enforced: "PreToolUse, PostToolUse, CI",
		Purpose:    "Every number reported in a findings file is a number of its source JSON and every headline value of the JSON is reported (single source of truth); a strong or surprising claim comes with alternative explanations; finding ids agree between the findings, their JSON, the progress log and the ledger; misused domain terms are flagged.",
		Trigger:    "PreToolUse on a write to a findings file (the proposed content of a Write or Edit, or the text a shell command spells out, is checked); PostToolUse when a findings file or its source JSON changed any other way",
		Thresholds: map[string]any{"max_unmatched": 0, "rounding": "round", "percent_of_fraction": true, "surprising_effect": 5},
		Command:    "vibe gate run DQ4 --findings FILE"},
	{ID: "DD0", Name: "Data dictionary", Kind: KindCode, Enforced: "PostToolUse, CI",
		Purpose: "No column is used before its meaning is written in the data dictionary.",
		Trigger: "PostToolUse when a features table or its data dictionary changed; vibe gate check",
		Command: "vibe gate run DD0 --dictionary FILE --features FILE"},
	{ID: "DC0", Name: "Design compliance", Kind: KindCode, Enforced: "PostToolUse, CI",
		Purpose: "What was executed matches what was designed, or each difference is logged with its reason.",
		Trigger: "PostToolUse when a research question's design file changed or a new data file appeared in its data folder; before promotion; vibe gate check",
		Command: "vibe gate run DC0 --design FILE --executed FILE"},

	{ID: "V0", Name: "Reviewer vigilance", Kind: KindSchema, Enforced: "CI",
		Purpose:    "A review is trusted only after it caught the faults seeded in it.",
		Trigger:    "after every forced R2 review, before its verdict is used",
		Thresholds: map[string]any{"min_rms": 0.8, "max_far": 0.1, "max_attempts": 3},
		Command:    "vibe gate run V0 --artifact FILE", Schema: "vigilance-check.schema.json"},
	{ID: "J0", Name: "Judge score", Kind: KindSchema, Enforced: "CI",
		Purpose: "The reviewer is itself reviewed on the judge rubric.",
		Trigger: "after V0 passes on a forced review",
		Thresholds: map[string]any{"min_total": 12, "max_total": 18, "min_dimension": 1,
			"min_counter_evidence": 2, "max_consecutive_failures": 2},
		Command: "vibe gate run J0 --artifact FILE", Schema: "judge-report.schema.json"},
}

// Registry returns every gate of the methodology in the registry's order
// (pipeline, literature, decision, tree, brainstorm, stage, data quality,
// review). The slice and its maps are copies: callers may change them.
func Registry() []Gate {
	out := make([]Gate, len(registry))
	for i, g := range registry {
		out[i] = copyGate(g)
	}
	return out
}

// Lookup finds a gate by id, ignoring case; "L-1+" (the blueprint's name for
// the enforced L-1) is accepted for L-1.
func Lookup(id string) (Gate, bool) {
	id = strings.TrimSpace(id)
	if strings.EqualFold(id, "L-1+") {
		id = "L-1"
	}
	for _, g := range registry {
		if strings.EqualFold(g.ID, id) {
			return copyGate(g), true
		}
	}
	return Gate{}, false
}

func copyGate(g Gate) Gate {
	if g.Thresholds != nil {
		t := make(map[string]any, len(g.Thresholds))
		for k, v := range g.Thresholds {
			t[k] = v
		}
		g.Thresholds = t
	}
	return g
}

// schemaGate returns the gate whose artifact the schema file validates.
func schemaGate(file string) (string, bool) {
	for _, g := range registry {
		if g.Schema != "" && g.Schema == file {
			return g.ID, true
		}
	}
	return "", false
}
