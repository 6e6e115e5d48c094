// Command bench measures hook latency the way Claude Code pays it: a fresh
// process per event, stdin JSON in, reply out. It pre-fills a database with
// spine entries, runs every event exactly as hooks.json invokes it (its
// commands and arguments, all matching hooks of an event started at once,
// as Claude Code does) on recorded inputs, many times, in turns with an
// empty Go binary, and reports p50/p95/p99 and the ratio to that binary,
// with `node -e 0` as a second baseline, as a table on stdout and as JSON
// (bench/hooks.json). It also times PostToolUse's observer and artifact
// scenarios, the Codex and Gemini clients, prompt-submit over 50k memories
// and the resting worker.
//
// It measures what a user runs: the built binaries, the worker's socket
// (internal/worker/client) and the `vibe` CLI (memories arrive by `vibe
// memory import`). It writes the database itself only to pre-fill the
// spine (spine.go says why). Measurements of internals are Go benchmarks
// of the packages that own them (KNN, embedding throughput, recall@5, the
// viewer's pages, ...), which `make bench` runs after this program.
// Run it through `make bench`, which builds the binaries first.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vibe-science/vibe/internal/worker/client"
)

type sample struct {
	Name     string  `json:"name"`
	Scenario string  `json:"scenario"`
	Runs     int     `json:"runs"`
	Errors   int     `json:"errors"`
	P50      float64 `json:"p50_ms"`
	P95      float64 `json:"p95_ms"`
	P99      float64 `json:"p99_ms"`
	Mean     float64 `json:"mean_ms"`
}

type report struct {
	When    time.Time      `json:"when"`
	Rows    int            `json:"spine_rows"`
	Runs    int            `json:"runs"`
	CPUs    int            `json:"cpus"`
	Samples []sample       `json:"samples"`
	Ratios  map[string]any `json:"ratios"`
	Extra   map[string]any `json:"extra,omitempty"`
	Idle    []idleSample   `json:"idle,omitempty"` // the resting worker (idle.go)
}

