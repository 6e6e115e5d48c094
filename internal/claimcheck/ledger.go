// Package claimcheck connects the claim ledger on disk to the hooks. It judges
// an edit of the ledger (Judge: promotions need their tier's gates, D1 and a
// review, claim.PromotionShortfall; a promoted claim's support may not be
// circular, nor its entry cite a paper the project did not retrieve)
// before a write on the proposed content and after any call on
// the ledger on disk, whatever wrote it; after a change it turns the change
// since the last snapshot into claim events; it records R2 reviews that cite claims; and at Stop it
// applies LAW 4 (claims created in the session must be reviewed, killed or
// disputed). Parsing and diffing live in internal/claim; SQL in store,
// reached only through the Writes and StopWrites interfaces of store.go.
package claimcheck

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// FileName is the ledger's file name; any path whose base name equals it,
// ignoring case, is a ledger.
const FileName = "CLAIM-LEDGER.md"

// Check names used in verdicts.
const (
	CheckPromotion = "claim-promotion"
	CheckLedger    = "claim-ledger"
	CheckLaw4      = "LAW4-review-before-stop"
)

// IsLedger reports whether a project-relative path is a claim ledger.
func IsLedger(rel string) bool {
	return strings.EqualFold(path.Base(filepath.ToSlash(rel)), FileName)
}

// IsReview reports whether a project-relative path is a reviewer file.
func IsReview(rel string) bool {
	return strings.Contains(strings.ToLower(filepath.ToSlash(rel)), "05-reviewer2/")
}

// Gates answers which gates have passed for a claim; nil means the record
// is unavailable.
type Gates func(ctx context.Context, claimID string) (map[string]bool, error)

// Command returns the command that passes a gate for a claim.
type Command func(gateID, claimID string) string

// Salvage judges a claim the write kills (the Salvagente rule); nil skips it.
type Salvage func(killed claim.Claim) verdict.Verdict

// Judge is what an edit of a claim ledger is judged with: before it is
// written (PreToolUse, on the proposed content) and after (PostToolUse, on
// the ledger on disk, whatever wrote it), by the same rules.
type Judge struct {
	Project project.Project
	// Table is the domain's promotion table; nil means the methodology's.
	Table map[int][]string
	// Passed says which gates passed for a claim; nil: the record is
	// unavailable, and every promotion is refused for want of it.
	Passed Gates
	// Command names the command that passes a gate for a claim.
	Command Command
	// Record names where a claim's D1 record is, or goes when there is
	// none yet (gatecheck.PromotionRecord); nil names the usual place.
	Record func(c claim.Claim) string
	// Salvage judges the claims the edit kills; nil skips them.
	Salvage Salvage
	// Retrieved says which of the paper ids a promoted claim's entry cites
	// the project retrieved (store.Retrieved); nil, or an error, leaves
	// only the ids that cannot exist to block, since the gate record's
	// absence blocks the promotion anyway.
	Retrieved func(ctx context.Context, ids []string) (map[string]bool, error)
	// Now is the clock of the citations' offline checks.
	Now time.Time
	// Unbacked lists the results a claim being promoted rests on that no
	// computation wrote (written by hand), each said in a few words
	// (gatecheck.UnbackedEvidence); nil skips the check.
	Unbacked func(c claim.Claim) []string
}

