package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// Scenario names of the artifact-gate bench.
const (
	NoChangeScenario = "worker running, features table 10k x 50 in place, call changes no artifact"
	RewriteScenario  = "worker running, a script rewrote the 10k x 50 features table (DQ1, DD0, DC0)"
	// NoChange50kScenario is NoChangeScenario in a project that also holds
	// 50,000 files outside its research folders (outsideResearch).
	NoChange50kScenario = "worker running, the same project with 50,000 files outside its research folders, call changes no artifact"
	// NoWorker50kScenario and NoWorkerSmallScenario are the same call
	// without the worker: every call is the tracker's first look.
	NoWorkerSmallScenario = "no worker, features table 10k x 50 in place, call changes no artifact"
	NoWorker50kScenario   = "no worker, the same project with 50,000 files outside its research folders, call changes no artifact"
)

// artifactBench times post-tool-use on a `vibe init` project holding a
// features table of 10,000 rows and 50 columns, documented in the data
// dictionary: once for calls that change no artifact (the stat scan
// alone), once for a Bash call after which the table was rewritten, so the
// worker runs DQ1, DD0 and DC0 on it before it answers. The empty Go
// binary is timed in the same scenario for the ratio.
func artifactBench(rep *report, bin, empty, fixtures string, runs int) error {
	home, project, env, cleanup, err := artifactProject(bin, "vibe-artifacts-", false)
	if err != nil {
		return err
	}
	defer cleanup()
	table := filepath.Join(project, ".vibe-science", "RQ-001", "02-data", "processed", "features.csv")
	inputs, err := loadInputs(fixtures, project)
	if err != nil {
		return err
	}
	post := filepath.Join(bin, "vibe-post-tool-use")
	rep.Samples = append(rep.Samples, measure("empty Go binary", NoWorkerSmallScenario, []string{empty}, env, func(int) []byte { return nil }, runs/4))
	rep.Samples = append(rep.Samples, measure("vibe-post-tool-use", NoWorkerSmallScenario, []string{post}, env, inputs["vibe-post-tool-use"], runs/4))
	stop, err := startWorker(bin, home)
	if err != nil {
		return err
	}
	defer stop()
	rep.Samples = append(rep.Samples, measure("empty Go binary", NoChangeScenario, []string{empty}, env, func(int) []byte { return nil }, runs))
	rep.Samples = append(rep.Samples, measure("vibe-post-tool-use", NoChangeScenario, []string{post}, env, inputs["vibe-post-tool-use"], runs))
	bash := func(i int) []byte {
		if err := writeFeatures(table, int64(i+2)); err != nil {
			fmt.Fprintln(os.Stderr, "bench: rewrite the table:", err)
		}
		return []byte(fmt.Sprintf(`{"session_id":"bench-artifacts","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash",`+
			`"tool_input":{"command":"python3 03-analysis/extract_features.py"},"tool_response":{"stdout":"wrote 10000 rows","stderr":""},`+
			`"tool_use_id":"toolu_rewrite_%d","duration_ms":900}`, project, i))
	}
	rewrite := measure("vibe-post-tool-use", RewriteScenario, []string{post}, env, bash, max(runs/4, 20))
	rep.Samples = append(rep.Samples, rewrite)
	stop()

	// The same project beside 50,000 files of a code base: the tracker
	// never walks them, so the call costs what it costs without them.
	home, project, env, cleanup50k, err := artifactProject(bin, "vibe-artifacts-50k-", true)
	if err != nil {
		return err
	}
	defer cleanup50k()
	if inputs, err = loadInputs(fixtures, project); err != nil {
		return err
	}
	rep.Samples = append(rep.Samples, measure("empty Go binary", NoWorker50kScenario, []string{empty}, env, func(int) []byte { return nil }, runs/4))
	rep.Samples = append(rep.Samples, measure("vibe-post-tool-use", NoWorker50kScenario, []string{post}, env, inputs["vibe-post-tool-use"], runs/4))
	stop50k, err := startWorker(bin, home)
	if err != nil {
		return err
	}
	defer stop50k()
	rep.Samples = append(rep.Samples, measure("empty Go binary", NoChange50kScenario, []string{empty}, env, func(int) []byte { return nil }, runs))
	rep.Samples = append(rep.Samples, measure("vibe-post-tool-use", NoChange50kScenario, []string{post}, env, inputs["vibe-post-tool-use"], runs))
	if small, big := find(*rep, "vibe-post-tool-use", NoChangeScenario), find(*rep, "vibe-post-tool-use", NoChange50kScenario); small != nil && big != nil {
		rep.Ratios["vibe-post-tool-use p50 with 50k files outside research minus without, ms (worker running)"] = round2(big.P50 - small.P50)
	}
	if small, big := find(*rep, "vibe-post-tool-use", NoWorkerSmallScenario), find(*rep, "vibe-post-tool-use", NoWorker50kScenario); small != nil && big != nil {
		rep.Ratios["vibe-post-tool-use p50 with 50k files outside research minus without, ms (no worker)"] = round2(big.P50 - small.P50)
	}
	return nil
}

