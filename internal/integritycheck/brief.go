package integritycheck

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// errNoStore is returned where a function needs the database and was given
// none.
var errNoStore = fault.Errorf(fault.Unavailable, "read brief", "no database")

// Prepared is a brief read from a file and made ready to store: Problems
// are the syntax errors (each naming the file and line) and the validation
// errors that keep it from being ingested; PinErrors name the anchors whose
// code could not be read, which are stored unpinned (Unrecorded).
type Prepared struct {
	Brief     brief.Brief
	Problems  []error
	PinErrors []error
}

// PrepareBrief parses and validates content read from name (a path relative
// to the project root, which is also the brief's Source) and pins its
// anchors against the code under root.
func PrepareBrief(root, name string, content []byte) Prepared {
	b, errs := brief.Parse(name, content)
	errs = append(errs, brief.Validate(b)...)
	p := Prepared{Brief: b, Problems: errs}
	if len(errs) == 0 {
		b.Anchors, p.PinErrors = brief.Pin(root, b.Anchors, nil)
		p.Brief = b
	}
	return p
}

// ProblemsError is a brief that cannot be ingested, with every problem.
type ProblemsError struct {
	Source   string
	Problems []error
}

func (e *ProblemsError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + p.Error()
	}
	return fmt.Sprintf("brief %s has %d problem(s); fix them and ingest again:\n%s", e.Source, len(e.Problems), strings.Join(lines, "\n"))
}

// Ingested is a brief version just stored.
type Ingested struct {
	Version   record.BriefVersion
	Brief     brief.Brief
	PinErrors []error
}

// IngestBrief prepares a brief and stores it as the project's newest
// version. A brief with problems is not stored: the error is a
// *ProblemsError of kind Invalid listing them all.
func IngestBrief[W Writes](ctx context.Context, st Store[W], proj project.Project, name string, content []byte, now time.Time) (Ingested, error) {
	if st == nil {
		return Ingested{}, errNoStore
	}
	p := PrepareBrief(proj.Root, name, content)
	if len(p.Problems) > 0 {
		return Ingested{}, fault.E(fault.Invalid, "ingest brief", &ProblemsError{Source: name, Problems: p.Problems})
	}
	raw, err := json.Marshal(p.Brief)
	if err != nil {
		return Ingested{}, fmt.Errorf("ingest brief: encode: %w", err)
	}
	v := record.BriefVersion{ProjectPath: proj.Root, SourcePath: p.Brief.Source, Hash: p.Brief.Hash, Title: p.Brief.Title,
		Content: raw, Constraints: len(p.Brief.Constraints), Decisions: len(p.Brief.Decisions),
		Anchors: len(p.Brief.Anchors), IngestedAt: now}
	err = st.Tx(ctx, func(tx W) error {
		id, err := tx.AddBrief(ctx, v)
		v.ID = id
		return err
	})
	if err != nil {
		return Ingested{}, fmt.Errorf("ingest brief: %w", err)
	}
	v.IngestedAt = time.UnixMilli(now.UnixMilli()).UTC()
	in := Ingested{Version: v, Brief: p.Brief, PinErrors: p.PinErrors}
	// Scrubbed as the database's version is (a constraint may quote a
	// credential): one copy is under VIBE_HOME, the other in the project.
	clean := privacy.ScrubJSON(raw)
	if err := errors.Join(writeBriefCopy(BriefCopy(st.Path(), proj.Root), clean),
		writeBriefCopy(filepath.Join(proj.Root, filepath.FromSlash(ProjectBriefFile)), clean)); err != nil {
		return in, fault.E(fault.Unavailable, "ingest brief", fmt.Errorf(
			"stored as version %d, but a copy that enforces its constraints while the database is down could not be written (%w); ingest it again", v.ID, err))
	}
	return in, nil
}

// ProjectBriefFile is the project's copy of its current brief, written at
// ingest. No role may write it (the permission policy locks it) and the
// safety net keeps it in its snapshot: it enforces the Critical
// constraints when neither the database nor the copy beside it can be
// read, and it is where the net reads which files those constraints bind.
const ProjectBriefFile = ".vibe-science/brief.json"

// ReadProjectBrief parses the project copy's content; ok is false when
// raw is empty.
func ReadProjectBrief(raw []byte) (brief.Brief, bool) {
	var b brief.Brief
	if len(raw) == 0 || json.Unmarshal(raw, &b) != nil {
		return brief.Brief{}, false
	}
	return b, true
}

// BriefCopy is where a project's current brief is copied at ingest: beside
// the database (VIBE_HOME/db/briefs/, not in the project, where the agent
// writes), named by a hash of the project root. PreToolUse reads it when
// the database is unavailable, so Critical constraints still deny.
func BriefCopy(dbPath, projectRoot string) string {
	sum := sha256.Sum256([]byte(projectRoot))
	return filepath.Join(filepath.Dir(dbPath), "briefs", hex.EncodeToString(sum[:12])+".json")
}

