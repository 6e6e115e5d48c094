package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/decisions"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/schemacheck"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// NewCmdGate builds `vibe gate run|check|list|history`.
func NewCmdGate(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "gate", Short: "Run a gate on files, check a repository in CI, list the gates and their history"}
	cmd.AddCommand(NewCmdGateRun(f, nil), NewCmdGateCheck(f, nil), NewCmdGateList(f, nil), NewCmdGateHistory(f, nil))
	return cmd
}

// gateSessionEnv are the variables that carry Claude's session id into a
// command run from a session, in the order they are read.
var gateSessionEnv = []string{"CLAUDE_SESSION_ID", "CLAUDE_CODE_SESSION_ID"}

// gatePromptProtocols names, for each prompt-level gate, the protocol of
// skill/vibe/protocols/ that says how to perform it.
var gatePromptProtocols = map[string]string{
	"G0": "analysis-orchestrator.md", "G1": "data-extraction.md", "G2": "design-compliance.md",
	"G3": "auto-experiment.md", "G4": "auto-experiment.md", "G5": "analysis-orchestrator.md", "G6": "vlm-gate.md",
	"L1": "search-protocol.md", "D0": "audit-reproducibility.md",
	"T0": "tree-search.md", "T1": "tree-search.md", "T2": "tree-search.md", "T3": "tree-search.md",
	"S1": "experiment-manager.md", "S2": "experiment-manager.md", "S3": "experiment-manager.md",
	"L-1": "literature-precheck.md",
}

// GateRunOptions are the flags of `vibe gate run`.
type GateRunOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)
	Now         func() time.Time
	Getenv      func(string) string

	Gate  string
	Claim string
	// Project is the project folder (default: the current one).
	Project     string
	Features    string
	Metrics     string
	Calibration string
	Findings    string
	Source      string
	Dictionary  string
	Design      string
	Deviations  string
	Executed    []string
	Artifact    string
	Domain      string
	JSON        bool
}

// NewCmdGateRun builds `vibe gate run`.
func NewCmdGateRun(f *cli.Factory, runF func(*GateRunOptions) error) *cobra.Command {
	opts := &GateRunOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "run ID",
		Short: "Compute a code or schema gate on files and record the result (exit 1 on FAIL)",
		Long: "Computes gate ID on the files given, prints each check with PASS, WARN or FAIL and its fix, and\n" +
			"records the result in the database (with the session from CLAUDE_SESSION_ID or CLAUDE_CODE_SESSION_ID\n" +
			"when set, and the claim with --claim). Exit 0 on PASS or WARN, 1 on FAIL, 2 when the gate cannot run:\n" +
			"an input is missing, or the gate is prompt-level (the message names the protocol that covers it).\n\n" +
			"With --claim, inputs not given as flags come from the claim's evidence in CLAIM-LEDGER.md (paths\n" +
			"relative to .vibe-science/): a findings file, or the findings file beside an evidence JSON, for DQ4;\n" +
			"a features table for DQ1 and DD0 (and the data dictionary found for it); a metrics file for DQ2; a\n" +
			"calibration file for DQ3; the research question's DESIGN.md for DC0; the artifact with its documented\n" +
			"name for a schema gate (D1: 04-results/<claim>-promotion.json). DD0 finds the dictionary of --features\n" +
			"when --dictionary is absent; DC0 checks the data files of the design's research question when no\n" +
			"--executed is given. --source replaces the source JSON a findings file names.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &cli.UsageError{Err: fmt.Errorf("give one gate id, e.g. `vibe gate run DQ4 --findings FINDINGS.md` (`vibe gate list` shows them)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			g, ok := gate.Lookup(args[0])
			if !ok {
				return &cli.UsageError{Err: fmt.Errorf("%q is not a gate id; `vibe gate list` shows the %d gates", args[0], len(gate.Registry()))}
			}
			opts.Gate = g.ID
			if opts.Claim != "" {
				id, ok := claim.NormaliseID(opts.Claim)
				if !ok {
					return &cli.UsageError{Err: fmt.Errorf("--claim %q is not a claim id; write it as C-001", opts.Claim)}
				}
				opts.Claim = id
			}
			if runF != nil {
				return runF(opts)
			}
			return runGateRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Claim, "claim", "", "the claim the gate is run for (C-001); its evidence fills missing inputs")
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.StringVar(&opts.Features, "features", "", "features table, CSV or TSV (DQ1, DD0)")
	fl.StringVar(&opts.Metrics, "metrics", "", "metrics JSON (DQ2)")
	fl.StringVar(&opts.Calibration, "calibration", "", "calibration JSON (DQ3)")
	fl.StringVar(&opts.Findings, "findings", "", "findings markdown (DQ4)")
	fl.StringVar(&opts.Source, "source", "", "source JSON of the findings, replacing the one it names (DQ4)")
	fl.StringVar(&opts.Dictionary, "dictionary", "", "data dictionary (DD0)")
	fl.StringVar(&opts.Design, "design", "", "design file, DESIGN.md (DC0)")
	fl.StringVar(&opts.Deviations, "deviations", "", "a separate file of deviations (DC0)")
	fl.StringArrayVar(&opts.Executed, "executed", nil, "a data file that was written, relative to the design's folder (DC0; repeat)")
	fl.StringVar(&opts.Artifact, "artifact", "", "JSON artifact of a schema gate")
	fl.StringVar(&opts.Domain, "domain", "", "use this shipped domain instead of the project's domain config")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// gateRunJSON is the JSON of `vibe gate run`.
