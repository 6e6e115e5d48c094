package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// Record is what one hook call writes, in a form that can wait in the
// spool when the database refuses it (locked past the hook's busy timeout,
// full disk, deleted): a permission decision never waits for the
// database, and what it could not record is written later, not lost.
type Record struct {
	Session *record.SessionSeen `json:"session,omitempty"`
	Spine   *record.SpineEntry  `json:"spine,omitempty"`
	Files   []record.Touched    `json:"files,omitempty"`
	Memory  *record.NewMemory   `json:"memory,omitempty"`
	Prompt  *record.PromptSeen  `json:"prompt,omitempty"`
	// Literature is a literature search the call made: spooled with its
	// call so gate L-1 still counts it (SpooledLiteratureSearch) before
	// the spool is replayed.
	Literature *record.LiteratureSearch `json:"literature,omitempty"`
	Verdicts   []verdict.Verdict        `json:"verdicts,omitempty"`
	// Advisory places Verdicts (required when there are verdicts).
	Advisory *record.AdvisoryContext `json:"advisory,omitempty"`
	// Decided is what the hook did with each of Verdicts, in their order
	// (absent in a record an older vibe spooled).
	Decided []record.Decided `json:"decided,omitempty"`
}

// Empty reports whether r writes nothing.
func (r Record) Empty() bool {
	return r.Session == nil && r.Spine == nil && r.Memory == nil && r.Prompt == nil && r.Literature == nil && len(r.Verdicts) == 0
}

// Apply writes r: the session first, so every row below has its parent.
// Replaying a record twice adds no second spine entry (tool_use_id is
// unique per session) nor memory (content hash).
func (t *Tx) Apply(ctx context.Context, r Record) error {
	if r.Session != nil {
		if err := t.UpsertSession(ctx, *r.Session); err != nil {
			return err
		}
	}
	if r.Spine != nil {
		if _, err := t.AddSpine(ctx, *r.Spine, r.Files); err != nil {
			return err
		}
	}
	if r.Memory != nil {
		if _, _, err := t.AddMemory(ctx, *r.Memory); err != nil {
			return err
		}
	}
	if r.Prompt != nil {
		if err := t.LogPrompt(ctx, *r.Prompt); err != nil {
			return err
		}
	}
	if r.Literature != nil {
		if _, _, err := t.AddLiteratureSearch(ctx, *r.Literature); err != nil {
			return err
		}
	}
	if len(r.Verdicts) > 0 {
		c := record.AdvisoryContext{}
		if r.Advisory != nil {
			c = *r.Advisory
		}
		if c.ProjectPath == "" {
			c.ProjectPath = "(unknown)"
		}
		if err := t.AppendAdvisories(ctx, c, r.Verdicts, r.Decided...); err != nil {
			return err
		}
	}
	return nil
}

// scrubbed is r with every free text through privacy.Scrub, so the spool
// file holds no more than the database would.
func (r Record) scrubbed() Record {
	if r.Spine != nil {
		e := *r.Spine
		e.InputSummary, e.OutputSummary = privacy.Scrub(e.InputSummary), privacy.Scrub(e.OutputSummary)
		r.Spine = &e
	}
	if r.Memory != nil {
		m := *r.Memory
		m.Text, m.Ref = privacy.Scrub(m.Text), privacy.Scrub(m.Ref)
		r.Memory = &m
	}
	if r.Literature != nil {
		l := *r.Literature
		l.Query = privacy.Scrub(l.Query)
		r.Literature = &l
	}
	if len(r.Verdicts) > 0 {
		vs := make([]verdict.Verdict, len(r.Verdicts))
		for i, v := range r.Verdicts {
			vs[i] = scrubVerdict(v)
		}
		r.Verdicts = vs
	}
	if len(r.Decided) > 0 {
		ds := make([]record.Decided, len(r.Decided))
		for i, d := range r.Decided {
			d.File = privacy.Scrub(d.File)
			ds[i] = d
		}
		r.Decided = ds
	}
	return r
}

// MaxSpool bounds the spool file: a database that stays broken must not
// fill the disk with records; past it, records are dropped and the hook
// says so.
const MaxSpool = 64 << 20

