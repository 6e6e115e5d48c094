package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// memoryBench measures recall and the embed worker (issues 6 and 18) as a
// user meets them: 50k memories imported with `vibe memory import`, then
// prompt-submit over them next to the empty binary, lexical (the worker
// without a model or fallback) and hybrid with the default static model
// shape at the default recall deadline, all in this run; the time the
// worker takes to embed the 50k; one query's embedding through its socket;
// and the worker's peak resident memory with each shape. KNN, embedding
// throughput and recall@5 are Go benchmarks of their packages, which
// `make bench` runs after this program (BenchmarkKNN, BenchmarkEmbed,
// BenchmarkRetrieval).
func memoryBench(rep *report, bin, empty, fixtures string, runs int) error {
	ctx := context.Background()
	extra := map[string]any{}
	rep.Extra = extra

	static, err := testmodel.Ensure(testmodel.Static)
	if err != nil {
		return fmt.Errorf("static test model (needs /usr/bin/python3 with onnx and numpy): %w", err)
	}
	full, err := testmodel.Ensure(testmodel.Full)
	if err != nil {
		return fmt.Errorf("test model (needs /usr/bin/python3 with onnx): %w", err)
	}

	// prompt-submit over 50k memories.
	home, project, cleanup, err := homeAndProject("vibe-recall-")
	if err != nil {
		return err
	}
	defer cleanup()
	paths := config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	base := append(os.Environ(), "VIBE_HOME="+home)
	file := filepath.Join(filepath.Dir(home), "memories.jsonl")
	if err := writeMemories(file, 50000, time.Now()); err != nil { // bench/memories.go
		return err
	}
	fmt.Fprint(os.Stderr, "vibe memory import of 50k memories… ")
	t0 := time.Now()
	imported, err := importMemories(bin, append(slices.Clip(base), "VIBE_WORKER=off"), project, file)
	if err != nil {
		return err
	}
	extra["memory_import_50k_s"] = round2(time.Since(t0).Seconds())
	fmt.Fprintf(os.Stderr, "%.1fs: %v added, %v contradicting an earlier memory\n", time.Since(t0).Seconds(), imported["added"], imported["conflicts"])
	inputs, err := loadInputs(fixtures, project)
	if err != nil {
		return err
	}
	prompts := []string{"why did DQ2 fail on the guide-level split?", "which columns leak the label in the features table?",
		"what did reviewer2 say about the calibration coverage?", "how many guides are held out for testing?"}
	promptInput := func(i int) []byte {
		b := inputs["vibe-prompt-submit"](i)
		var m map[string]any
		json.Unmarshal(b, &m)
		m["prompt"] = prompts[i%4]
		out, _ := json.Marshal(m)
		return out
	}
	const scenario = "prompt-submit 50k memories"
	rep.Samples = append(rep.Samples, measure("empty Go binary", scenario, []string{empty}, base, func(int) []byte { return nil }, runs))
	// The worker without a model and without the fallback: recall is lexical.
	stop, _, err := startWorkerEnv(bin, home, "VIBE_EMBED_FALLBACK=off", "VIBE_MODEL_PULL=off")
	if err != nil {
		return err
	}
	lex := measure("vibe-prompt-submit", "lexical (worker, no model)", []string{filepath.Join(bin, "vibe-prompt-submit")},
		base, promptInput, runs)
	rep.Samples = append(rep.Samples, lex)
	extra["prompt_submit_lexical_note"] = promptNote(bin, base, promptInput(0))
	stop()

	// The worker with the default static model shape, every memory
	// embedded, at the default recall deadline: the path a user gets.
	modelDir := filepath.Join(paths.Models, config.Defaults.Model)
	if err := testmodel.CopyTo(static, modelDir); err != nil {
		return err
	}
	stop, pid, err := startWorkerEnv(bin, home, "VIBE_MODEL_PULL=off")
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintln(os.Stderr, "embedding 50k memories with the static shape…")
	t0 = time.Now()
	if err := waitBacklog(ctx, paths.Socket, 20*time.Minute); err != nil {
		return err
	}
	extra["static_embed_50k_s"] = round2(time.Since(t0).Seconds())
	texts := benchTexts(256)
	var embedTimes []float64
	for i := 0; i < 21; i++ {
		t0 := time.Now()
		// Distinct texts: the query cache must not answer.
		if _, _, err := client.Embed(ctx, paths.Socket, []string{fmt.Sprintf("%s #%d", texts[i%len(texts)], i)}); err != nil {
			return fmt.Errorf("embed through the worker: %w", err)
		}
		if i > 0 {
			embedTimes = append(embedTimes, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	sort.Float64s(embedTimes)
	extra["one_query_embedding_p50_ms_static"] = round2(embedTimes[len(embedTimes)/2])
	hyb := measure("vibe-prompt-submit", "hybrid (static default model, default deadline)", []string{filepath.Join(bin, "vibe-prompt-submit")},
		base, promptInput, runs)
	rep.Samples = append(rep.Samples, hyb)
	extra["prompt_submit_hybrid_note"] = promptNote(bin, base, promptInput(1))
	extra["prompt_submit_hybrid_minus_lexical_p95_ms"] = round2(hyb.P95 - lex.P95)
	extra["prompt_submit_hybrid_minus_lexical_p50_ms"] = round2(hyb.P50 - lex.P50)
	extra["worker_peak_rss_mb_static_50k"] = procPeakMB(pid)
	stop()

	// The MiniLM shape's worker, for its resident memory while it embeds
	// the retrieval set's memories (internal/recall/testdata/retrieval),
	// imported as a user would.
	mhome, mproject, mcleanup, err := homeAndProject("vibe-minilm-")
	if err != nil {
		return err
	}
	defer mcleanup()
	mpaths := config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": mhome}[k] })
	menv := append(os.Environ(), "VIBE_HOME="+mhome, "VIBE_WORKER=off")
	if _, err := importMemories(bin, menv, mproject, "internal/recall/testdata/retrieval/memories.jsonl"); err != nil {
		return err
	}
	if err := testmodel.CopyTo(full, filepath.Join(mpaths.Models, embed.MiniLMModel)); err != nil {
		return err
	}
	if err := os.WriteFile(mpaths.Settings, []byte(`{"model": "`+embed.MiniLMModel+`"}`), 0o644); err != nil {
		return err
	}
	mstop, mpid, err := startWorkerEnv(bin, mhome, "VIBE_MODEL_PULL=off")
	if err != nil {
		return err
	}
	defer mstop()
	fmt.Fprintln(os.Stderr, "embedding the retrieval set's memories with the MiniLM shape…")
	if err := waitBacklog(ctx, mpaths.Socket, 10*time.Minute); err != nil {
		return err
	}
	extra["worker_peak_rss_mb_minilm"] = procPeakMB(mpid)
	return nil
}

// waitBacklog waits until the worker has embedded everything queued.
func waitBacklog(ctx context.Context, socket string, limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		h, err := client.GetHealth(ctx, socket)
		if err == nil && h.Backlog == 0 && (h.Loaded || h.Fallback) {
			return nil
		}
	}
	return fmt.Errorf("the worker did not embed its backlog within %v", limit)
}

// promptNote says which path ranks a prompt's recall: the line `vibe
// recall` prints for the prompt (words only and why, or which embedder's
// vectors took part). The hook tells the agent none of it.
func promptNote(bin string, env []string, input []byte) string {
	var ev struct {
		Prompt string `json:"prompt"`
		Cwd    string `json:"cwd"`
	}
	if err := json.Unmarshal(input, &ev); err != nil {
		return "error: " + err.Error()
	}
	cmd := exec.Command(filepath.Join(bin, "vibe"), "recall", "--project", ev.Cwd, ev.Prompt)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "error: " + err.Error() + ": " + stderr.String()
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "recall: ") {
			return line
		}
	}
	return "no recall line in: " + stderr.String()
}

