package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/gate"
)

// NewCmdDomain builds `vibe domain show|validate`.
func NewCmdDomain(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "domain", Short: "Show and validate domain configs (gate thresholds, literature sources)"}
	cmd.AddCommand(NewCmdDomainShow(f, nil), NewCmdDomainValidate(f, nil))
	return cmd
}

// DomainShowOptions are the flags of `vibe domain show`.
type DomainShowOptions struct {
	IO          cli.IO
	ProjectRoot func(dir string, all bool) (string, error)

	// Name is a shipped domain; empty shows the project's effective config.
	Name    string
	Project string
	JSON    bool
}

// NewCmdDomainShow builds `vibe domain show`.
func NewCmdDomainShow(f *cli.Factory, runF func(*DomainShowOptions) error) *cobra.Command {
	opts := &DomainShowOptions{IO: f.IO, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show the project's effective domain config, or a shipped domain, with thresholds and literature sources",
		Long: "Without NAME, shows the domain the project's gates use: the shipped domain named in\n" +
			".vibe-science/domain-config.json with the project's overrides applied (the generic domain when\n" +
			"there is no config). With NAME, shows that shipped domain (" + strings.Join(gate.ShippedDomains(), ", ") + ").",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &cli.UsageError{Err: fmt.Errorf("give at most one domain name; the shipped domains are %s", strings.Join(gate.ShippedDomains(), ", "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runDomainShow(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runDomainShow(o *DomainShowOptions) error {
	var d gate.Domain
	var source string
	if o.Name != "" {
		var err error
		if d, err = gate.ShippedDomain(o.Name); err != nil {
			return &cli.UsageError{Err: err}
		}
		source = "shipped, blueprints/domains/" + d.Name + ".json"
	} else {
		root, err := o.ProjectRoot(o.Project, false)
		if err != nil {
			return err
		}
		if d, err = gate.LoadDomain(root); err != nil {
			return fmt.Errorf("%w\nRun `vibe domain validate` to see each problem with its field", err)
		}
		source = domainSource(root, d)
	}
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, d)
	}
	_, err := io.WriteString(o.IO.Out, domainText(d, source))
	return err
}

// domainSource says where a project's effective domain came from.
func domainSource(root string, d gate.Domain) string {
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(gate.DomainConfigPath))); err != nil {
		return "no " + gate.DomainConfigPath + ", so the shipped generic domain applies"
	}
	base := d.Name
	if d.Extends != "" {
		base = d.Extends
	}
	return gate.DomainConfigPath + ", over the shipped " + base + " domain"
}

func domainList(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ", ")
}

func domainNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// domainText renders a domain config for people, section by section.
func domainText(d gate.Domain, source string) string {
	var b strings.Builder
	title := d.Name
	if d.DisplayName != "" {
		title += " (" + d.DisplayName + ")"
	}
	fmt.Fprintf(&b, "domain: %s\n", title)
	if d.Extends != "" {
		fmt.Fprintf(&b, "extends: %s\n", d.Extends)
	}
	fmt.Fprintf(&b, "source: %s\n", source)
	if d.Notes != "" {
		fmt.Fprintf(&b, "notes: %s\n", d.Notes)
	}

	l := d.Literature
	rag := "none"
	if l.CuratedRAG != nil {
		rag = *l.CuratedRAG
	}
	fmt.Fprintf(&b, "\nliterature sources\n  primary: %s\n  secondary: %s\n  datasets: %s\n  preprints: %s\n  grey: %s\n  curated RAG: %s\n",
		domainList(l.Primary), domainList(l.Secondary), domainList(l.Datasets), domainList(l.Preprints), domainList(l.Grey), rag)

	fl := d.Files
	fmt.Fprintf(&b, "\nfiles that fire the gates\n  features (DQ1, DD0): %s\n  metrics (DQ2): %s\n  calibration (DQ3): %s\n  findings (DQ4): %s\n  dictionary (DD0): %s\n",
		domainList(fl.Features), domainList(fl.Metrics), domainList(fl.Calibration), domainList(fl.Findings), domainList(fl.Dictionary))

	q1 := d.DQ1
	label := q1.LabelColumn
	if label == "" {
		label = "(the first of label, y, target in the header)"
	}
	fmt.Fprintf(&b, "\nDQ1 features\n  label_column: %s\n  allowed_missing_fraction: %s\n  leakage_corr_threshold: %s\n  min_samples: %d\n  required_columns: %s\n",
		label, domainNum(q1.AllowedMissingFraction), domainNum(q1.LeakageCorrThreshold), q1.MinSamples, domainList(q1.RequiredColumns))
	for _, c := range q1.Checks {
		fmt.Fprintf(&b, "  check %s: %s of %s", c.Name, domainCheckRule(c), domainList(c.Columns))
		if c.Required {
			b.WriteString(" (required)")
		}
		b.WriteByte('\n')
		if c.Why != "" {
			fmt.Fprintf(&b, "    why: %s\n", c.Why)
		}
	}
	fmt.Fprintf(&b, "\nDQ2 model\n  min_auc: %s\n  min_r2: %s\n  max_dominance: %s\n  max_fold_cv: %s\n",
		domainNum(d.DQ2.MinAUC), domainNum(d.DQ2.MinR2), domainNum(d.DQ2.MaxDominance), domainNum(d.DQ2.MaxFoldCV))
	fmt.Fprintf(&b, "\nDQ3 calibration\n  max_coverage_gap: %s\n  max_coverage: %s\n  min_n: %d\n",
		domainNum(d.DQ3.MaxCoverageGap), domainNum(d.DQ3.MaxCoverage), d.DQ3.MinN)
	fmt.Fprintf(&b, "\nDQ4 findings\n  rounding: %s\n  percent_of_fraction: %v\n", d.DQ4.Rounding, d.DQ4.PercentOfFraction)

	table, which := d.Promotion, "the domain's table"
	if table == nil {
		table, which = claim.DefaultPromotionGates, "the methodology's default"
	}
	tiers := make([]int, 0, len(table))
	for t := range table {
		tiers = append(tiers, t)
	}
	sort.Ints(tiers)
	fmt.Fprintf(&b, "\npromotion gates per claim tier (%s; every promotion also needs %s and a Reviewer 2 review)\n", which, claim.PromotionGate)
	for _, t := range tiers {
		fmt.Fprintf(&b, "  tier %d: %s\n", t, strings.Join(table[t], ", "))
	}
	return b.String()
}

// domainCheckRule says a domain column check's rule in words.
func domainCheckRule(c gate.ColumnCheck) string {
	rng := "[?, ?]"
	if len(c.Range) == 2 {
		rng = fmt.Sprintf("[%s, %s]", domainNum(c.Range[0]), domainNum(c.Range[1]))
	}
	min := "?"
	if c.Min != nil {
		min = domainNum(*c.Min)
	}
	switch c.Kind {
	case gate.CheckMeanWithin:
		return "mean within " + rng
	case gate.CheckValuesWithin:
		return "every value within " + rng
	case gate.CheckValuesAtLeast:
		return "every value at least " + min
	case gate.CheckFractionNonzero:
		return "fraction of non-zero values at least " + min
	}
	return c.Kind
}

// DomainValidateOptions are the flags of `vibe domain validate`.
type DomainValidateOptions struct {
	IO          cli.IO
	ProjectRoot func(dir string, all bool) (string, error)

	// File is the config to validate; empty means the project's
	// .vibe-science/domain-config.json.
	File    string
	Project string
}

// NewCmdDomainValidate builds `vibe domain validate`.
func NewCmdDomainValidate(f *cli.Factory, runF func(*DomainValidateOptions) error) *cobra.Command {
	opts := &DomainValidateOptions{IO: f.IO, ProjectRoot: f.ProjectRoot}
	cmd := &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Validate a domain config (default: the project's .vibe-science/domain-config.json); exit 1 when invalid",
		Long: "Checks that the config names a shipped domain (or extends one), uses only known keys, and keeps every\n" +
			"threshold in its range once merged with the domain it starts from. Each problem is printed with the\n" +
			"path of its field (dq1.leakage_corr_threshold: …).",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &cli.UsageError{Err: fmt.Errorf("give at most one file")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runDomainValidate(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	return cmd
}

func runDomainValidate(o *DomainValidateOptions) error {
	file, shown := o.File, o.File
	if file == "" {
		pr, err := o.ProjectRoot(o.Project, false)
		if err != nil {
			return err
		}
		root := pr
		file = filepath.Join(root, filepath.FromSlash(gate.DomainConfigPath))
		shown = gate.DomainConfigPath
	}
	raw, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist) && o.File == "":
		fmt.Fprintf(o.IO.ErrOut, "no %s: the project uses the generic domain; `vibe domain show generic` prints it\n", gate.DomainConfigPath)
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return &cli.UsageError{Err: fmt.Errorf("%s does not exist", file)}
	case err != nil:
		return fmt.Errorf("read domain config: %w", err)
	}
	errs := gate.ValidateDomain(raw)
	if len(errs) == 0 {
		var head struct {
			Domain  string `json:"domain"`
			Extends string `json:"extends"`
		}
		_ = json.Unmarshal(raw, &head)
		what := "domain " + head.Domain
		if head.Extends != "" {
			what += ", extending " + head.Extends
		}
		fmt.Fprintf(o.IO.Out, "%s: valid (%s)\n", shown, what)
		return nil
	}
	for _, e := range errs {
		fmt.Fprintf(o.IO.Out, "%s: %v\n", shown, e)
	}
	problems := "problems"
	if len(errs) == 1 {
		problems = "problem"
	}
	return fmt.Errorf("%s is invalid: %d %s; fix each field as its message says", shown, len(errs), problems)
}