type gateRunJSON struct {
	Gate         string             `json:"gate"`
	Status       gate.Status        `json:"status"`
	Claim        string             `json:"claim,omitempty"`
	Checks       []gate.Check       `json:"checks"`
	Numbers      []string           `json:"numbers,omitempty"`
	Inputs       []record.GateInput `json:"inputs"`
	RecordID     int64              `json:"record_id"`
	DecisionHash string             `json:"decision_hash"`
}

func runGateRun(ctx context.Context, o *GateRunOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	pr, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	proj := project.Project{Root: pr}
	d, err := gateDomain(proj.Root, o.Domain)
	if err != nil {
		return err
	}
	g, _ := gate.Lookup(o.Gate)
	in := gate.Inputs{Features: o.Features, Metrics: o.Metrics, Calibration: o.Calibration, Findings: o.Findings,
		Dictionary: o.Dictionary, Design: o.Design, Deviations: o.Deviations, Executed: o.Executed, Artifact: o.Artifact}
	if o.Claim != "" {
		if c, _, ok := gatecheck.FindClaim(proj.Root, o.Claim); ok {
			filled := gatecheck.ClaimInputs(proj.Root, c, g.ID, in, d)
			for _, n := range gateFilledInputs(in, filled) {
				fmt.Fprintf(o.IO.ErrOut, "vibe: %s from %s's evidence: %s\n", n.flag, o.Claim, proj.Rel(n.path))
			}
			in = filled
		} else {
			fmt.Fprintf(o.IO.ErrOut, "vibe: %s is not in the claim ledger yet; the result is recorded for it all the same\n", o.Claim)
		}
	}
	if g.ID == "DD0" && in.Dictionary == "" && in.Features != "" {
		if p, err := gate.FindDictionary(in.Features, proj.Root, d); err == nil {
			in.Dictionary = p
		}
	}
	if g.ID == "DC0" && in.Design != "" && len(in.Executed) == 0 {
		// Without --executed, what was executed is what the research
		// question's data folders hold, as in CI.
		if files, err := gate.DataFiles(filepath.Dir(in.Design)); err == nil {
			in.Executed = files
		}
	}

	if g.ID == "DQ4" {
		in.Origins = gateOrigins(ctx, o, proj.Root)
	}
	var res gate.Result
	if g.ID == "DQ4" && o.Source != "" {
		res, err = gateRunDQ4WithSource(in.Findings, o.Source, d)
	} else {
		res, err = gate.Run(g.ID, in, d)
	}
	switch {
	case errors.Is(err, gate.ErrMissingInput):
		return &cli.UsageError{Err: fmt.Errorf("%s needs an input: %w", g.ID, err)}
	case errors.Is(err, gate.ErrNotComputable):
		return &cli.UsageError{Err: gateNotComputable(g)}
	case err != nil:
		return err
	}

	inputs := gateInputHashes(proj, res.Inputs)
	// What is recorded names files as the project does, so the record and
	// its decision hash do not depend on where the project is checked out.
	res.Checks = gateRelChecks(res.Checks, proj.Root)
	for i, in := range inputs {
		res.Inputs[i] = in.Path
	}
	session := ""
	for _, k := range gateSessionEnv {
		if session = o.Getenv(k); session != "" {
			break
		}
	}
	now := o.Now()
	var rec record.GateRecord
	st, err := o.Store(ctx)
	if err == nil {
		err = st.Tx(ctx, func(tx *store.Tx) error {
			if session != "" {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: session, ProjectPath: proj.Root, At: now}); err != nil {
					return err
				}
			}
			var err error
			rec, err = tx.AddGateCheck(ctx, record.GateCheck{Session: session, Project: proj.Root, ClaimID: o.Claim,
				Result: res.Record(), Inputs: inputs, At: now})
			return err
		})
	}
	recordErr := err
	if recordErr == nil {
		res.Status = gate.Status(rec.Status)
	}

	if o.JSON {
		out := gateRunJSON{Gate: res.Gate, Status: res.Status, Claim: o.Claim, Checks: res.Checks,
			Numbers: res.Numbers, Inputs: inputs, RecordID: rec.ID, DecisionHash: rec.DecisionHash}
		if out.Checks == nil {
			out.Checks = []gate.Check{}
		}
		if err := cli.WriteJSON(o.IO.Out, out); err != nil {
			return err
		}
	} else {
		writeGateResult(o.IO.Out, g, res, inputs)
	}
	if recordErr != nil {
		return fmt.Errorf("%s %s was computed but not recorded, so it does not count for promotion: %w", g.ID, res.Status, recordErr)
	}
	claimNote := ""
	if o.Claim != "" {
		claimNote = " for " + o.Claim
	}
	fmt.Fprintf(o.IO.ErrOut, "vibe: recorded %s %s%s (gate check %d, decision %s)\n", g.ID, rec.Status, claimNote, rec.ID, cli.ShortID(rec.DecisionHash))
	if rec.Status == record.GateFail {
		failed := 0
		for _, c := range res.Checks {
			if c.Status == gate.StatusFail {
				failed++
			}
		}
		return fmt.Errorf("%s FAIL: %d of %d checks failed; fix what they report and run the gate again", g.ID, failed, len(res.Checks))
	}
	return nil
}

