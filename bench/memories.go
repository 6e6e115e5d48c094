package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// writeMemories writes n memories as `vibe memory import` reads them (one
// JSON object a line) to path: research-session text of several domains
// and every kind, built from templates with a fixed seed (the same n gives
// the same memories), dated over the year before now, fully trusted. They
// are the texts and dates internal/recall's Fill gives its tests.
func writeMemories(path string, n int, now time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	r := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	for i := 0; i < n; i++ {
		t := memoryTemplates[r.IntN(len(memoryTemplates))]
		text := t.text
		for strings.Contains(text, "{") {
			open := strings.IndexByte(text, '{')
			end := open + strings.IndexByte(text[open:], '}')
			slot := memorySlots[text[open+1:end]]
			text = text[:open] + slot[r.IntN(len(slot))] + text[end+1:]
		}
		// The suffix keeps every text distinct, as real memories are.
		text += fmt.Sprintf(" (run %d)", i+1)
		at := now.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		if err := enc.Encode(map[string]any{"text": text, "kind": t.kind, "ref": fmt.Sprintf("bench:%d", i+1),
			"created_at": at.UnixMilli(), "trust": 1}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// importMemories runs `vibe memory import --json FILE --project project`
// with env and returns its report.
func importMemories(bin string, env []string, project, file string) (map[string]any, error) {
	cmd := exec.Command(filepath.Join(bin, "vibe"), "memory", "import", "--json", "--project", project, file)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("vibe memory import %s: %v: %s", file, err, stderr.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("vibe memory import %s: %v: %s", file, err, out)
	}
	return rep, nil
}

var memoryTemplates = []struct{ kind, text string }{
	{"decision", "Decided to {decide} for the {dataset} analysis because {reason}."},
	{"decision", "Switched the {model} baseline to {method} after {reason}."},
	{"gate_failure", "Gate {gate} failed on claim C-{num}: {metric} was {value}, outside the domain range."},
	{"gate_failure", "Gate {gate} blocked the promotion of C-{num}: no literature search preceded the new direction on {topic}."},
	{"claim_event", "Claim C-{num} KILLED ({kill}): the {topic} effect vanished after controlling for {confound}."},
	{"claim_event", "Claim C-{num} PROMOTED to tier 2: {topic} correlates with {metric} across {dataset}."},
	{"claim_event", "Claim C-{num} VERIFIED by R2: {topic} holds on the held-out {dataset} split."},
	{"seed", "Seed S-{num}: unexpected {topic} pattern in {dataset}; discriminating test is {method} on a fresh split."},
	{"narrative", "Session summary: loaded {dataset}, ran {method}, {metric} reached {value}; open question about {topic}."},
	{"narrative", "Worked on {topic}: two claims reviewed, gate {gate} re-run, next step is {decide}."},
	{"note", "Note: {dataset} uses {reason}; check before comparing {metric} across batches."},
	{"note", "Reminder from the PI: report {metric} with confidence intervals for every {topic} comparison."},
	{"action", "Ran {method} on {dataset} with seed {num}; wrote results/{topic}.csv."},
	{"action", "Downloaded {dataset} supplementary tables and checked their SHA-256."},
	{"failure", "Bash: python scripts/{topic}.py --data {dataset} failed: exit status 1, KeyError on the {metric} column."},
	{"pattern", "Pattern: {metric} drops whenever {reason}; seen again on {dataset}."},
	{"insight", "Insight: the {topic} signal in {dataset} is mostly {confound}, which {method} makes visible."},
	{"hypothesis", "Hypothesis: {topic} depends on {confound}; {method} on {dataset} would tell."},
	{"open_thread", "Open thread: why does {metric} reach {value} on {dataset}? Check {reason} next."},
}

var memorySlots = map[string][]string{
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
