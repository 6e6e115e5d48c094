package integritycheck

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/verdict"
)

// ledgerName is the claim ledger's file name.
const ledgerName = "CLAIM-LEDGER.md"

// Check runs the integrity monitor over a project: the D1 circular-logic
// verdict of the whole evidence graph (the claim ledger and the reviewer
// files under 05-reviewer2/; PASS or WARN), then, when st is not nil, one
// D3-threshold-drift verdict per domain with changes recorded in the drift
// window before now, sorted by domain (PASS, WARN at 800 bps, BLOCK at
// 1000 bps or more). root is the project root.
func Check(ctx context.Context, st Reads, root string, now time.Time) ([]verdict.Verdict, error) {
	proj := project.Project{Root: root}
	l, err := readLedgers(proj)
	if err != nil {
		return nil, err
	}
	reviews, err := claimcheck.ReadReviews(proj)
	if err != nil {
		return nil, err
	}
	g := claim.BuildGraph(l, reviews)
	out := []verdict.Verdict{claim.CycleVerdict("", g.Cycles(), false)}
	if st == nil {
		return out, nil
	}
	domains, err := st.ThresholdDomains(ctx, root, now.Add(-integrity.DefaultDriftWindow))
	if err != nil {
		return nil, fmt.Errorf("integrity check: %w", err)
	}
	for _, d := range domains {
		history, err := thresholdHistory(ctx, st, proj, d, now)
		if err != nil {
			return nil, fmt.Errorf("integrity check: %w", err)
		}
		r := integrity.Drift(d, history, now, integrity.DefaultDriftWindow)
		out = append(out, integrity.DriftVerdictFor(r, nil))
	}
	return out, nil
}

// readLedgers parses the project's claim ledger: .vibe-science/CLAIM-LEDGER.md
// and, for projects that keep it at the top, CLAIM-LEDGER.md. A claim in both
// counts once, as the research folder's copy has it. Entries the parser
// cannot read are left out; the ledger checks report them.
func readLedgers(proj project.Project) (claim.Ledger, error) {
	var out claim.Ledger
	have := map[string]bool{}
	for _, p := range []string{proj.Path(ledgerName), filepath.Join(proj.Root, ledgerName)} {
		content, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("integrity check: read claim ledger: %w", err)
		}
		l, _ := claim.ParseLedger(content)
		for _, c := range l.Claims {
			if !have[c.ID] {
				have[c.ID] = true
				out.Claims = append(out.Claims, c)
			}
		}
	}
	return out, nil
}

// Unseen returns vs without the WARN and PASS verdicts whose decision hash
// the project's advisory log already holds, and without repeats inside vs,
// so a note is shown and recorded once (integrity.Dedup). Denials (BLOCK,
// HARD_BLOCK) and verdicts that ask the person (brief.NeedsConfirm) are
// kept whatever the log holds: they must answer every call.
func Unseen(ctx context.Context, st Reads, proj project.Project, vs []verdict.Verdict) ([]verdict.Verdict, error) {
	var hashes []string
	for _, v := range vs {
		if repeatable(v) {
			hashes = append(hashes, v.DecisionHash)
		}
	}
	seen := map[string]bool{}
	if len(hashes) > 0 && st != nil {
		var err error
		if seen, err = st.SeenDecisionHashes(ctx, proj.Root, hashes); err != nil {
			return vs, fmt.Errorf("deduplicate verdicts: %w", err)
		}
	}
	// The hash covers the check, its input and the result, so a hash names
	// either a repeatable note or a denial, never both.
	return integrity.Dedup(vs, func(h string) bool { return seen[h] }), nil
}

// repeatable reports whether v is a note that need not be shown twice.
func repeatable(v verdict.Verdict) bool {
	return v.DecisionHash != "" && (v.Result == verdict.Warn || v.Result == verdict.Pass) && !brief.NeedsConfirm(v)
}