// gateDomain is the shipped domain named by --domain, or the project's.
func gateDomain(root, name string) (gate.Domain, error) {
	if name != "" {
		d, err := gate.ShippedDomain(name)
		if err != nil {
			return gate.Domain{}, &cli.UsageError{Err: fmt.Errorf("--domain: %w", err)}
		}
		return d, nil
	}
	d, err := gate.LoadDomain(root)
	if err != nil {
		return gate.Domain{}, fmt.Errorf("%w\nRun `vibe domain validate` to see each problem with its field, or pass --domain NAME", err)
	}
	return d, nil
}

// gateRunDQ4WithSource checks a findings file against the source JSON given
// with --source instead of the one the file names.
func gateRunDQ4WithSource(findings, source string, d gate.Domain) (gate.Result, error) {
	if findings == "" {
		return gate.Result{}, fmt.Errorf("run gate DQ4: pass --findings FILE: %w", gate.ErrMissingInput)
	}
	content, err := os.ReadFile(findings)
	if err != nil {
		return gate.Result{}, fmt.Errorf("dq4: read findings: %w", err)
	}
	src, err := os.ReadFile(source)
	if err != nil {
		return gate.Result{}, fmt.Errorf("dq4: read --source: %w", err)
	}
	res := gate.DQ4(findings, content, src, d)
	res.Inputs = append(res.Inputs, source)
	return res, nil
}

