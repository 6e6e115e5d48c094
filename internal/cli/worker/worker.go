package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// NewCmdWorker builds `vibe worker start|stop|status|logs`.
func NewCmdWorker(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Start, stop and inspect the embed worker (vectors for recall)",
		Long: "The embed worker turns remembered text into vectors in the background and answers recall queries.\n" +
			"Hooks start it on demand; without it recall is lexical only. Resting, it costs no CPU; after 30 minutes\n" +
			"with no hook it exits (worker_idle_exit_sec, VIBE_WORKER_IDLE_EXIT), and the next hook starts it again.\n" +
			"While the current model is not installed, it embeds with the fallback hashed-token embedder (degraded\n" +
			"vectors, replaced once the model is in place) and downloads the model on first need. VIBE_EMBED_FALLBACK=off\n" +
			"and VIBE_MODEL_PULL=off turn either off (`vibe help environment`); without the fallback, recall stays\n" +
			"lexical until the model is installed.",
	}
	cmd.AddCommand(NewCmdWorkerStart(f, nil), NewCmdWorkerStop(f, nil), NewCmdWorkerStatus(f, nil), NewCmdWorkerLogs(f, nil))
	return cmd
}

// WorkerStartOptions are the flags of `vibe worker start`.
type WorkerStartOptions struct {
	IO    cli.IO
	Paths func() config.Paths

	// Binary is the worker executable; empty means the one beside vibe.
	Binary string
	// Wait bounds how long start waits for the worker to answer.
	Wait time.Duration
	JSON bool
}

// NewCmdWorkerStart builds `vibe worker start`.
func NewCmdWorkerStart(f *cli.Factory, runF func(*WorkerStartOptions) error) *cobra.Command {
	opts := &WorkerStartOptions{IO: f.IO, Paths: f.Paths}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start the embed worker in the background (does nothing if it runs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runWorkerStart(cmd.Context(), opts)
		},
	}
	cmd.Flags().Var(cli.NewDurationValue(&opts.Wait, 10*time.Second), "wait", "how long to wait for the worker to answer")
	cmd.Flags().StringVar(&opts.Binary, "binary", "", "worker executable (default: vibe-embed-worker beside vibe)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the worker's health as JSON")
	return cmd
}

func runWorkerStart(ctx context.Context, o *WorkerStartOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p := o.Paths()
	bin := o.Binary
	if bin == "" {
		var err error
		if bin, err = client.Binary(); err != nil {
			return err
		}
	}
	started, err := client.EnsureRunningBinary(p, bin)
	if err != nil {
		return fault.E(fault.Unavailable, "worker start", err)
	}
	if started {
		fmt.Fprintf(o.IO.ErrOut, "starting the embed worker for %s…\n", p.Home)
	}
	h, err := waitHealth(ctx, p, o.Wait)
	if err != nil {
		return fault.Errorf(fault.Unavailable, "worker start",
			"the worker did not answer within %s: see `vibe worker logs` and %s", o.Wait, filepath.Join(p.Logs, client.StderrLog))
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, h)
	}
	verb := "already running"
	if started {
		verb = "started"
	}
	fmt.Fprintf(o.IO.Out, "worker %s (pid %d); model %s: %s\n", verb, h.PID, h.Model, h.State)
	return nil
}