func main() {
	root := flag.String("root", ".", "the plugin root: hooks.json, plugin/guard.sh and bin/")
	bin := flag.String("bin", "bin", "folder with the hook binaries")
	empty := flag.String("empty", "bench/out/empty-go", "the empty Go binary (make build makes it)")
	fixtures := flag.String("fixtures", "testdata/clients/claude-code-2.1.330", "recorded hook inputs")
	runs := flag.Int("runs", 200, "timed runs per command")
	rows := flag.Int("rows", 100000, "spine entries to pre-fill")
	out := flag.String("out", "bench/hooks.json", "JSON report")
	memory := flag.Bool("memory", true, "also measure prompt-submit over 50k imported memories and the embed worker with each model shape (needs python3-onnx for the test models)")
	only := flag.Bool("hooks-only", false, "measure only the hooks as hooks.json runs them (a quick check between full runs)")
	keep := flag.Bool("keep", false, "keep the hooks' VIBE_HOME and project afterwards, to inspect what the hooks recorded")
	onlyMemory := flag.Bool("only-memory", false, "measure only prompt-submit over 50k imported memories and the embed worker (write them to -out, e.g. bench/memory.json)")
	onlyIdle := flag.Bool("only-idle", false, "measure only the resting worker's wake-ups, CPU and memory (write them to -out, e.g. bench/idle.json)")
	onlyArtifacts := flag.Bool("only-artifacts", false, "measure only PostToolUse's artifact scenarios: no change with and without 50k files outside research, the 10k x 50 rewrite (write them to -out)")
	flag.Parse()
	if *onlyIdle {
		if err := idleOnly(*bin, *out); err != nil { // bench/idle.go
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *onlyArtifacts {
		rep := report{When: time.Now().UTC(), Runs: *runs, CPUs: numCPU(), Ratios: map[string]any{}}
		err := artifactBench(&rep, *bin, *empty, *fixtures, *runs)
		if err == nil {
			ratios(&rep)
			err = writeReport(rep, *out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *onlyMemory {
		rep := report{When: time.Now().UTC(), Runs: *runs, CPUs: numCPU(), Ratios: map[string]any{}}
		err := memoryBench(&rep, *bin, *empty, *fixtures, *runs)
		if err == nil {
			err = writeReport(rep, *out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*root, *bin, *empty, *fixtures, *runs, *rows, *out, *memory, *only, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(root, bin, empty, fixtures string, runs, rows int, out string, memory, only, keep bool) error {
	ctx := context.Background()
	home, project, cleanup, err := homeAndProject("vibe-bench-")
	if err != nil {
		return err
	}
	if keep {
		defer fmt.Fprintf(os.Stderr, "kept VIBE_HOME %s and project %s\n", home, project)
	} else {
		defer cleanup()
	}
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	dbPath := filepath.Join(home, "db", "vibe-science.db")
	fmt.Fprintf(os.Stderr, "pre-filling %d spine entries… ", rows)
	t0 := time.Now()
	if err := prefillSpine(ctx, dbPath, project, rows); err != nil { // bench/spine.go
		return err
	}
	fmt.Fprintf(os.Stderr, "%.1fs\n", time.Since(t0).Seconds())

	inputs, err := loadInputs(fixtures, project)
	if err != nil {
		return err
	}
	env := append(os.Environ(), "VIBE_HOME="+home)
	rep := report{When: time.Now().UTC(), Rows: rows, Runs: runs, CPUs: numCPU(), Ratios: map[string]any{}}

	events, err := loadHooksJSON(root, fixtures, project)
	if err != nil {
		return err
	}
	// Claude Code gives every hook the plugin's root and the project the
	// session started in (reference/claude-code-hooks.md, "Environment").
	env = append(env, "CLAUDE_PLUGIN_ROOT="+absRoot(root), "CLAUDE_PROJECT_DIR="+project)

	// Scenario 1: the embed worker runs, as it does once vibe is set up: the
	// hook binaries hand their events to it (internal/relay) and it runs the
	// handlers on the database it holds open. Scenario 2: no worker: each
	// hook runs the handler binary, which opens the database itself and, as
	// the last connection, pays the checkpoint on close.
	for _, scenario := range []string{"worker running", "no worker"} {
		stop := func() {}
		env := env
		if scenario == "worker running" {
			if stop, err = startWorker(bin, home); err != nil {
				return err
			}
		} else {
			// A hook that finds no worker would start one (SessionStart)
			// and ask it for recall: this scenario measures without.
			env = append(slices.Clip(env), "VIBE_WORKER=off")
		}
		if _, err := exec.LookPath("node"); err != nil {
			fmt.Fprintf(os.Stderr, "skip node -e 0: %v\n", err)
		} else {
			rep.Samples = append(rep.Samples, measure("node -e 0", scenario, []string{"node", "-e", "0"}, env, func(int) []byte { return nil }, runs))
		}
		// Every event as an installed plugin's hooks.json runs it, in turns
		// with the empty binary (PreToolUse is the binary alone: its
		// "onFailure": "block" costs nothing here, the client applies it);
		// with the worker, also the pre-tool-use binary through
		// plugin/hook.sh, as the committed hooks.json runs it (an install's
		// first session, a checkout loaded with --plugin-dir), and through
		// plugin/guard.sh, the shell in front of it that Codex and Gemini
		// run (clientBench times their events without it).
		var extra []job
		if scenario == "worker running" {
			extra = []job{
				{"plugin/hook.sh vibe-pre-tool-use (an install's first session)", [][]string{{filepath.Join(root, "plugin", "hook.sh"), "vibe-pre-tool-use"}}, inputs["vibe-pre-tool-use"]},
				{"plugin/guard.sh vibe-pre-tool-use (as Codex and Gemini run it)", [][]string{{filepath.Join(root, "plugin", "guard.sh"), "vibe-pre-tool-use"}}, inputs["vibe-pre-tool-use"]},
			}
		}
		samples := measureInterleaved(scenario, empty, events, extra, root, env, runs)
		hooksJSONRatios(&rep, scenario, samples)
		rep.Samples = append(rep.Samples, samples...)
		stop()
	}
	if only {
		ratios(&rep)
		printTable(rep)
		return nil
	}
	if err := idleBench(&rep, bin); err != nil { // bench/idle.go
		return err
	}
	if err := observerBench(&rep, bin, empty, fixtures, runs); err != nil {
		return err
	}
	if err := artifactBench(&rep, bin, empty, fixtures, runs); err != nil {
		return err
	}
	if err := clientBench(&rep, bin, empty, fixtures, runs); err != nil { // bench/clients.go
		return err
	}
	if memory {
		if err := memoryBench(&rep, bin, empty, fixtures, runs); err != nil {
			return err
		}
	}
	ratios(&rep)
	return writeReport(rep, out)
}

// writeReport prints rep's table and writes it as JSON to out.
func writeReport(rep report, out string) error {
	printTable(rep)
	raw, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, append(raw, '\n'), 0o644)
}

// waitForSocket waits until the worker answers on its socket.
func waitForSocket(socket string, limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := client.GetHealth(ctx, socket)
		cancel()
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("the worker did not answer on %s within %v", socket, limit)
}

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(string(out), &n)
	return n
}

// measure runs argv runs times after a warm-up and returns percentiles of
// the wall time from start to exit.
func measure(name, scenario string, argv, env []string, input func(int) []byte, runs int) sample {
	s := sample{Name: name, Scenario: scenario, Runs: runs}
	warm := runs / 10
	if warm < 5 {
		warm = 5
	}
	var ds []float64
	for i := 0; i < warm+runs; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(input(i))
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil || strings.Contains(stdout.String(), `"systemMessage"`) {
			if i >= warm {
				s.Errors++
			}
			if s.Errors == 1 && i >= warm {
				fmt.Fprintf(os.Stderr, "%s: %v %s\n", name, err, stdout.String())
			}
		}
		if i >= warm {
			ds = append(ds, float64(d.Microseconds())/1000)
		}
	}
	s = percentiles(name, scenario, runs, s.Errors, ds)
	fmt.Fprintf(os.Stderr, "%-22s %-16s p50 %6.2f ms\n", name, scenario, s.P50)
	return s
}

// percentiles summarises the timed runs ds (milliseconds).
func percentiles(name, scenario string, runs, errors int, ds []float64) sample {
	s := sample{Name: name, Scenario: scenario, Runs: runs, Errors: errors}
	sort.Float64s(ds)
	pct := func(p float64) float64 { return ds[int(p*float64(len(ds)-1)+0.5)] }
	s.P50, s.P95, s.P99 = pct(0.50), pct(0.95), pct(0.99)
	var sum float64
	for _, d := range ds {
		sum += d
	}
	s.Mean = sum / float64(len(ds))
	return s
}

func find(rep report, name, scenario string) *sample {
	for i := range rep.Samples {
		if rep.Samples[i].Name == name && rep.Samples[i].Scenario == scenario {
			return &rep.Samples[i]
		}
	}
	return nil
}

func ratios(rep *report) {
	for _, sc := range []string{"worker running", "no worker", ProjectScenario, NoChangeScenario, RewriteScenario,
		NoChange50kScenario, NoWorkerSmallScenario, NoWorker50kScenario} {
		empty, node := find(*rep, "empty Go binary", sc), find(*rep, "node -e 0", sc)
		for _, h := range []string{"vibe-post-tool-use", "vibe-pre-tool-use"} {
			hs := find(*rep, h, sc)
			if hs == nil {
				continue
			}
			if empty != nil {
				rep.Ratios[fmt.Sprintf("%s / empty Go p50 (%s)", h, sc)] = round2(hs.P50 / empty.P50)
			}
			if node != nil {
				rep.Ratios[fmt.Sprintf("node -e 0 / %s p50 (%s)", h, sc)] = round2(node.P50 / hs.P50)
			}
		}
	}
}

func absRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	return abs
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

func printTable(rep report) {
	fmt.Printf("hook latency: %d runs each, %d spine rows, %d CPUs\n\n", rep.Runs, rep.Rows, rep.CPUs)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "command\tscenario\tp50 ms\tp95 ms\tp99 ms\terrors\t")
	for _, s := range rep.Samples {
		fmt.Fprintf(w, "%s\t%s\t%.2f\t%.2f\t%.2f\t%d\t\n", s.Name, s.Scenario, s.P50, s.P95, s.P99, s.Errors)
	}
	w.Flush()
	keys := make([]string, 0, len(rep.Ratios))
	for k := range rep.Ratios {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println()
	for _, k := range keys {
		fmt.Printf("%s: %v\n", k, rep.Ratios[k])
	}
	ek := make([]string, 0, len(rep.Extra))
	for k := range rep.Extra {
		ek = append(ek, k)
	}
	sort.Strings(ek)
	for _, k := range ek {
		fmt.Printf("%s: %v\n", k, rep.Extra[k])
	}
	printIdle(rep) // bench/idle.go
}

// loadInputs turns the recorded fixtures into per-run inputs: the project
// path is rewritten to the bench project, and tool_use_id / prompt_id made
// unique per run so every run does its full work.
func loadInputs(dir, project string) (map[string]func(int) []byte, error) {
	files := map[string]string{
		"vibe-session-start": "01-SessionStart.json",
		"vibe-prompt-submit": "02-UserPromptSubmit.json",
		"vibe-pre-tool-use":  "03-PreToolUse.json",
		"vibe-post-tool-use": "04-PostToolUse.json",
		"vibe-stop":          "13-Stop.json",
		"vibe-session-end":   "15-SessionEnd.json",
	}
	out := map[string]func(int) []byte{}
	for h, f := range files {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, fmt.Errorf("fixture: %w", err)
		}
		text := strings.ReplaceAll(string(raw), "/home/researcher/project", project)
		out[h] = func(i int) []byte {
			s := strings.ReplaceAll(text, `"toolu_020_0"`, fmt.Sprintf(`"toolu_bench_%d"`, i))
			s = strings.ReplaceAll(s, `"2bea9e60-8f25-4353-b0ec-60d1b34a9fba"`, fmt.Sprintf(`"prompt-%d"`, i))
			return []byte(s)
		}
	}
	return out, nil
}
