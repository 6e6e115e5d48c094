package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// What a resting worker costs: idleBench starts the built worker, gives it
// one request (a model then loads), leaves it alone for idleSettle, and
// then reads its counters in /proc at the start and the end of idleWindow.

// idleWindow is how long a resting worker is watched.
const idleWindow = 20 * time.Second

// idleSettle is how long the worker is left alone before the window
// opens: the round of work a request schedules (a second later) is over by
// then.
const idleSettle = 3 * time.Second

// userHZ is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture).
const userHZ = 100

// idleSample is one resting worker's cost over the window.
type idleSample struct {
	Scenario string  `json:"scenario"`
	Seconds  float64 `json:"seconds"`
	// WakeupsPerSec is the context switches of all the process's threads
	// (voluntary and not, /proc/<pid>/task/*/status) a second: each is a
	// thread that ran and went back to sleep, or was taken off a CPU.
	WakeupsPerSec float64 `json:"wakeups_per_sec"`
	// CPUMsPerSec is utime + stime (/proc/<pid>/stat, all threads, 10 ms
	// ticks) a second; RunMsPerSec the same from the scheduler's own
	// nanosecond count (/proc/<pid>/task/*/schedstat).
	CPUMsPerSec float64 `json:"cpu_ms_per_sec"`
	RunMsPerSec float64 `json:"run_ms_per_sec"`
	RSSMB       float64 `json:"rss_mb"`
	Threads     int     `json:"threads"`
}

// procCounters are a process's counters at one moment.
type procCounters struct {
	switches int64 // voluntary + nonvoluntary context switches, all threads
	runNS    int64 // time on a CPU, all threads (schedstat)
	ticks    int64 // utime + stime, all threads, in 1/userHZ s
	rssKB    int64
	threads  int
}

// readCounters reads pid's counters from /proc.
func readCounters(pid int) (procCounters, error) {
	var c procCounters
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return c, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: utime and stime are the 14th and 15th of the line.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return c, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	c.ticks = ut + st
	c.rssKB = statusField(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		return c, fmt.Errorf("/proc/%d/task: %v", pid, err)
	}
	c.threads = len(tasks)
	for _, t := range tasks {
		c.switches += statusField(filepath.Join(t, "status"), "voluntary_ctxt_switches:") +
			statusField(filepath.Join(t, "status"), "nonvoluntary_ctxt_switches:")
		if raw, err := os.ReadFile(filepath.Join(t, "schedstat")); err == nil {
			if fs := strings.Fields(string(raw)); len(fs) > 0 {
				ns, _ := strconv.ParseInt(fs[0], 10, 64)
				c.runNS += ns
			}
		}
	}
	return c, nil
}

// statusField is the number after key in a /proc status file, 0 when
// missing.
func statusField(path, key string) int64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// watchIdle reads pid's counters across window and returns the rates.
func watchIdle(scenario string, pid int, window time.Duration) (idleSample, error) {
	a, err := readCounters(pid)
	if err != nil {
		return idleSample{}, err
	}
	t0 := time.Now()
	time.Sleep(window)
	b, err := readCounters(pid)
	if err != nil {
		return idleSample{}, err
	}
	secs := time.Since(t0).Seconds()
	return idleSample{
		Scenario:      scenario,
		Seconds:       round2(secs),
		WakeupsPerSec: round2(float64(b.switches-a.switches) / secs),
		CPUMsPerSec:   round2(float64(b.ticks-a.ticks) * 1000 / userHZ / secs),
		RunMsPerSec:   round2(float64(b.runNS-a.runNS) / 1e6 / secs),
		RSSMB:         round2(float64(b.rssKB) / 1024),
		Threads:       b.threads,
	}, nil
}

// idleBench measures the resting worker with no model (the fallback
// embedder stands in), with the default static model's shape loaded, and
// with the MiniLM shape loaded (the generated test models: their weights
// are random, their code paths and sizes the real ones').
func idleBench(rep *report, bin string) error {
	scenarios := []struct {
		name    string
		model   string
		variant testmodel.Variant
	}{
		{"worker idle, no model (fallback embedder)", "", testmodel.Variant{}},
		{"worker idle, " + config.Defaults.Model + "-shaped static model loaded", config.Defaults.Model, testmodel.Static},
		{"worker idle, " + embed.MiniLMModel + "-shaped model loaded", embed.MiniLMModel, testmodel.Full},
	}
	for _, sc := range scenarios {
		s, err := idleScenario(bin, sc.name, sc.model, sc.variant)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %.2f wake-ups/s, %.2f ms CPU/s, %.1f MB\n", sc.name, s.WakeupsPerSec, s.CPUMsPerSec, s.RSSMB)
		rep.Idle = append(rep.Idle, s)
	}
	return nil
}

// idleScenario starts a worker on a new VIBE_HOME holding model (none when
// empty), has it embed one text, lets it rest and watches it.
func idleScenario(bin, name, model string, variant testmodel.Variant) (idleSample, error) {
	home, _, cleanup, err := homeAndProject("vibe-idle-")
	if err != nil {
		return idleSample{}, err
	}
	defer cleanup()
	paths := config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	if model != "" {
		dir, err := testmodel.Ensure(variant)
		if err != nil {
			return idleSample{}, fmt.Errorf("test model (needs /usr/bin/python3 with onnx and numpy): %w", err)
		}
		if err := testmodel.CopyTo(dir, embed.Dir(paths.Models, model)); err != nil {
			return idleSample{}, err
		}
		if err := os.WriteFile(paths.Settings, []byte(`{"model": "`+model+`"}`), 0o600); err != nil {
			return idleSample{}, err
		}
	}
	stop, pid, err := startWorkerEnv(bin, home, "VIBE_MODEL_PULL=off")
	if err != nil {
		return idleSample{}, err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, _, err := client.Embed(ctx, paths.Socket, []string{"the knockout lowers expression in donor cells"}); err != nil {
		return idleSample{}, err
	}
	h, err := client.GetHealth(ctx, paths.Socket)
	if err != nil {
		return idleSample{}, err
	}
	if model != "" && !h.Loaded {
		return idleSample{}, fmt.Errorf("the model is not loaded after an embedding: %s", h.State)
	}
	time.Sleep(idleSettle)
	return watchIdle(name, pid, idleWindow)
}

// idleOnly measures the resting worker alone (bench -only-idle): its
// lines on stdout, the report as JSON to out.
func idleOnly(bin, out string) error {
	rep := report{When: time.Now().UTC(), CPUs: numCPU()}
	if err := idleBench(&rep, bin); err != nil {
		return err
	}
	printIdle(rep)
	raw, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, append(raw, '\n'), 0o644)
}

// printIdle prints the resting worker's lines of the report.
func printIdle(rep report) {
	if len(rep.Idle) == 0 {
		return
	}
	fmt.Printf("\nresting worker, %s per scenario (goal: at most 1 wake-up a second, no CPU)\n\n", idleWindow)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\twake-ups/s\tCPU ms/s (utime+stime)\tCPU ms/s (schedstat)\tRSS MB\tthreads\t")
	for _, s := range rep.Idle {
		fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%.3f\t%.1f\t%d\t\n", s.Scenario, s.WakeupsPerSec, s.CPUMsPerSec, s.RunMsPerSec, s.RSSMB, s.Threads)
	}
	w.Flush()
}
