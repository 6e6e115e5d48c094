package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Fill inserts n memories into project in one transaction, for benchmarks:
// research-session text of several domains and every kind, built from
// templates with a fixed seed (the same n gives the same memories), dated
// over the year before now. It skips conflict detection, which a bulk load
// does not need (the memories are stored as checked, so the worker does
// not check them either), and queues embeddings like any other memory.
func Fill[W Writes](ctx context.Context, st Memories[W], project string, n int, now time.Time) error {
	r := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	return st.Tx(ctx, func(tx W) error {
		for i := 0; i < n; i++ {
			t := fillTemplates[r.IntN(len(fillTemplates))]
			text := t.text
			for strings.Contains(text, "{") {
				open := strings.IndexByte(text, '{')
				end := open + strings.IndexByte(text[open:], '}')
				slot := fillSlots[text[open+1:end]]
				text = text[:open] + slot[r.IntN(len(slot))] + text[end+1:]
			}
			// The suffix keeps every text distinct, as real memories are.
			text += fmt.Sprintf(" (run %d)", i+1)
			at := now.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, Kind: t.kind, Text: text,
				Ref: fmt.Sprintf("bench:%d", i+1), Source: "bench", Trust: record.Trust(1), At: at, Checked: true}); err != nil {
				return fmt.Errorf("fill memory %d: %w", i+1, err)
			}
		}
		return nil
	})
}

var fillTemplates = []struct{ kind, text string }{
	{record.KindDecision, "Decided to {decide} for the {dataset} analysis because {reason}."},
	{record.KindDecision, "Switched the {model} baseline to {method} after {reason}."},
	{record.KindGateFailure, "Gate {gate} failed on claim C-{num}: {metric} was {value}, outside the domain range."},
	{record.KindGateFailure, "Gate {gate} blocked the promotion of C-{num}: no literature search preceded the new direction on {topic}."},
	{record.KindClaimEvent, "Claim C-{num} KILLED ({kill}): the {topic} effect vanished after controlling for {confound}."},
	{record.KindClaimEvent, "Claim C-{num} PROMOTED to tier 2: {topic} correlates with {metric} across {dataset}."},
	{record.KindClaimEvent, "Claim C-{num} VERIFIED by R2: {topic} holds on the held-out {dataset} split."},
	{record.KindSeed, "Seed S-{num}: unexpected {topic} pattern in {dataset}; discriminating test is {method} on a fresh split."},
	{record.KindNarrative, "Session summary: loaded {dataset}, ran {method}, {metric} reached {value}; open question about {topic}."},
	{record.KindNarrative, "Worked on {topic}: two claims reviewed, gate {gate} re-run, next step is {decide}."},
	{record.KindNote, "Note: {dataset} uses {reason}; check before comparing {metric} across batches."},
	{record.KindNote, "Reminder from the PI: report {metric} with confidence intervals for every {topic} comparison."},
	{record.KindAction, "Ran {method} on {dataset} with seed {num}; wrote results/{topic}.csv."},
	{record.KindAction, "Downloaded {dataset} supplementary tables and checked their SHA-256."},
	{record.KindFailure, "Bash: python scripts/{topic}.py --data {dataset} failed: exit status 1, KeyError on the {metric} column."},
	{record.KindPattern, "Pattern: {metric} drops whenever {reason}; seen again on {dataset}."},
	{record.KindInsight, "Insight: the {topic} signal in {dataset} is mostly {confound}, which {method} makes visible."},
	{record.KindHypothesis, "Hypothesis: {topic} depends on {confound}; {method} on {dataset} would tell."},
	{record.KindOpenThread, "Open thread: why does {metric} reach {value} on {dataset}? Check {reason} next."},
}

var fillSlots = map[string][]string{
	"decide": {"use GUIDE-seq reads only", "drop batch 3", "normalise with scran pooling", "fix the random seed",
		"stratify by chromosome", "report AUROC and AUPRC", "freeze the detector calibration", "re-run alignment with bowtie2"},
	"dataset": {"CHANGE-seq", "GUIDE-seq", "CIRCLE-seq", "the 10x PBMC 3k", "the Tabula Muris", "ImageNet-C",
		"the CMS open data", "the ring-resonator sweep", "the waveguide loss scans", "the held-out benchmark"},
	"reason": {"batch effects dominated the first PCA axis", "the detector dead time was miscalibrated",
		"leakage between train and test folds", "the mismatch distribution was bimodal", "pile-up contaminated the trigger",
		"too few cells per cluster", "the reviewers asked for it"},
	"model":  {"logistic", "gradient-boosting", "transformer", "random-forest", "CNN"},
	"method": {"permutation testing", "a mixed-effects model", "bootstrap resampling", "Harmony integration", "a likelihood fit", "cross-validation"},
	"gate":   {"DQ1", "DQ2", "DQ3", "DQ4", "L-1", "DC0", "DD0", "G2"},
	"num":    {"3", "7", "12", "19", "24", "31", "42", "57", "63", "88", "101", "140"},
	"metric": {"mean mismatch", "R²", "AUROC", "the Q factor", "the invariant mass resolution", "silhouette width", "ECE", "off-target rate"},
	"value":  {"0.03", "0.41", "0.88", "1.7", "9.2", "12,000", "0.005"},
	"topic": {"off-target cleavage", "guide GC content", "ring resonance shift", "thermal drift", "Higgs-like excess",
		"jet energy scale", "T-cell exhaustion", "doublet rate", "label noise", "calibration drift", "distribution shift"},
	"kill":     {"CONFOUNDED", "ARTIFACT", "INSUFFICIENT_EVIDENCE", "PREMATURE", "LOGICALLY_FALSE"},
	"confound": {"sequencing depth", "chromatin accessibility", "temperature", "pile-up", "batch", "annotator identity"},
}