// Check judges the edit of the ledger rel from old to proposed. A promotion
// (to PROMOTED or VERIFIED, a claim written straight in as one included)
// is a BLOCK unless claim.PromotionShortfall finds nothing missing: every
// gate of its tier and D1 passed for it, and a Reviewer 2 report cites it;
// its support may not be circular, nor rest on a result written by hand
// (Unbacked), and its entry may cite no paper id the project did not
// retrieve or that cannot exist (the citation audit). A kill Salvage
// reports is judged by it. Unreadable entries and removed claims are WARNs.
func (j Judge) Check(ctx context.Context, rel string, old, proposed []byte) []verdict.Verdict {
	oldL, _ := claim.ParseLedger(old)
	newL, errs := claim.ParseLedger(proposed)
	events := claim.Diff(oldL, newL)
	var out []verdict.Verdict
	if len(errs) > 0 {
		lines := make([]string, 0, len(errs))
		for _, e := range errs {
			lines = append(lines, e.Error())
		}
		v := verdict.New(CheckLedger, verdict.Warn, verdict.Med,
			fmt.Sprintf("%s has entries vibe cannot read, so their changes are not tracked: %s", rel, strings.Join(lines, "; ")),
			map[string]any{"path": rel, "errors": lines})
		v.Recommendation = "Follow the format in skill/vibe/formats/claim-ledger.md."
		v.Evidence.Paths = []string{rel}
		out = append(out, v)
	}
	if removed := claim.Removed(oldL, newL); len(removed) > 0 {
		v := verdict.New(CheckLedger, verdict.Warn, verdict.Med,
			fmt.Sprintf("%s removes %s from the ledger; a claim that was wrong should be KILLED with its kill-reason, not deleted, so its history stays.",
				rel, strings.Join(removed, ", ")), map[string]any{"path": rel, "removed": removed})
		v.Evidence.Claims = removed
		out = append(out, v)
	}
	if j.Salvage != nil {
		for _, e := range events {
			if e.Type != claim.EventKilled {
				continue
			}
			if c, ok := newL.Find(e.ClaimID); ok {
				if v := j.Salvage(c); v.Result != verdict.Pass {
					out = append(out, v)
				}
			}
		}
	}
	promoted := claim.Promotions(events)
	if len(promoted) == 0 {
		return out
	}
	// An unreadable review only weakens the cycle check and counts as no
	// review; the gates still run.
	reviews, _ := ReadReviews(j.Project)
	cited := map[string]bool{}
	for _, content := range reviews {
		for _, id := range claim.CitedClaims(content) {
			cited[id] = true
		}
	}
	graph := claim.BuildGraph(newL, reviews)
	for _, id := range promoted {
		c, _ := newL.Find(id)
		var have map[string]bool
		var err error
		if j.Passed != nil {
			have, err = j.Passed(ctx, id)
		}
		short := claim.PromotionShortfall(c, j.Table, have, cited[id])
		if j.Passed == nil || err != nil {
			why := "the gate record is unavailable"
			if err != nil {
				why += " (" + err.Error() + ")"
			}
			v := verdict.New(CheckPromotion, verdict.Block, verdict.High,
				fmt.Sprintf("%s cannot be promoted now: %s, so vibe cannot confirm that %s passed.", id, why, strings.Join(short.Required, ", ")),
				map[string]any{"claim": id, "required": short.Required})
			v.Recommendation = "Run `vibe doctor`, then retry the promotion."
			v.Evidence.Claims = []string{id}
			out = append(out, v)
			continue
		}
		if !short.None() {
			record := c.ID + "-promotion.json in its research question's 04-results/"
			if j.Record != nil {
				record = j.Record(c)
			}
			command := func(g string) string { return j.Command(g, id) }
			v := verdict.New(CheckPromotion, verdict.Block, verdict.High,
				fmt.Sprintf("%s cannot become %s (tier %d needs %s and a review): %s.",
					id, c.Status, claim.EffectiveTier(c), strings.Join(short.Required, ", "), short.Missing(id, command, record)),
				map[string]any{"claim": id, "status": c.Status, "required": short.Required, "missing": short.Gates, "review": !short.Review})
			v.Recommendation = fmt.Sprintf("Keep %s PROVISIONAL until then, and promote it again.", id)
			v.Evidence.Claims = []string{id}
			out = append(out, v)
		}
		if j.Unbacked != nil {
			if hand := j.Unbacked(c); len(hand) > 0 {
				v := verdict.New(CheckPromotion, verdict.Block, verdict.High,
					fmt.Sprintf("%s cannot become %s: it rests on %s; a promotion rests only on results a computation wrote.",
						id, c.Status, strings.Join(hand, "; ")),
					map[string]any{"claim": id, "status": c.Status, "hand_written": hand})
				v.Recommendation = fmt.Sprintf("Re-run the script that computes them through Bash (vibe records how each was made), then promote %s again.", id)
				v.Evidence.Claims = []string{id}
				out = append(out, v)
			}
		}
		if cv := claim.CycleVerdict(id, graph.SupportCycles(id), true); cv.Result != verdict.Pass {
			out = append(out, cv)
		}
		if fs := j.unvouched(ctx, newL, proposed, c); len(fs) > 0 {
			out = append(out, citation.PromotionVerdict(id, c.Status, rel, fs))
		}
	}
	return out
}