// waitHealth polls the worker's health until it answers or wait passes.
func waitHealth(ctx context.Context, p config.Paths, wait time.Duration) (client.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		cctx, ccancel := context.WithTimeout(ctx, time.Second)
		h, err := client.GetHealth(cctx, p.Socket)
		ccancel()
		if err == nil {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return client.Health{}, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WorkerStopOptions are the flags of `vibe worker stop`.
type WorkerStopOptions struct {
	IO    cli.IO
	Paths func() config.Paths

	Timeout time.Duration
}

// NewCmdWorkerStop builds `vibe worker stop`.
func NewCmdWorkerStop(f *cli.Factory, runF func(*WorkerStopOptions) error) *cobra.Command {
	opts := &WorkerStopOptions{IO: f.IO, Paths: f.Paths}
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the embed worker (it stores the batch in hand first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runWorkerStop(cmd.Context(), opts)
		},
	}
	cmd.Flags().Var(cli.NewDurationValue(&opts.Timeout, 30*time.Second), "timeout", "how long to wait for the worker to exit")
	return cmd
}

func runWorkerStop(ctx context.Context, o *WorkerStopOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	pid, err := worker.Stop(ctx, o.Paths(), 50*time.Millisecond)
	if errors.Is(err, client.ErrNotRunning) {
		fmt.Fprintln(o.IO.ErrOut, "the embed worker is not running")
		return nil
	}
	if err != nil {
		return fault.E(fault.Unavailable, "worker stop", err)
	}
	fmt.Fprintf(o.IO.Out, "stopped the embed worker (pid %d)\n", pid)
	return nil
}

// WorkerStatusOptions are the flags of `vibe worker status`.
type WorkerStatusOptions struct {
	IO    cli.IO
	Paths func() config.Paths
	Store func(context.Context) (*store.Store, error)
	Now   func() time.Time
	// Getenv reads VIBE_EMBED_FALLBACK and VIBE_MODEL_PULL, which decide
	// what a worker started now does without its model.
	Getenv func(string) string
	// Binary is this install's worker program (client.Binary), which a
	// running worker must be; nil or an error skips the check.
	Binary func() (string, error)

	JSON bool
}

// NewCmdWorkerStatus builds `vibe worker status`.
func NewCmdWorkerStatus(f *cli.Factory, runF func(*WorkerStatusOptions) error) *cobra.Command {
	opts := &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Getenv: f.Getenv, Binary: client.Binary}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the worker's pid, model, throughput, backlog, failures and memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runWorkerStatus(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// WorkerStatus is what `vibe worker status --json` prints.
type WorkerStatus struct {
	Running bool   `json:"running"`
	Note    string `json:"note,omitempty"`
	// Stale says why the running worker is not this install's build, so
	// hooks bypass it (and run slower) until it is replaced.
	Stale string `json:"stale,omitempty"`
	client.Health
	// StartedAt replaces the worker's unix milliseconds with RFC 3339, the
	// one time format of vibe's JSON.
	StartedAt *string `json:"started_at"`
}

func runWorkerStatus(ctx context.Context, o *WorkerStatusOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p := o.Paths()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	h, herr := client.GetHealth(cctx, p.Socket)
	cancel()
	s := WorkerStatus{Running: herr == nil, Health: h}
	if herr == nil && o.Binary != nil {
		if bin, err := o.Binary(); err == nil {
			s.Stale = client.Stale(p, bin, h)
		}
	}
	if herr != nil {
		// No answer: say why, and read the queue from the database so the
		// backlog shows even with the worker down.
		held, _ := client.LockHeld(p)
		pid := client.ReadPID(p)
		switch {
		case held:
			s.PID = pid
			s.Note = fmt.Sprintf("the worker (pid %d) holds the lock but does not answer on %s: it may be starting; if this persists, see `vibe worker logs`", pid, p.Socket)
		case pid > 0:
			s.Note = fmt.Sprintf("not running (stale pid file %s names %d): start it with `vibe worker start`", p.PIDFile, pid)
		default:
			s.Note = "not running: start it with `vibe worker start`"
		}
		st, err := o.Store(ctx)
		if err != nil {
			return fmt.Errorf("worker status: %w", err)
		}
		model, err := cli.CurrentModel(ctx, st, p)
		if err != nil {
			return err
		}
		c, err := st.EmbedCounts(ctx, model, o.Now())
		if err != nil {
			return err
		}
		s.Model, s.Backlog, s.Waiting, s.Failed, s.Done = model, c.Backlog, c.Waiting, c.Failed, c.Done
		s.State, s.Fallback = StateOf(p, model, o.Getenv)
	}
	if s.Health.StartedAt > 0 {
		at := time.UnixMilli(s.Health.StartedAt).UTC().Format(time.RFC3339)
		s.StartedAt = &at
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, s)
	}
	w := o.IO.Out
	if s.Running {
		up := o.Now().Sub(time.UnixMilli(s.Health.StartedAt)).Round(time.Second)
		fmt.Fprintf(w, "worker   running (pid %d, version %s, up %s)\n", s.PID, s.Version, up)
		if s.Stale != "" {
			fmt.Fprintf(w, "stale    %s: hooks bypass it and run slower; `vibe setup` replaces it (or `vibe worker stop`, then `vibe worker start`)\n", s.Stale)
		}
	} else {
		fmt.Fprintf(w, "worker   %s\n", s.Note)
	}
	fmt.Fprintf(w, "model    %s: %s\n", s.Model, s.State)
	if s.Running && !s.Pulling && s.Model != "" && embed.Ready(embed.Dir(p.Models, s.Model)) != nil {
		// The worker's own state does not say how to install it now.
		if _, ok := embed.Catalog[s.Model]; ok {
			fmt.Fprintf(w, "note: `vibe model pull %s` installs the model now\n", s.Model)
		}
	}
	fmt.Fprintf(w, "queue    backlog %d (%d in retry backoff) · failed %d · done %d\n", s.Backlog, s.Waiting, s.Failed, s.Done)
	if s.Running {
		fmt.Fprintf(w, "speed    %.1f texts/s over the last minute (%.1f texts/s while embedding)\n", s.Throughput, s.EmbedRate)
		fmt.Fprintf(w, "memory   %s resident\n", cli.HumanBytes(s.RSSBytes))
	}
	if s.LastError != "" {
		fmt.Fprintf(w, "error    %s\n", s.LastError)
	}
	if s.Failed > 0 {
		fmt.Fprintf(w, "note: %d memories failed to embed %d times and are skipped; `vibe model use %s` retries them\n",
			s.Failed, store.DefaultRetry.MaxAttempts, s.Model)
	}
	return nil
}

