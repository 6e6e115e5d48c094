package handler

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vibe-science/vibe/internal/artifact"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

// ledgerNet judges the claim ledgers tamper finds changed after a call (or
// at Stop), whatever changed them: a script that rewrites PROVISIONAL as
// PROMOTED goes through the same claimcheck.Judge as an Edit before it is
// written. A change that promotes a claim without what its promotion needs
// is vetoed, so tamper puts the ledger back as it was (its change moved to
// quarantine) and the call is blocked with what is missing; a change that
// stands is listed in changed, for its claim events to be recorded.
type ledgerNet struct {
	env  *hookrun.Env
	proj project.Project
	// judged are the ledgers PreToolUse already judged this call's change
	// of (a Write or Edit naming them): their warnings were given then.
	judged []string
	// changed are the ledgers whose change stands, project-relative.
	changed []string
}

// veto is the tamper.Veto of the net.
func (n *ledgerNet) veto(ctx context.Context) func(rel string, content func() (old, cur []byte, err error)) (verdict.Verdict, bool) {
	return func(rel string, content func() (old, cur []byte, err error)) (verdict.Verdict, bool) {
		if !claimcheck.IsLedger(rel) {
			return verdict.Verdict{}, false
		}
		old, cur, err := content()
		if err != nil {
			n.env.Logf("ledger net: read %s: %v", rel, err)
			n.changed = append(n.changed, rel) // its events are still recorded from the file
			return verdict.Verdict{}, false
		}
		st, stErr := n.env.Store(ctx)
		if stErr != nil {
			st = nil
		}
		if old == nil && st != nil {
			// tamper kept no content (a new file, or one kept as its hash):
			// the ledger's last recorded state stands in.
			old = lastRecorded(ctx, n.env, st, n.proj, rel)
		}
		d, derr := gate.LoadDomain(n.proj.Root)
		if derr != nil {
			d, _ = gate.ShippedDomain(gate.GenericDomain)
		}
		vs := ledgerJudge(ctx, n.proj, d, st, n.env.Now()).Check(ctx, rel, old, cur)
		var blocks, warns []verdict.Verdict
		for _, v := range vs {
			if v.Result.Blocks() {
				blocks = append(blocks, v)
			} else if !slices.Contains(n.judged, rel) {
				warns = append(warns, v)
			}
		}
		if len(blocks) > 0 {
			return joined(blocks), true
		}
		n.changed = append(n.changed, rel)
		if len(warns) > 0 {
			return joined(warns), true
		}
		return verdict.Verdict{}, false
	}
}

// resting are the blocks of a ledger change that stands: a claim whose
// evidence now names a data file its research question's design does not
// plan rests on an unrecorded deviation (DC0). The ledger stays as it is:
// recording the deviation, or citing planned data, is the fix.
func (n *ledgerNet) resting(by string) []verdict.Verdict {
	if len(n.changed) == 0 {
		return nil
	}
	var out []verdict.Verdict
	for _, j := range artifact.Resting(n.proj.Root) {
		for k, in := range j.Result.Inputs {
			j.Result.Inputs[k] = n.proj.Rel(in)
		}
		v := j.Result.Verdict()
		v.Reason = fmt.Sprintf("%s changed during this %s call. %s", strings.Join(n.changed, ", "), by, v.Reason)
		v.Evidence.Claims = append(v.Evidence.Claims, j.Claims...)
		v.Evidence.Paths = append(v.Evidence.Paths, j.Rel)
		out = append(out, v)
	}
	return out
}

// lastRecorded is the ledger content last recorded for rel (nil: none).
func lastRecorded(ctx context.Context, env *hookrun.Env, st *store.Store, proj project.Project, rel string) []byte {
	var content []byte
	err := st.Tx(ctx, func(tx *store.Tx) error {
		var err error
		content, _, err = tx.LedgerSnapshot(ctx, proj.Root, rel)
		return err
	})
	if err != nil {
		env.Logf("ledger net: read the recorded %s: %v", rel, err)
	}
	return content
}

// joined makes one verdict of several of one kind (tamper takes one per
// file): the first's check and result, every reason and claim.
func joined(vs []verdict.Verdict) verdict.Verdict {
	if len(vs) == 1 {
		return vs[0]
	}
	v := vs[0]
	for _, w := range vs[1:] {
		v.Reason += " " + w.Reason
		v.Evidence.Claims = append(v.Evidence.Claims, w.Evidence.Claims...)
		if v.Recommendation == "" {
			v.Recommendation = w.Recommendation
		}
	}
	return v
}