// unvouched are the citations of c's ledger entry the record does not
// vouch for, once per id: the promotion waits for them.
func (j Judge) unvouched(ctx context.Context, l claim.Ledger, content []byte, c claim.Claim) []citation.Finding {
	text, first := l.Entry(content, c)
	cites := citation.Cites([]byte(text))
	if len(cites) == 0 {
		return nil
	}
	for i := range cites {
		cites[i].Line += first - 1
	}
	var retrieved map[string]bool
	known := false
	if j.Retrieved != nil {
		var err error
		retrieved, err = j.Retrieved(ctx, citation.IDsOf(cites))
		known = err == nil
	}
	seen := map[string]bool{}
	var out []citation.Finding
	for _, f := range citation.Unvouched(cites, retrieved, j.Now) {
		if seen[f.ID] || !known && f.Status != citation.StatusInvalid {
			continue
		}
		seen[f.ID] = true
		out = append(out, f)
	}
	return out
}

// MaxReviewBytes skips reviewer files larger than any review.
const MaxReviewBytes = 1 << 20

// ReadReviews reads the project's reviewer files (05-reviewer2/ at the root,
// in .vibe-science/ and in each research question) by bounded globs, never
// a tree walk; keys are project-relative paths.
func ReadReviews(proj project.Project) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, pattern := range []string{
		filepath.Join(proj.VibeDir(), "05-reviewer2", "*"),
		filepath.Join(proj.VibeDir(), "RQ-*", "05-reviewer2", "*"),
		filepath.Join(proj.Root, "RQ-*", "05-reviewer2", "*"),
		filepath.Join(proj.Root, "05-reviewer2", "*"),
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("find reviews: %w", err)
		}
		for _, m := range matches {
			info, err := os.Stat(m)
			if err != nil || !info.Mode().IsRegular() || info.Size() > MaxReviewBytes {
				continue
			}
			b, err := os.ReadFile(m)
			if err != nil {
				return nil, fmt.Errorf("read review: %w", err)
			}
			out[proj.Rel(m)] = b
		}
	}
	return out, nil
}

// Record turns the change of a ledger since its last snapshot into claim
// events and stores the new snapshot. With no snapshot yet, every claim in
// the file is new to vibe and recorded as such.
func Record(ctx context.Context, tx Writes, session, projectRoot, rel string, current []byte, at time.Time, ref string) ([]claim.Event, error) {
	prev, _, err := tx.LedgerSnapshot(ctx, projectRoot, rel)
	if err != nil {
		return nil, err
	}
	oldL, _ := claim.ParseLedger(prev)
	newL, _ := claim.ParseLedger(current)
	events := claim.Diff(oldL, newL)
	if err := tx.AddClaimEvents(ctx, session, projectRoot, at, toStore(events, ref)); err != nil {
		return nil, err
	}
	// Final outcomes (verified, killed, disputed) feed the calibration log
	// with the confidence the claim had before.
	for _, e := range events {
		r := calibrate.Resolution{Event: e}
		if before, ok := oldL.Find(e.ClaimID); ok {
			r.Before = &before
		}
		if _, err := calibrate.RecordOutcome(ctx, tx, projectRoot, session, r, at); err != nil {
			return nil, err
		}
	}
	return events, tx.SaveLedgerSnapshot(ctx, projectRoot, rel, current, at)
}