// procPeakMB is a process's peak resident set (VmHWM) in MiB, 0 when
// unreadable.
func procPeakMB(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb >> 10
		}
	}
	return 0
}

// ProjectScenario names the observer's scenario in the report.
const ProjectScenario = "worker running, vibe init project of 10k files, observer every call"

// observerBench times post-tool-use when every call runs the observer (the
// 10th-call check) on a project of 10k files laid out as `vibe init` makes
// it: 8,000 raw and 500 processed data files in 101 folders under
// .vibe-science/RQ-001/02-data (the dictionary leaves 400 processed files
// undocumented, so the check stats every folder and keeps an alert open),
// 500 analysis scripts, and 1,000 source files outside .vibe-science.
// PreToolUse is timed on the same project, every project file in place, and
// the empty Go binary again next to them, for the ratios.
func observerBench(rep *report, bin, empty, fixtures string, runs int) error {
	home, project, env, cleanup, err := initProject(bin, "vibe-observer-")
	if err != nil {
		return err
	}
	defer cleanup()
	rq := filepath.Join(project, ".vibe-science", "RQ-001")
	mk := func(dir string, n int, name string) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf(name, i)), []byte("a,b\n1,2\n"), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	for d := 0; d < 100; d++ {
		if err := mk(filepath.Join(rq, "02-data", "raw", fmt.Sprintf("batch%03d", d)), 80, "f%04d.csv"); err != nil {
			return err
		}
	}
	steps := []error{
		mk(filepath.Join(rq, "02-data", "processed"), 500, "part%04d.parquet"),
		mk(filepath.Join(rq, "03-analysis"), 500, "step%04d.py"),
		os.WriteFile(filepath.Join(rq, "02-data", "DATA-DICTIONARY.md"),
			[]byte("# Data dictionary\n\n## raw/*/*.csv\n\nOne CSV per sequencing batch.\n\n## processed/part00*.parquet\n"), 0o644),
		os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"observer_every": 1}`), 0o644),
	}
	for d := 0; d < 10; d++ {
		steps = append(steps, mk(filepath.Join(project, "src", fmt.Sprintf("pkg%d", d)), 100, "file%03d.go"))
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
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
	rep.Samples = append(rep.Samples, measure("empty Go binary", ProjectScenario, []string{empty}, env, func(int) []byte { return nil }, runs))
	for _, h := range []string{"vibe-post-tool-use", "vibe-pre-tool-use"} {
		rep.Samples = append(rep.Samples, measure(h, ProjectScenario, []string{filepath.Join(bin, h)}, env, inputs[h], runs))
	}
	return nil
}

// startWorker runs the built worker for a VIBE_HOME until stop is called
// (the hooks relay only to a worker of their own build).
func startWorker(bin, home string) (stop func(), err error) {
	stop, _, err = startWorkerEnv(bin, home)
	return stop, err
}

// startWorkerEnv is startWorker with extra environment variables; it also
// returns the worker's pid. stop may be called more than once.
func startWorkerEnv(bin, home string, env ...string) (stop func(), pid int, err error) {
	cmd := exec.Command(filepath.Join(bin, "vibe-embed-worker"), "--home", home, "--foreground")
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("start the worker: %w", err)
	}
	paths := config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	if err := waitForSocket(paths.Socket, 60*time.Second); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, 0, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		})
	}, cmd.Process.Pid, nil
}

func benchTexts(n int) []string {
	base := []string{
		"DQ2 failed: the split was per site, so one guide sat on both sides of the fold",
		"Hold out 22 guides entirely for testing and report AUC per guide",
		"Reviewer 2 asked for a bootstrap interval on the Spearman correlation",
		"Coverage dropped to 0.71 on fold 3 after recalibration",
		"The leakage column gc_content_label was dropped from the features table",
		"Conformal prediction sets at alpha 0.1 on guide-held-out folds",
		"CHANGE-seq reads were re-aligned to hg38 before joining with GUIDE-seq",
		"Seed: bulged sites cleave more than their mismatch count predicts",
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s (run %d)", base[i%len(base)], i)
	}
	return out
}

// homeAndProject makes a new temporary folder (named after prefix) holding
// a VIBE_HOME and, beside it, a git project that opted in to vibe: a project inside VIBE_HOME
// would have every write refused (rule locked.vibe-home), which is not the
// work a hook does on a real call. cleanup removes both.
func homeAndProject(prefix string) (home, project string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	home, project = filepath.Join(dir, "vibe-home"), filepath.Join(dir, "project")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	os.MkdirAll(filepath.Join(project, ".vibe-science"), 0o755) // a vibe project: the hooks act (project.OptedIn)
	return home, project, func() { os.RemoveAll(dir) }, nil
}

// initProject makes a VIBE_HOME in a new temporary folder (named after
// prefix) with a `vibe init` project beside it, and the environment the
// hooks run with there; the caller calls cleanup.
func initProject(bin, prefix string) (home, project string, env []string, cleanup func(), err error) {
	home, project, cleanup, err = homeAndProject(prefix)
	if err != nil {
		return "", "", nil, nil, err
	}
	env = append(os.Environ(), "VIBE_HOME="+home, "VIBE_WORKER=off")
	initCmd := exec.Command(filepath.Join(bin, "vibe"), "init", "--project", project)
	initCmd.Env = env
	if out, err := initCmd.CombinedOutput(); err != nil {
		cleanup()
		return "", "", nil, nil, fmt.Errorf("vibe init: %v\n%s", err, out)
	}
	return home, project, env, cleanup, nil
}