// StateOf describes a model the worker is not running for: installed, or
// not and then what a worker started with this environment does without
// it (cli.MissingModel; getenv nil: the defaults).
func StateOf(p config.Paths, model string, getenv func(string) string) (state string, fallback bool) {
	if embed.Ready(embed.Dir(p.Models, model)) == nil {
		return "installed, not loaded", false
	}
	return cli.MissingModel(p, model, getenv)
}

// WorkerLogsOptions are the flags of `vibe worker logs`.
type WorkerLogsOptions struct {
	IO    cli.IO
	Paths func() config.Paths

	Follow bool
	Lines  int
	JSON   bool
	// Poll is how often -f looks for new lines.
	Poll time.Duration
}

// NewCmdWorkerLogs builds `vibe worker logs`.
func NewCmdWorkerLogs(f *cli.Factory, runF func(*WorkerLogsOptions) error) *cobra.Command {
	opts := &WorkerLogsOptions{IO: f.IO, Paths: f.Paths, Poll: 500 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Print the worker's latest daily log (-f to follow it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runWorkerLogs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "keep printing new lines (Ctrl-C to stop)")
	cmd.Flags().IntVarP(&opts.Lines, "lines", "n", 50, "how many lines from the end (0: all)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print each line as {\"logged_at\", \"message\"}")
	return cmd
}

func runWorkerLogs(ctx context.Context, o *WorkerLogsOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p := o.Paths()
	path := worker.LatestLog(p.Logs)
	if path == "" && !o.Follow {
		fmt.Fprintf(o.IO.ErrOut, "no worker logs in %s yet: start the worker with `vibe worker start`\n", p.Logs)
		return nil
	}
	if st, err := os.Stat(filepath.Join(p.Logs, client.StderrLog)); err == nil && st.Size() > 0 {
		fmt.Fprintf(o.IO.ErrOut, "note: %s holds %d bytes the worker could not log itself (a crash?)\n",
			filepath.Join(p.Logs, client.StderrLog), st.Size())
	}
	var offset int64
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("worker logs: %w", err)
		}
		offset = int64(len(raw))
		lines := strings.SplitAfter(string(raw), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if o.Lines > 0 && len(lines) > o.Lines {
			lines = lines[len(lines)-o.Lines:]
		}
		for _, l := range lines {
			if err := printLogLine(o.IO.Out, l, o.JSON); err != nil {
				return err
			}
		}
	}
	if !o.Follow {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.Poll):
		}
		// A new day starts a new file: finish the old one, then switch.
		latest := worker.LatestLog(p.Logs)
		if path != "" {
			n, err := copyFrom(o, path, offset)
			if err != nil {
				return err
			}
			offset += n
		}
		if latest != path {
			path, offset = latest, 0
			n, err := copyFrom(o, path, 0)
			if err != nil {
				return err
			}
			offset = n
		}
	}
}

// copyFrom prints the complete lines of path after offset and returns how
// many bytes it consumed.
func copyFrom(o *WorkerLogsOptions, path string, offset int64) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, nil // rotated away between the listing and the open
	}
	defer fh.Close()
	if _, err := fh.Seek(offset, io.SeekStart); err != nil {
		return 0, fmt.Errorf("worker logs: %w", err)
	}
	r := bufio.NewReader(fh)
	var n int64
	for {
		line, err := r.ReadString('\n')
		if err != nil { // a partial last line waits for its newline
			return n, nil
		}
		n += int64(len(line))
		if err := printLogLine(o.IO.Out, line, o.JSON); err != nil {
			return n, err
		}
	}
}

func printLogLine(w io.Writer, line string, asJSON bool) error {
	if !asJSON {
		_, err := io.WriteString(w, line)
		return err
	}
	line = strings.TrimSuffix(line, "\n")
	ts, msg, _ := strings.Cut(line, " ")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(logLineJSON{ts, msg})
}

type logLineJSON struct {
	LoggedAt string `json:"logged_at"`
	Message  string `json:"message"`
}