// writeBriefCopy replaces the copy at path with raw (the brief as stored),
// atomically, private to the user.
func writeBriefCopy(path string, raw []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".brief-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(raw)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// readBriefCopy reads the copy at path; ok is false when there is none.
func readBriefCopy(path string) (brief.Brief, bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return brief.Brief{}, false, nil
	}
	if err != nil {
		return brief.Brief{}, false, fmt.Errorf("read the brief's copy %s: %w", path, err)
	}
	var b brief.Brief
	if err := json.Unmarshal(raw, &b); err != nil {
		return brief.Brief{}, false, fmt.Errorf("the brief's copy %s is damaged (%v): run `vibe brief ingest` again", path, err)
	}
	return b, true, nil
}

// CurrentBrief returns the project's current brief (the newest version),
// decoded, and whether there is one.
func CurrentBrief(ctx context.Context, st Reads, proj project.Project) (brief.Brief, record.BriefVersion, bool, error) {
	if st == nil {
		return brief.Brief{}, record.BriefVersion{}, false, errNoStore
	}
	v, ok, err := st.CurrentBrief(ctx, proj.Root)
	if err != nil || !ok {
		return brief.Brief{}, v, false, err
	}
	var b brief.Brief
	if err := json.Unmarshal(v.Content, &b); err != nil {
		return brief.Brief{}, v, false, fmt.Errorf("decode brief version %d: %w", v.ID, err)
	}
	return b, v, true, nil
}

// BriefContext renders the current brief for SessionStart within the caps
// (zero or less: brief.DefaultMaxTokens and brief.DefaultMaxConstraints)
// and re-checks its anchors: degraded is brief.RotVerdict (a WARN naming the
// anchors that moved, or a PASS), or the zero Verdict when the project has
// no brief or the brief has no anchors.
func BriefContext(ctx context.Context, st Reads, proj project.Project, maxTokens, maxConstraints int) (text string, degraded verdict.Verdict, err error) {
	b, _, ok, err := CurrentBrief(ctx, st, proj)
	if err != nil || !ok {
		return "", verdict.Verdict{}, err
	}
	text = b.Context(maxTokens, maxConstraints)
	if len(b.Anchors) > 0 {
		degraded = brief.RotVerdict(brief.CheckAnchors(proj.Root, b.Anchors, nil))
	}
	return text, degraded, nil
}

// BriefWrite returns the verdicts of the current brief's constraints that
// apply to a write of rel (project-relative): HARD_BLOCK for a Critical
// constraint with action Block (deny, naming the constraint's id and
// title), a WARN for which brief.NeedsConfirm is true for WarnAndConfirm
// (answer "ask"), a WARN for WarnOnly, a PASS for LogOnly. No brief, or no
// constraint that applies, gives none. A brief that cannot be read gives
// the "brief" circuit breaker's verdict (by default a WARN that its
// constraints went unchecked).
func BriefWrite(ctx context.Context, st Reads, proj project.Project, rel string) []verdict.Verdict {
	return BriefWriteWith(ctx, st, "", proj, rel, integrity.DefaultBreakers())
}

// BriefWriteWith is BriefWrite that reads the brief's copy (copyPath, see
// BriefCopy; "" for none) when the database is unavailable (st nil) or
// cannot be read, and applies the user's circuit breakers. With the
// database up it also writes a missing copy (a brief ingested before
// copies existed).
func BriefWriteWith(ctx context.Context, st Reads, copyPath string, proj project.Project, rel string, breakers integrity.Breakers) []verdict.Verdict {
	var b brief.Brief
	ok, err := false, error(errNoStore)
	if st != nil {
		var v record.BriefVersion
		b, v, ok, err = CurrentBrief(ctx, st, proj)
		if err == nil && ok && copyPath != "" {
			if _, serr := os.Stat(copyPath); errors.Is(serr, os.ErrNotExist) {
				writeBriefCopy(copyPath, v.Content)
			}
		}
	}
	if err != nil && copyPath != "" {
		var cerr error
		b, ok, cerr = readBriefCopy(copyPath)
		if cerr != nil || !ok {
			// The copy beside the database is gone with it (a lost or
			// replaced VIBE_HOME/db): the project's own copy still binds.
			if pb, pok, perr := readBriefCopy(filepath.Join(proj.Root, filepath.FromSlash(ProjectBriefFile))); perr == nil && pok {
				b, ok, cerr = pb, true, nil
			}
		}
		switch {
		case cerr != nil:
			err = cerr
		case ok || st == nil:
			err = nil // the copy, or no brief: briefs are copied when ingested
		}
	}
	if err != nil {
		v, _ := breakers.On(integrity.DepBrief, err)
		return []verdict.Verdict{v}
	}
	if !ok {
		// A database without a brief while the project holds its copy: a
		// database lost and made again. The copy still binds.
		if pb, pok, perr := readBriefCopy(filepath.Join(proj.Root, filepath.FromSlash(ProjectBriefFile))); perr == nil && pok {
			return brief.Verdicts(pb.Applicable(cleanRel(rel), nil))
		}
		return nil
	}
	return brief.Verdicts(b.Applicable(cleanRel(rel), nil))
}