// artifactProject makes a `vibe init` project holding a features table of
// 10,000 rows and 50 columns, documented in its data dictionary; with
// outside, also 50,000 files beside the research (outsideResearch).
func artifactProject(bin, prefix string, outside bool) (home, project string, env []string, cleanup func(), err error) {
	home, project, env, cleanup, err = initProject(bin, prefix)
	if err != nil {
		return "", "", nil, nil, err
	}
	data := filepath.Join(project, ".vibe-science", "RQ-001", "02-data")
	var dict strings.Builder
	dict.WriteString("# Data dictionary\n\n## processed/features.csv\n\n| column | type | unit | description |\n|---|---|---|---|\n")
	for _, c := range featureColumns() {
		fmt.Fprintf(&dict, "| %s | float | - | feature %s |\n", c, c)
	}
	err = os.WriteFile(filepath.Join(data, "DATA-DICTIONARY.md"), []byte(dict.String()), 0o644)
	if err == nil {
		err = writeFeatures(filepath.Join(data, "processed", "features.csv"), 1)
	}
	if err == nil && outside {
		err = outsideResearch(project)
	}
	if err != nil {
		cleanup()
		return "", "", nil, nil, err
	}
	return home, project, env, cleanup, nil
}

func featureColumns() []string {
	cols := []string{"site_id"}
	for i := 1; i < 49; i++ {
		cols = append(cols, fmt.Sprintf("f%02d", i))
	}
	return append(cols, "label")
}

// writeFeatures writes the 10k x 50 features table, its values drawn from
// seed.
func writeFeatures(table string, seed int64) error {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.WriteString(strings.Join(featureColumns(), ","))
	b.WriteByte('\n')
	for row := 0; row < 10000; row++ {
		fmt.Fprintf(&b, "s%05d", row)
		for c := 1; c < 49; c++ {
			fmt.Fprintf(&b, ",%.4f", r.Float64())
		}
		fmt.Fprintf(&b, ",%d\n", r.Intn(2))
	}
	os.MkdirAll(filepath.Dir(table), 0o755)
	return os.WriteFile(table, []byte(b.String()), 0o644)
}

// outsideResearch lays 50,000 files beside the project's research, where a
// code base keeps them: a Python package of 200 modules (with JSON and
// Markdown files shaped like metrics and findings, which the hooks must
// never read unless a call writes them), a front end's node_modules, a
// virtual environment and documentation.
func outsideResearch(project string) error {
	type folder struct {
		dir     string
		n, each int
		name    string
		content string
	}
	for _, f := range []folder{
		{"src/pipeline/mod%03d", 200, 90, "part%03d.py", "def f():\n    return 1\n"},
		{"src/pipeline/mod%03d", 200, 5, "metrics%d.json", `{"auc": 0.91, "folds": [0.9, 0.92]}`},
		{"src/pipeline/mod%03d", 200, 5, "FINDINGS%d.md", "# Findings\n\n## F1: x\n\nAUC 0.91.\n"},
		{"web/node_modules/pkg%03d", 100, 100, "f%03d.js", "module.exports = 1\n"},
		{".venv/lib/python3.11/site-packages/p%03d", 100, 100, "m%03d.py", "x = 1\n"},
		{"docs/s%02d", 50, 100, "page%03d.md", "# Page\n\nText 0.5.\n"},
	} {
		for d := 0; d < f.n; d++ {
			dir := filepath.Join(project, filepath.FromSlash(fmt.Sprintf(f.dir, d)))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for i := 0; i < f.each; i++ {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf(f.name, i)), []byte(f.content), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