// Spool appends r to the spool file at path (JSON lines, 0600, created
// with its folder if needed) with one write, so concurrent hooks never
// interleave their lines.
func Spool(path string, r Record) error {
	line, err := json.Marshal(r.scrubbed())
	if err != nil {
		return fault.E(fault.Internal, "spool record", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fault.E(fault.Unavailable, "spool record", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fault.E(fault.Unavailable, "spool record", err)
	}
	if st, err := f.Stat(); err == nil && st.Size()+int64(len(line)) > MaxSpool {
		f.Close()
		return fault.Errorf(fault.Unavailable, "spool record", "the spool %s holds %d MB of records the database refused: fix the database (`vibe doctor`)", path, st.Size()>>20)
	}
	_, werr := f.Write(line)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fault.E(fault.Unavailable, "spool record", err)
	}
	return nil
}

// Spooled reports whether records wait in the spool at path (two stats:
// cheap enough to ask on every event).
func Spooled(path string) bool {
	if _, err := os.Lstat(path); err == nil {
		return true
	}
	_, err := os.Lstat(path + replaySuffix)
	return err == nil
}

// SpooledLiteratureSearch reports whether the spool at path (or the part
// being replayed) holds a counted literature search of session: a search
// whose call the database refused is then still seen by gate L-1, which
// must not wait for the replay. It reads the small spool file only; an
// unreadable line is skipped.
func SpooledLiteratureSearch(path, session string) bool {
	for _, p := range []string{path, path + replaySuffix} {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		recs, _ := parseSpool(raw)
		for _, r := range recs {
			if l := r.Literature; l != nil && l.SessionID == session && l.GateContext != record.LiteratureUncounted {
				return true
			}
		}
	}
	return false
}

// parseSpool reads the records of a spool file, one JSON object a line,
// and counts the lines it could not read (blank lines are not counted).
func parseSpool(raw []byte) (recs []Record, skipped int) {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, len(raw)+1)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Empty() {
			skipped++
			continue
		}
		recs = append(recs, r)
	}
	return recs, skipped
}

// errReplaying: another process holds the replay lock.
var errReplaying = errors.New("another process is replaying the spool")

// replaySuffix names the spool being replayed: a replayer renames the
// spool first, so hooks appending meanwhile start a new one.
const replaySuffix = ".replay"

// ReplaySpool writes the spooled records at path to the database in one
// transaction and removes them; records stay spooled when the database
// still refuses them. One replayer at a time (a lock file beside the
// spool); a replay cut short by a crash is finished by the next one. A
// line that is not a record (a torn write) is skipped and counted.
func (s *Store) ReplaySpool(ctx context.Context, path string) (applied, skipped int, err error) {
	unlock, err := lockSpool(path + ".lock")
	if errors.Is(err, errReplaying) {
		return 0, 0, nil // another process is replaying it
	}
	if err != nil {
		return 0, 0, fault.E(fault.Unavailable, "replay spool", err)
	}
	defer unlock()
	// A replay left by a crash first, then what hooks spooled since.
	for round := 0; round < 2; round++ {
		n, sk, err := s.replayOnce(ctx, path)
		applied, skipped = applied+n, skipped+sk
		if err != nil {
			return applied, skipped, err
		}
	}
	return applied, skipped, nil
}

// replayOnce replays one spool file; the replay lock is held.
func (s *Store) replayOnce(ctx context.Context, path string) (applied, skipped int, err error) {
	replay := path + replaySuffix
	if _, err := os.Lstat(replay); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(path, replay); errors.Is(err, os.ErrNotExist) {
			return 0, 0, nil
		} else if err != nil {
			return 0, 0, fault.E(fault.Unavailable, "replay spool", err)
		}
	}
	raw, err := os.ReadFile(replay)
	if err != nil {
		return 0, 0, fault.E(fault.Unavailable, "replay spool", err)
	}
	recs, skipped := parseSpool(raw)
	if err := s.Tx(ctx, func(tx *Tx) error {
		for _, r := range recs {
			if err := tx.Apply(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return 0, 0, fmt.Errorf("replay %d spooled records: %w", len(recs), err)
	}
	if err := os.Remove(replay); err != nil {
		return len(recs), skipped, fault.E(fault.Unavailable, "replay spool", err)
	}
	return len(recs), skipped, nil
}
