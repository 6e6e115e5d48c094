package gate

import (
	"errors"
	"fmt"
	"os"
)

// ErrMissingInput is returned by Run when the gate needs an input file
// that was not given.
var ErrMissingInput = errors.New("missing gate input")

// ErrNotComputable is returned by Run for gates no file-based computation
// can run: prompt gates, and L-1, which depends on the session's recorded
// literature searches.
var ErrNotComputable = errors.New("gate not computable from files")

// Inputs are the files a gate reads, as given to `vibe gate run`.
type Inputs struct {
	Features    string
	Metrics     string
	Calibration string
	Findings    string
	// Content is the proposed findings content (PreToolUse); nil reads
	// Findings from disk.
	Content    []byte
	Dictionary string
	// Columns are the columns in use for DD0 when no Features table names
	// them.
	Columns    []string
	Design     string
	Deviations string
	Executed   []string
	Artifact   string
	// Origins says how DQ4's sources were written (DQ4FileFrom); nil
	// knows nothing of any.
	Origins Origins
	// PreviousProfile is DQ1's profile of the previous version of the
	// features table (Result.Profile of the last run); when set, DQ1 also
	// compares the two versions (see DQ1Compare).
	PreviousProfile *TableProfile
}

// Run computes gate id on the given inputs: the code gates on their files,
// the schema gates on Artifact. It returns ErrMissingInput (wrapped, with
// the flag to pass) when an input is absent and ErrNotComputable for
// prompt gates and L-1.
func Run(id string, in Inputs, d Domain) (Result, error) {
	g, ok := Lookup(id)
	if !ok {
		return Result{}, fmt.Errorf("run gate: %q is not a gate id (see vibe gate list)", id)
	}
	need := func(v, flag string) error {
		if v == "" {
			return fmt.Errorf("run gate %s: pass %s FILE: %w", g.ID, flag, ErrMissingInput)
		}
		return nil
	}
	switch g.ID {
	case "DQ1":
		if err := need(in.Features, "--features"); err != nil {
			return Result{}, err
		}
		return DQ1Compare(in.Features, in.PreviousProfile, d)
	case "DQ2":
		if err := need(in.Metrics, "--metrics"); err != nil {
			return Result{}, err
		}
		return DQ2(in.Metrics, d)
	case "DQ3":
		if err := need(in.Calibration, "--calibration"); err != nil {
			return Result{}, err
		}
		return DQ3(in.Calibration, d)
	case "DQ4":
		if err := need(in.Findings, "--findings"); err != nil {
			return Result{}, err
		}
		return DQ4FileFrom(in.Findings, in.Content, d, in.Origins)
	case "DD0":
		if err := need(in.Dictionary, "--dictionary"); err != nil {
			return Result{}, err
		}
		if in.Features != "" {
			return DD0Table(in.Dictionary, in.Features)
		}
		if len(in.Columns) == 0 {
			return Result{}, fmt.Errorf("run gate DD0: pass --features FILE (or the columns in use): %w", ErrMissingInput)
		}
		return DD0(in.Dictionary, in.Columns)
	case "DC0":
		if err := need(in.Design, "--design"); err != nil {
			return Result{}, err
		}
		return DC0(in.Design, in.Deviations, in.Executed)
	case "L-1":
		return Result{}, fmt.Errorf("run gate L-1: it is judged from the literature searches recorded in the session, by the PreToolUse hook and vibe gate check: %w", ErrNotComputable)
	}
	if g.Kind == KindSchema {
		if err := need(in.Artifact, "--artifact"); err != nil {
			return Result{}, err
		}
		raw, err := os.ReadFile(in.Artifact)
		if err != nil {
			return Result{}, fmt.Errorf("run gate %s: %w", g.ID, err)
		}
		res := ValidateSchema(g.Schema, raw)
		res.Inputs = append(res.Inputs, in.Artifact)
		return res, nil
	}
	return Result{}, fmt.Errorf("run gate %s: it is a prompt-level gate; perform it and record `Gate %s: PASS|FAIL — what you checked` in PROGRESS.md: %w", g.ID, g.ID, ErrNotComputable)
}
