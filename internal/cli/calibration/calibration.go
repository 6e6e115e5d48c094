package calibration

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/store"
)

// CalibrationOptions are the flags of `vibe calibration`.
type CalibrationOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	Bins    int
	JSON    bool
}

// NewCmdCalibration builds `vibe calibration`.
func NewCmdCalibration(f *cli.Factory, runF func(*CalibrationOptions) error) *cobra.Command {
	opts := &CalibrationOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "calibration",
		Short: "Score the project's claim confidences against their outcomes (Brier score, ECE)",
		Long: "Pairs each claim's confidence before its outcome with the outcome (held: VERIFIED or ROBUST; fell: " +
			"REJECTED, ARTIFACT, CONFOUNDED) and reports the Brier score and the expected calibration error with " +
			"a table of confidence bins, once at least 10 claims have an outcome.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Bins < 1 || opts.Bins > 100 {
				return &cli.UsageError{Err: fmt.Errorf("--bins must be between 1 and 100, not %d", opts.Bins)}
			}
			if runF != nil {
				return runF(opts)
			}
			return runCalibration(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().IntVar(&opts.Bins, "bins", calibrate.DefaultBins, "number of equal-width confidence bins")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type calibrationJSON struct {
	Project     string            `json:"project"`
	Outcomes    int               `json:"outcomes"`
	MinOutcomes int               `json:"min_outcomes"`
	Ready       bool              `json:"ready"`
	Brier       *float64          `json:"brier"`
	ECE         *float64          `json:"ece"`
	Bins        []calibrate.Bin   `json:"bins"`
	Points      []calibrate.Point `json:"points"`
}

func runCalibration(ctx context.Context, o *CalibrationOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	pr, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	root := pr
	c, pts, err := calibrate.ProjectCalibration(ctx, st, root, o.Bins)
	if err != nil {
		return err
	}
	ready := c.N >= calibrate.MinOutcomes
	if o.JSON {
		j := calibrationJSON{Project: root, Outcomes: c.N, MinOutcomes: calibrate.MinOutcomes, Ready: ready,
			Bins: []calibrate.Bin{}, Points: pts}
		if pts == nil {
			j.Points = []calibrate.Point{}
		}
		if ready {
			j.Brier, j.ECE, j.Bins = &c.Brier, &c.ECE, c.Bins
		}
		return cli.WriteJSON(o.IO.Out, j)
	}
	if !ready {
		fmt.Fprintf(o.IO.Out, "%s: %s recorded; the Brier score and ECE need at least %d (%d more). "+
			"An outcome is recorded when a claim in CLAIM-LEDGER.md becomes VERIFIED or KILLED.\n",
			root, outcomeCount(c.N), calibrate.MinOutcomes, calibrate.MinOutcomes-c.N)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "%s: %s\n", root, outcomeCount(c.N))
	fmt.Fprintf(o.IO.Out, "Brier score  %.4f  (0 is perfect; always saying 0.5 scores 0.25)\n", c.Brier)
	fmt.Fprintf(o.IO.Out, "ECE          %.4f  (%d bins; the held share's distance from the stated confidence)\n\n", c.ECE, o.Bins)
	var rows [][]string
	for _, b := range c.Bins {
		if b.N == 0 {
			continue
		}
		rows = append(rows, []string{fmt.Sprintf("%.2f-%.2f", b.Lo, b.Hi), fmt.Sprint(b.N),
			fmt.Sprintf("%.3f", b.MeanConfidence), fmt.Sprintf("%.3f", b.HeldRate), fmt.Sprintf("%.3f", b.Gap)})
	}
	cli.Table(o.IO, "BIN\tN\tCONFIDENCE\tHELD\tGAP", rows)
	return nil
}

func outcomeCount(n int) string {
	if n == 1 {
		return "1 claim outcome"
	}
	return fmt.Sprintf("%d claim outcomes", n)
}