// gateNotComputable says why a gate cannot be run on files, and which
// protocol covers it.
func gateNotComputable(g gate.Gate) error {
	proto := "skill/vibe/gates.md"
	if p, ok := gatePromptProtocols[g.ID]; ok {
		proto = "skill/vibe/protocols/" + p
	}
	if g.ID == "L-1" {
		return fmt.Errorf("L-1 cannot be computed from files: it is judged from the literature searches recorded in the session (before a direction is written, by the PreToolUse hook) and by `vibe gate check` from the repository's query logs; the protocol is %s", proto)
	}
	return fmt.Errorf("%s (%s) is a prompt-level gate and cannot be computed: perform it as %s and skill/vibe/gates.md describe, then record `Gate %s: PASS|FAIL — what you checked` in PROGRESS.md (Reviewer 2 audits it)", g.ID, g.Name, proto, g.ID)
}

type gateFilled struct{ flag, path string }

// gateFilledInputs lists the inputs --claim filled in.
func gateFilledInputs(before, after gate.Inputs) []gateFilled {
	var out []gateFilled
	add := func(flag, b, a string) {
		if b == "" && a != "" {
			out = append(out, gateFilled{flag, a})
		}
	}
	add("--features", before.Features, after.Features)
	add("--metrics", before.Metrics, after.Metrics)
	add("--calibration", before.Calibration, after.Calibration)
	add("--findings", before.Findings, after.Findings)
	add("--dictionary", before.Dictionary, after.Dictionary)
	add("--design", before.Design, after.Design)
	add("--artifact", before.Artifact, after.Artifact)
	return out
}

// gateInputHashes records each input file with the SHA-256 of its content,
// by its project-relative path.
func gateInputHashes(proj project.Project, paths []string) []record.GateInput {
	out := make([]record.GateInput, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		in := record.GateInput{Path: proj.Rel(abs)}
		if raw, err := os.ReadFile(abs); err == nil {
			sum := sha256.Sum256(raw)
			in.SHA256 = hex.EncodeToString(sum[:])
		}
		out = append(out, in)
	}
	return out
}

// gateRelChecks makes the paths in check details project-relative.
func gateRelChecks(checks []gate.Check, root string) []gate.Check {
	out := make([]gate.Check, len(checks))
	rel := strings.NewReplacer(root+string(filepath.Separator), "")
	for i, c := range checks {
		c.Detail, c.Fix = rel.Replace(c.Detail), rel.Replace(c.Fix)
		out[i] = c
	}
	return out
}

// writeGateResult prints a gate result: a status line, each check with its
// status and, for one that did not pass, its fix, then the inputs.
func writeGateResult(w io.Writer, g gate.Gate, res gate.Result, inputs []record.GateInput) {
	fmt.Fprintf(w, "%s %s  %s\n", g.ID, res.Status, g.Name)
	width := 0
	for _, c := range res.Checks {
		if len(c.Name) > width {
			width = len(c.Name)
		}
	}
	for _, c := range res.Checks {
		fmt.Fprintf(w, "  %-4s  %-*s  %s\n", c.Status, width, c.Name, c.Detail)
		if c.Fix != "" && c.Status != gate.StatusPass {
			fmt.Fprintf(w, "        %-*s  fix: %s\n", width, "", c.Fix)
		}
	}
	if len(inputs) > 0 {
		paths := make([]string, len(inputs))
		for i, in := range inputs {
			paths[i] = in.Path
		}
		fmt.Fprintf(w, "inputs: %s\n", strings.Join(paths, ", "))
	}
}

// GateCheckOptions are the flags of `vibe gate check`.
type GateCheckOptions struct {
	IO          cli.IO
	FindProject func(dir string) (project.Project, error)
	Now         func() time.Time

	// Root is the repository to check (default: the project of the
	// current folder).
	Root   string
	Format string
	Domain string
}

