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
)

// artifactBench times post-tool-use on a `vibe init` project holding a
// features table of 10,000 rows and 50 columns, documented in the data
// dictionary: once for calls that change no artifact (the stat scan
// alone), once for a Bash call after which the table was rewritten, so the
// worker runs DQ1, DD0 and DC0 on it before it answers. The empty Go
// binary is timed in the same scenario for the ratio.
func artifactBench(rep *report, bin, empty, fixtures string, runs int) error {
	home, project, env, cleanup, err := initProject(bin, "vibe-artifacts-")
	if err != nil {
		return err
	}
	defer cleanup()
	data := filepath.Join(project, ".vibe-science", "RQ-001", "02-data")
	table := filepath.Join(data, "processed", "features.csv")
	cols := []string{"site_id"}
	for i := 1; i < 49; i++ {
		cols = append(cols, fmt.Sprintf("f%02d", i))
	}
	cols = append(cols, "label")
	var dict strings.Builder
	dict.WriteString("# Data dictionary\n\n## processed/features.csv\n\n| column | type | unit | description |\n|---|---|---|---|\n")
	for _, c := range cols {
		fmt.Fprintf(&dict, "| %s | float | - | feature %s |\n", c, c)
	}
	if err := os.WriteFile(filepath.Join(data, "DATA-DICTIONARY.md"), []byte(dict.String()), 0o644); err != nil {
		return err
	}
	write := func(seed int64) error {
		r := rand.New(rand.NewSource(seed))
		var b strings.Builder
		b.WriteString(strings.Join(cols, ","))
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
	if err := write(1); err != nil {
		return err
	}
	inputs, err := loadInputs(fixtures, project)
	if err != nil {
		return err
	}
	stop, err := startWorker(bin, home)
	if err != nil {
		return err
	}
	defer stop()
	post := filepath.Join(bin, "vibe-post-tool-use")
	rep.Samples = append(rep.Samples, measure("empty Go binary", NoChangeScenario, []string{empty}, env, func(int) []byte { return nil }, runs))
	rep.Samples = append(rep.Samples, measure("vibe-post-tool-use", NoChangeScenario, []string{post}, env, inputs["vibe-post-tool-use"], runs))
	bash := func(i int) []byte {
		if err := write(int64(i + 2)); err != nil {
			fmt.Fprintln(os.Stderr, "bench: rewrite the table:", err)
		}
		return []byte(fmt.Sprintf(`{"session_id":"bench-artifacts","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash",`+
			`"tool_input":{"command":"python3 03-analysis/extract_features.py"},"tool_response":{"stdout":"wrote 10000 rows","stderr":""},`+
			`"tool_use_id":"toolu_rewrite_%d","duration_ms":900}`, project, i))
	}
	rewrite := measure("vibe-post-tool-use", RewriteScenario, []string{post}, env, bash, max(runs/4, 20))
	rep.Samples = append(rep.Samples, rewrite)
	return nil
}