// Baseline snapshots the project's ledgers that vibe has never seen, without
// events, so claims that existed before vibe was installed are not counted
// as created in this session.
func Baseline(ctx context.Context, tx Writes, proj project.Project, at time.Time) error {
	for _, abs := range paths(proj) {
		content, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		rel := proj.Rel(abs)
		if _, ok, err := tx.LedgerSnapshot(ctx, proj.Root, rel); err != nil || ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := tx.SaveLedgerSnapshot(ctx, proj.Root, rel, content, at); err != nil {
			return err
		}
	}
	return nil
}

// paths are where a project's claim ledger may be: its .vibe-science
// folder, then its root.
func paths(proj project.Project) []string {
	return []string{proj.Path(FileName), filepath.Join(proj.Root, FileName)}
}

// Exists reports whether the project has a claim ledger (Baseline has
// something to look at).
func Exists(proj project.Project) bool {
	for _, abs := range paths(proj) {
		if _, err := os.Stat(abs); err == nil {
			return true
		}
	}
	return false
}

// RecordReview records R2_REVIEWED for every claim a reviewer file cites.
func RecordReview(ctx context.Context, tx Writes, session, projectRoot, rel string, content []byte, at time.Time) ([]claim.Event, error) {
	evs := claim.ReviewEvents(rel, content)
	return evs, tx.AddClaimEvents(ctx, session, projectRoot, at, toStore(evs, rel))
}

func toStore(evs []claim.Event, ref string) []record.ClaimEvent {
	out := make([]record.ClaimEvent, 0, len(evs))
	for _, e := range evs {
		se := record.ClaimEvent{ClaimID: e.ClaimID, Type: e.Type, OldStatus: e.OldStatus, NewStatus: e.NewStatus,
			KillReason: e.KillReason, Narrative: e.Narrative, SourceRef: ref}
		if e.HasConfidence {
			c := e.Confidence
			se.Confidence = &c
		}
		out = append(out, se)
	}
	return out
}

// StopCheck applies LAW 4 at the end of a main-thread turn: while claims
// created in the session lack a review, kill or dispute, ending the turn is
// blocked, at most limit times in a row; after that the turn may end and a
// warning is recorded. stopHookActive is Claude Code's flag that this Stop
// follows a block; a fresh turn starts the count again.
func StopCheck(ctx context.Context, tx StopWrites, session string, stopHookActive bool, limit int) ([]verdict.Verdict, error) {
	s, err := tx.Session(ctx, session)
	if err != nil {
		return nil, err
	}
	blocks := s.StopBlocks
	if !stopHookActive {
		blocks = 0
	}
	ids, err := tx.UnreviewedClaims(ctx, session)
	if err != nil {
		return nil, err
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return nil, tx.SetStopBlocks(ctx, session, 0)
	}
	input := map[string]any{"session": session, "claims": ids}
	if blocks >= limit {
		v := verdict.New(CheckLaw4, verdict.Warn, verdict.High,
			fmt.Sprintf("LAW 4: the turn ended with %s still unreviewed after %d blocked attempts; this is recorded.",
				strings.Join(ids, ", "), blocks), input)
		v.Recommendation = "Have reviewer2 review them (`/vibe:review`), or kill or dispute them in CLAIM-LEDGER.md."
		v.Evidence.Claims = ids
		return []verdict.Verdict{v}, tx.SetStopBlocks(ctx, session, 0)
	}
	v := verdict.New(CheckLaw4, verdict.Block, verdict.High,
		fmt.Sprintf("LAW 4: claims created in this session have no review yet: %s. Before ending the turn, get a reviewer2 review that cites them (write it under 05-reviewer2/), or mark them KILLED or DISPUTED in CLAIM-LEDGER.md with a reason.",
			strings.Join(ids, ", ")), input)
	v.Recommendation = "Run the reviewer2 subagent (`/vibe:review`) on these claims."
	v.Evidence.Claims = ids
	return []verdict.Verdict{v}, tx.SetStopBlocks(ctx, session, blocks+1)
}