// NewCmdGateCheck builds `vibe gate check`.
func NewCmdGateCheck(f *cli.Factory, runF func(*GateCheckOptions) error) *cobra.Command {
	opts := &GateCheckOptions{IO: f.IO, FindProject: f.FindProject, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check every gate judgeable from the repository's files (for CI): exit 0 pass, 1 fail, 2 usage",
		Long: "Judges the repository from its files alone: findings against their JSON (DQ4), the claim ledger\n" +
			"(parse errors, Salvagente, promoted claims with the gates of their tier, recomputed now), claims\n" +
			"without a review (LAW 4), circular support (D1), directions without a logged literature search\n" +
			"(L-1), features tables (DQ1, DD0), metrics (DQ2), calibration (DQ3), design compliance (DC0) and\n" +
			"the schema-validated artifacts under their documented names. Warnings do not fail the check.\n" +
			"What CI can and cannot judge is written in the gatecheck package documentation.\n\n" +
			"Formats: text (grouped by gate), json (a list of findings), github (workflow commands that become\n" +
			"annotations), sarif (SARIF 2.1.0, for code scanning).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			known := false
			for _, f := range gatecheck.Formats {
				known = known || f == opts.Format
			}
			if !known {
				return &cli.UsageError{Err: fmt.Errorf("--format %q: use one of %s", opts.Format, strings.Join(gatecheck.Formats, ", "))}
			}
			if runF != nil {
				return runF(opts)
			}
			return runGateCheck(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Root, "root", "", "repository to check (default: the project of the current folder)")
	fl.StringVar(&opts.Root, "project", "", "the same as --root")
	fl.StringVar(&opts.Format, "format", gatecheck.FormatText, "output format: "+strings.Join(gatecheck.Formats, ", "))
	fl.StringVar(&opts.Domain, "domain", "", "use this shipped domain instead of the project's domain config")
	return cmd
}

func runGateCheck(o *GateCheckOptions) error {
	proj, err := o.FindProject(o.Root)
	if err != nil {
		return err
	}
	root := proj.Root
	var opt gatecheck.Options
	if o.Now != nil {
		opt.Now = o.Now()
	}
	if o.Domain != "" {
		d, err := gate.ShippedDomain(o.Domain)
		if err != nil {
			return &cli.UsageError{Err: fmt.Errorf("--domain: %w", err)}
		}
		opt.Domain = &d
	}
	rep, err := gatecheck.Check(root, opt)
	if err != nil {
		return &cli.UsageError{Err: fmt.Errorf("%w; pass --root with the repository's folder", err)}
	}
	if err := gatecheck.Write(o.IO.Out, rep, o.Format, buildinfo.Version); err != nil {
		return err
	}
	if rep.Failed() {
		_, _, fail, errs, _ := rep.Counts()
		noun := "errors"
		if errs == 1 {
			noun = "error"
		}
		return fmt.Errorf("gate check failed: %d %s in %d of %d checks", errs, noun, fail, len(rep.Items))
	}
	return nil
}

// GateListOptions are the flags of `vibe gate list`.
type GateListOptions struct {
	IO          cli.IO
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	Domain  string
	JSON    bool
}

// NewCmdGateList builds `vibe gate list`.
func NewCmdGateList(f *cli.Factory, runF func(*GateListOptions) error) *cobra.Command {
	opts := &GateListOptions{IO: f.IO, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the gates: kind, where enforced, trigger, thresholds (the project's domain values) and command",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runGateList(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder whose domain sets the thresholds (default: the current one)")
	fl.StringVar(&opts.Domain, "domain", "", "show the thresholds of this shipped domain")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runGateList(o *GateListOptions) error {
	var root string
	var d gate.Domain
	var err error
	if o.Domain == "" {
		// The list is a reference too: outside a project it shows the
		// generic thresholds and says so; only a named --project must be one.
		if root, err = o.ProjectRoot(o.Project, false); err != nil {
			if o.Project != "" {
				return err
			}
			fmt.Fprintf(o.IO.ErrOut, "vibe: not in a vibe project: the generic thresholds are shown (--project DIR shows a project's)\n")
			o.Domain = gate.GenericDomain
		}
	}
	if o.Domain != "" {
		if d, err = gate.ShippedDomain(o.Domain); err != nil {
			return &cli.UsageError{Err: fmt.Errorf("--domain: %w", err)}
		}
	} else if d, err = gate.LoadDomain(root); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "vibe: the project's domain config is invalid, so the generic thresholds are shown (`vibe domain validate` lists the problems)\n")
		if d, err = gate.ShippedDomain(gate.GenericDomain); err != nil {
			return err
		}
	}
	gates := gate.Registry()
	for i := range gates {
		gates[i].Thresholds = gateThresholds(gates[i], d)
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, gates)
	}
	kinds := map[gate.Kind]int{}
	for _, g := range gates {
		kinds[g.Kind]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d gates (%d code, %d schema, %d prompt); thresholds of the %s domain\n", len(gates),
		kinds[gate.KindCode], kinds[gate.KindSchema], kinds[gate.KindPrompt], d.Name)
	for _, g := range gates {
		fmt.Fprintf(&b, "\n%s  %s\n", g.ID, g.Name)
		fmt.Fprintf(&b, "  kind: %s; enforced: %s\n", g.Kind, g.Enforced)
		fmt.Fprintf(&b, "  trigger: %s\n", g.Trigger)
		if len(g.Thresholds) > 0 {
			fmt.Fprintf(&b, "  thresholds: %s\n", gateThresholdText(g.Thresholds))
		}
		if g.Command != "" {
			fmt.Fprintf(&b, "  command: %s\n", g.Command)
		}
	}
	_, err = io.WriteString(o.IO.Out, b.String())
	return err
}

// gateThresholds is g's thresholds with the domain's values for DQ1–DQ4,
// whose keys are the domain config's.
func gateThresholds(g gate.Gate, d gate.Domain) map[string]any {
	var dom map[string]any
	switch g.ID {
	case "DQ1":
		dom = map[string]any{"allowed_missing_fraction": d.DQ1.AllowedMissingFraction,
			"leakage_corr_threshold": d.DQ1.LeakageCorrThreshold, "min_samples": d.DQ1.MinSamples,
			"max_share_change": d.DQ1.MaxShareChange, "pairs.min_agreement": d.DQ1.Pairs.MinAgreement,
			"pairs.min_kappa": d.DQ1.Pairs.MinKappa, "point_mass.min_share": d.DQ1.PointMass.MinShare}
	case "DQ2":
		dom = map[string]any{"min_auc": d.DQ2.MinAUC, "min_r2": d.DQ2.MinR2, "max_dominance": d.DQ2.MaxDominance,
			"max_fold_cv": d.DQ2.MaxFoldCV, "min_groups_per_fold": d.DQ2.MinGroupsPerFold,
			"min_group_share_kept": d.DQ2.MinGroupShareKept}
	case "DQ3":
		dom = map[string]any{"max_coverage_gap": d.DQ3.MaxCoverageGap, "max_coverage": d.DQ3.MaxCoverage, "min_n": d.DQ3.MinN}
	case "DQ4":
		dom = map[string]any{"rounding": d.DQ4.Rounding, "percent_of_fraction": d.DQ4.PercentOfFraction,
			"surprising_effect": d.DQ4.SurprisingEffect}
	}
	out := g.Thresholds
	for k, v := range dom {
		if _, ok := out[k]; ok {
			out[k] = v
		}
	}
	return out
}

func gateThresholdText(t map[string]any) string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, t[k])
	}
	return strings.Join(parts, ", ")
}