// AnchorEdited re-checks the current brief's anchors in rel after it was
// written and, when any drifted or went missing, returns a WARN saying the
// brief has drifted: which anchors moved, how, and which constraints rest
// on them. ok is false when there is nothing to say: no brief, no anchor in
// rel, every anchor still matching, or the same note already recorded (by
// decision hash). A brief that cannot be read gives the "brief" circuit
// breaker's verdict.
func AnchorEdited(ctx context.Context, st Reads, proj project.Project, rel string) (verdict.Verdict, bool) {
	b, _, ok, err := CurrentBrief(ctx, st, proj)
	if err != nil {
		v, _ := integrity.DefaultBreakers().On(integrity.DepBrief, err)
		return v, true
	}
	if !ok {
		return verdict.Verdict{}, false
	}
	anchors := b.AnchorsFor(cleanRel(rel))
	if len(anchors) == 0 {
		return verdict.Verdict{}, false
	}
	var moved []brief.AnchorResult
	for _, r := range brief.CheckAnchors(proj.Root, anchors, nil) {
		if r.Status == brief.Drifted || r.Status == brief.Missing {
			moved = append(moved, r)
		}
	}
	if len(moved) == 0 {
		return verdict.Verdict{}, false
	}
	v := driftNote(b, moved)
	if seen, err := st.SeenDecisionHashes(ctx, proj.Root, []string{v.DecisionHash}); err == nil && seen[v.DecisionHash] {
		return verdict.Verdict{}, false
	}
	return v, true
}

// driftNote is the WARN AnchorEdited returns. Its decision hash covers each
// anchor with the hash pinned at ingest and the hash found now, so the same
// drift is one decision and a further change of the signature a new one.
func driftNote(b brief.Brief, moved []brief.AnchorResult) verdict.Verdict {
	type entry struct {
		Anchor  string             `json:"anchor"`
		Status  brief.AnchorStatus `json:"status"`
		Pinned  string             `json:"pinned"`
		Current string             `json:"current"`
	}
	in := make([]entry, 0, len(moved))
	parts := make([]string, 0, len(moved))
	var paths, notes, ids []string
	seenID := map[string]bool{}
	var rests []string
	for _, r := range moved {
		a := r.Anchor
		in = append(in, entry{a.String(), r.Status, a.Hash, r.Hash})
		if r.Status == brief.Drifted {
			parts = append(parts, fmt.Sprintf("anchor %s moved (%s)", a, r.Reason))
		} else {
			parts = append(parts, fmt.Sprintf("anchor %s is missing (%s)", a, r.Reason))
		}
		if len(paths) == 0 || paths[len(paths)-1] != a.Path {
			paths = append(paths, a.Path)
		}
		notes = append(notes, a.String()+": "+string(r.Status)+": "+r.Reason)
		var touched []string
		if a.Symbol != "" {
			touched = []string{a.Symbol}
		}
		for _, m := range b.Applicable(a.Path, touched) {
			c := m.Constraint
			if !seenID[c.ID] {
				seenID[c.ID] = true
				ids = append(ids, c.ID)
				rests = append(rests, fmt.Sprintf("%s %q", c.ID, c.Title))
			}
		}
	}
	reason := "The research brief has drifted: " + strings.Join(parts, "; ") + "."
	if len(rests) > 0 {
		reason += " Constraints that rest on it: " + strings.Join(rests, ", ") + "."
	}
	reason += " Check that the code still follows the brief, then re-ingest it with `vibe brief ingest " + b.Source + "` so the anchors are pinned again."
	v := verdict.New(brief.CheckAnchorsName, verdict.Warn, verdict.Med, reason, map[string]any{"brief": b.Hash, "anchors": in})
	v.Evidence.Paths = paths
	v.Evidence.Notes = notes
	if len(ids) > 0 {
		v.Evidence.Notes = append(v.Evidence.Notes, "constraints: "+strings.Join(ids, ", "))
	}
	v.Recommendation = "Compare the change with the brief; if the brief still holds, re-ingest it, otherwise restore the signature."
	return v
}
