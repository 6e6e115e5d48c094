package integrity

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

// NewCmdIntegrity builds `vibe integrity check`.
func NewCmdIntegrity(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "integrity", Short: "Check the evidence graph and threshold drift (integrity monitor)"}
	cmd.AddCommand(NewCmdIntegrityCheck(f, nil))
	return cmd
}

// IntegrityCheckOptions are the flags of `vibe integrity check`.
type IntegrityCheckOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time

	Project string
	// Format is text or json; --json is the same as --format json.
	Format string
	JSON   bool
}

// NewCmdIntegrityCheck builds `vibe integrity check`.
func NewCmdIntegrityCheck(f *cli.Factory, runF func(*IntegrityCheckOptions) error) *cobra.Command {
	opts := &IntegrityCheckOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Find circular support among claims and threshold drift per domain; exit 1 on any BLOCK",
		Long: "Builds the evidence graph of the claim ledger and the reviewer files and reports every cycle (D1 circular\n" +
			"logic), then sums each domain's recorded threshold changes over 180 days (D3 threshold drift: WARN at\n" +
			"800 bps, BLOCK at 1000 bps). Without a database only the evidence graph is checked.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.JSON {
				opts.Format = "json"
			}
			if opts.Format != "text" && opts.Format != "json" {
				return &cli.UsageError{Err: fmt.Errorf("--format %q: use text or json", opts.Format)}
			}
			if runF != nil {
				return runF(opts)
			}
			return runIntegrityCheck(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.StringVar(&opts.Format, "format", "text", "output format: text or json")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON (same as --format json)")
	return cmd
}

func runIntegrityCheck(ctx context.Context, o *IntegrityCheckOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	pr, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	root := pr
	s, err := o.Store(ctx)
	var st integritycheck.Reads = s
	if err != nil {
		// The evidence graph lives in files: check it even without the
		// database, and say what was skipped.
		fmt.Fprintf(o.IO.ErrOut, "vibe: threshold drift not checked: %v (run `vibe doctor`)\n", err)
		st = nil // a nil interface, not a nil *store.Store
	}
	vs, err := integritycheck.Check(ctx, st, root, o.Now())
	if err != nil {
		return err
	}
	if o.Format == "json" {
		err = cli.WriteJSON(o.IO.Out, integrityReport{Project: root, Result: verdict.Worst(vs), Verdicts: vs})
	} else {
		writeVerdicts(o.IO.Out, vs)
	}
	if err != nil {
		return err
	}
	if n := countBlocking(vs); n > 0 {
		return fmt.Errorf("integrity check: %d blocking verdict(s)", n)
	}
	return nil
}

type integrityReport struct {
	Project  string            `json:"project"`
	Result   verdict.Result    `json:"result"`
	Verdicts []verdict.Verdict `json:"verdicts"`
}

func countBlocking(vs []verdict.Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Result.Blocks() {
			n++
		}
	}
	return n
}

// writeVerdicts prints one verdict a paragraph: result, check and reason,
// then the fix and the evidence notes indented under it.
func writeVerdicts(w io.Writer, vs []verdict.Verdict) {
	for _, v := range vs {
		fmt.Fprintf(w, "%-10s %s: %s\n", v.Result, v.Check, v.Reason)
		for _, n := range v.Evidence.Notes {
			fmt.Fprintf(w, "%-10s   %s\n", "", n)
		}
		if v.Recommendation != "" {
			fmt.Fprintf(w, "%-10s   fix: %s\n", "", v.Recommendation)
		}
	}
}