// GateHistoryOptions are the flags of `vibe gate history`.
type GateHistoryOptions struct {
	IO          cli.IO
	Store       func(context.Context) (*store.Store, error)
	ProjectRoot func(dir string, all bool) (string, error)

	Project string
	Gate    string
	Claim   string
	Limit   int
	JSON    bool
}

// NewCmdGateHistory builds `vibe gate history`.
func NewCmdGateHistory(f *cli.Factory, runF func(*GateHistoryOptions) error) *cobra.Command {
	opts := &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the gate results and the hooks' decisions by gates recorded for this project, newest first",
		Long: "Lists, newest first, each gate run (by a hook after a call, or by `vibe gate run`) with its " +
			"status and checks, and each decision a hook made on a gate's verdict: a write PreToolUse denied " +
			"before it happened (DQ4, L-1, a promotion D1 refused), a turn PostToolUse blocked, a warning. A run " +
			"a hook blocked on is listed twice: the run, and the decision (DECISION block). `vibe decisions` lists " +
			"every decision, gates' or not.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Gate != "" {
				g, ok := gate.Lookup(opts.Gate)
				if !ok {
					return &cli.UsageError{Err: fmt.Errorf("--gate %q is not a gate id; `vibe gate list` shows them", opts.Gate)}
				}
				opts.Gate = g.ID
			}
			if opts.Claim != "" {
				id, ok := claim.NormaliseID(opts.Claim)
				if !ok {
					return &cli.UsageError{Err: fmt.Errorf("--claim %q is not a claim id; write it as C-001", opts.Claim)}
				}
				opts.Claim = id
			}
			if err := cli.CheckLimit(opts.Limit); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runGateHistory(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.StringVar(&opts.Gate, "gate", "", "only this gate")
	fl.StringVar(&opts.Claim, "claim", "", "only this claim")
	fl.IntVar(&opts.Limit, "limit", 20, "how many")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// gateOfCheck maps the verdict checks that decide for a gate without
// bearing its id to that gate: a promotion refused for missing gates and
// circular support are D1's, a literature drought L-1's.
var gateOfCheck = map[string]string{claimcheck.CheckPromotion: "D1", claim.CheckCircular: "D1", literature.CheckDrought: "L-1"}

// gateDecisionChecks are the checks whose decisions belong to gate id ("":
// every gate).
func gateDecisionChecks(id string) []string {
	var out []string
	for _, g := range gate.Registry() {
		if id == "" || g.ID == id {
			out = append(out, g.ID)
		}
	}
	for check, g := range gateOfCheck {
		if id == "" || g == id {
			out = append(out, check)
		}
	}
	sort.Strings(out)
	return out
}

// gateOf is the gate a decision's check belongs to.
func gateOf(check string) string {
	if g, ok := gateOfCheck[check]; ok {
		return g
	}
	return check
}

type gateHistoryJSON struct {
	// Kind is "run" for a gate run, "decision" for a hook's decision.
	Kind         string             `json:"kind"`
	ID           int64              `json:"id"`
	CheckedAt    string             `json:"checked_at"`
	Gate         string             `json:"gate"`
	Claim        string             `json:"claim,omitempty"`
	Status       record.GateStatus  `json:"status"`
	Passed       int                `json:"checks_passed"`
	Warned       int                `json:"checks_warned"`
	Failed       int                `json:"checks_failed"`
	Session      string             `json:"session,omitempty"`
	Checks       []record.GateItem  `json:"checks"`
	Inputs       []record.GateInput `json:"inputs"`
	DecisionHash string             `json:"decision_hash"`
}

// gateDecisionJSON is a hook's decision in `vibe gate history --json`: the
// entry of `vibe decisions --json` with its gate.
type gateDecisionJSON struct {
	Kind string `json:"kind"`
	Gate string `json:"gate"`
	decisions.DecisionJSON
}

func runGateHistory(ctx context.Context, o *GateHistoryOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	root, err := o.ProjectRoot(o.Project, false)
	if err != nil {
		return err
	}
	st, err := o.Store(ctx)
	if err != nil {
		return err
	}
	recs, err := st.GateHistory(ctx, root, o.Gate, o.Claim, o.Limit)
	if err != nil {
		return err
	}
	decs, err := st.Decisions(ctx, record.DecisionFilter{Project: root, Checks: gateDecisionChecks(o.Gate), Claim: o.Claim, Limit: o.Limit})
	if err != nil {
		return err
	}
	// Newest first, runs and decisions together, at most Limit.
	type entry struct {
		run *record.GateRecord
		dec *record.Decision
		at  time.Time
	}
	entries := make([]entry, 0, len(recs)+len(decs))
	for i := range recs {
		entries = append(entries, entry{run: &recs[i], at: recs[i].At})
	}
	for i := range decs {
		entries = append(entries, entry{dec: &decs[i], at: decs[i].At})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].at.After(entries[j].at) })
	entries = entries[:min(len(entries), o.Limit)]
	if o.JSON {
		out := make([]any, 0, len(entries))
		for _, e := range entries {
			if d := e.dec; d != nil {
				out = append(out, gateDecisionJSON{Kind: "decision", Gate: gateOf(d.Check), DecisionJSON: decisions.JSON([]record.Decision{*d})[0]})
				continue
			}
			r := e.run
			j := gateHistoryJSON{Kind: "run", ID: r.ID, CheckedAt: r.At.UTC().Format("2006-01-02T15:04:05Z"), Gate: r.GateID, Claim: r.ClaimID,
				Status: r.Status, Passed: r.Passed, Warned: r.Warned, Failed: r.Failed, Session: r.Session,
				Checks: r.Checks, Inputs: r.Inputs, DecisionHash: r.DecisionHash}
			if j.Checks == nil {
				j.Checks = []record.GateItem{}
			}
			if j.Inputs == nil {
				j.Inputs = []record.GateInput{}
			}
			out = append(out, j)
		}
		return cli.WriteJSON(o.IO.Out, out)
	}
	if len(entries) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "no gate results recorded for %s yet; `vibe gate run ID` computes and records one\n", root)
		return nil
	}
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		if d := e.dec; d != nil {
			c := "-"
			if len(d.Claims) > 0 {
				c = strings.Join(d.Claims, ",")
			}
			rows = append(rows, []string{"-", cli.TS(d.At), gateOf(d.Check), c, d.Result, cli.OrDash(d.Kind), "-",
				cli.OrDash(cli.ShortID(d.SessionID))})
			continue
		}
		r := e.run
		session := "cli"
		if r.Session != "" {
			session = cli.ShortID(r.Session)
		}
		rows = append(rows, []string{strconv.FormatInt(r.ID, 10), cli.TS(r.At), r.GateID, cli.OrDash(r.ClaimID), string(r.Status),
			"-", fmt.Sprintf("%d/%d/%d", r.Passed, r.Warned, r.Failed), session})
	}
	cli.Table(o.IO, "ID\tTIME\tGATE\tCLAIM\tSTATUS\tDECISION\tCHECKS ok/warn/fail\tSESSION", rows)
	return nil
}

// The CLI validates gate artifacts against the skill's JSON Schemas; the
// hook binaries leave gate.SchemaValidator unset (see its doc).
func init() { gate.SchemaValidator = schemacheck.Skill }

// gateOrigins say how DQ4's sources were written, as the hooks decide it:
// the database's lineage records, else the project's mirror.
func gateOrigins(ctx context.Context, o *GateRunOptions, root string) gate.Origins {
	st, err := o.Store(ctx)
	if err != nil {
		st = nil
	}
	return gatecheck.StoredOrigins(root, func(sha string) []lineage.Row {
		if st == nil {
			return nil
		}
		recs, err := st.LineageOf(ctx, root, sha)
		if err != nil {
			return nil
		}
		rows := make([]lineage.Row, len(recs))
		for i, l := range recs {
			rows[i] = lineage.Row{Path: l.Path, SHA256: l.SHA256, Writer: lineage.Writer(l.Writer), By: l.By, At: l.At}
		}
		return rows
	})
}
