package recall

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// ImportBatch is how many lines one import transaction holds: large enough
// that a 100k-line file is not 100k commits, small enough that a hook
// waiting for the write lock waits milliseconds, not seconds.
const ImportBatch = 500

// MaxImportLine is the longest line an import reads (1 MiB).
const MaxImportLine = 1 << 20

// ImportLine is one line of a memory JSONL file (and of `vibe memory
// export`): text is required; kind defaults to note; created_at is RFC 3339
// or unix milliseconds and defaults to the import time; source_type (code,
// paper, person, blog, model) defaults to person, and trust to the source
// type's (Sourced: a paper without a DOI, PMID or arXiv id in its
// text or ref is trusted 0.6).
type ImportLine struct {
	Text       string          `json:"text"`
	Kind       string          `json:"kind,omitempty"`
	Ref        string          `json:"ref,omitempty"`
	CreatedAt  json.RawMessage `json:"created_at,omitempty"`
	SourceType string          `json:"source_type,omitempty"`
	Trust      *float64        `json:"trust,omitempty"`
}

// LineError is a line an import skipped, and why.
type LineError struct {
	Line int
	Err  string
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Err) }

// ImportReport counts what an import did.
type ImportReport struct {
	Lines      int // non-empty lines read
	Added      int
	Duplicates int // already stored: left as they were
	Conflicts  int // added, and contradicting an earlier memory
	Skipped    []LineError
}

// Import reads memory JSONL from r into project. A bad line is reported
// with its line number and skipped; the rest is imported. progress, if not
// nil, is called after each batch with the lines read so far. Conflicts are
// detected by words (imported memories have no vectors yet), against the
// project's stored memories and the file's earlier lines.
func Import[W Writes](ctx context.Context, st Memories[W], r io.Reader, project string, now time.Time, progress func(lines int)) (ImportReport, error) {
	return importMemories(ctx, st, r, project, now, progress, false)
}

// ImportByAgent is Import run by the agent (inside a Claude Code session):
// each line is what the agent claims (FromAgent), so a file that says
// "person" or trust 1 does not raise the agent's own output.
func ImportByAgent[W Writes](ctx context.Context, st Memories[W], r io.Reader, project string, now time.Time, progress func(lines int)) (ImportReport, error) {
	return importMemories(ctx, st, r, project, now, progress, true)
}

func importMemories[W Writes](ctx context.Context, st Memories[W], r io.Reader, project string, now time.Time, progress func(lines int), agent bool) (ImportReport, error) {
	var rep ImportReport
	if project == "" {
		return rep, fmt.Errorf("import memories: no project given")
	}
	br := bufio.NewReaderSize(r, 64*1024)
	// Conflicts are found in memory (see wordIndex): the project's stored
	// memories first, then each line as it is read.
	idx := newWordIndex()
	err := st.ExportMemories(ctx, project, func(m record.MemoryRecord) error {
		idx.add(m.ID, m.Kind, m.Text, m.CreatedAt, m.Trust)
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("import memories: %w", err)
	}
	type parsed struct {
		line int
		m    record.NewMemory
		doc  int   // its doc in idx
		near []int // docs it may contradict, nearest first
	}
	batch := make([]parsed, 0, ImportBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var added, dups, conflicts int
		err := st.Tx(ctx, func(tx W) error {
			for _, p := range batch {
				near := make([]record.MemoryRecord, 0, len(p.near))
				for _, d := range p.near {
					doc := idx.docs[d]
					near = append(near, record.MemoryRecord{ID: doc.id, Kind: doc.kind, Text: doc.text, CreatedAt: doc.at, Trust: doc.trust})
				}
				a, err := addInTx(ctx, tx, p.m, near)
				if err != nil {
					return fmt.Errorf("import line %d: %w", p.line, err)
				}
				idx.docs[p.doc].id = a.ID
				switch {
				case !a.New:
					dups++
				case len(a.Conflicts) > 0:
					added++
					conflicts++
				default:
					added++
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		rep.Added += added
		rep.Duplicates += dups
		rep.Conflicts += conflicts
		batch = batch[:0]
		if progress != nil {
			progress(rep.Lines)
		}
		return nil
	}
	n := 0
	for {
		raw, tooLong, err := readLine(br)
		if err == io.EOF && raw == nil && !tooLong {
			break
		}
		if err != nil && err != io.EOF {
			return rep, fmt.Errorf("import memories: line %d: %w", n+1, err)
		}
		n++
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 && !tooLong {
			continue
		}
		rep.Lines++
		if tooLong {
			rep.Skipped = append(rep.Skipped, LineError{Line: n, Err: fmt.Sprintf("longer than %d bytes; split the text into several memories", MaxImportLine)})
			continue
		}
		m, perr := parseLine(raw, project, now)
		if agent {
			m, _ = FromAgent(m)
		}
		m = Sourced(m)
		if perr != nil {
			rep.Skipped = append(rep.Skipped, LineError{Line: n, Err: perr.Error()})
			continue
		}
		near := idx.opposing(m.Kind, m.Text)
		batch = append(batch, parsed{line: n, m: m, near: near, doc: idx.add(0, m.Kind, m.Text, m.At, record.TrustOf(m))})
		if len(batch) == ImportBatch {
			if err := flush(); err != nil {
				return rep, err
			}
		}
		if err == io.EOF {
			break
		}
	}
	if err := flush(); err != nil {
		return rep, err
	}
	return rep, nil
}

// readLine reads one line without its newline. A line longer than
// MaxImportLine is read to its end and discarded (tooLong), so one bad line
// does not stop the import.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > MaxImportLine+1 {
				tooLong, buf = true, nil
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return bytes.TrimSuffix(buf, []byte("\n")), tooLong, nil
		default:
			if len(buf) == 0 && !tooLong {
				return nil, false, err
			}
			return buf, tooLong, err
		}
	}
}

func parseLine(raw []byte, project string, now time.Time) (record.NewMemory, error) {
	var l ImportLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return record.NewMemory{}, fmt.Errorf("not a JSON object (%v); each line must be {\"text\": …, \"kind\": …, \"ref\": …, \"created_at\": …}", err)
	}
	m := record.NewMemory{ProjectPath: project, Kind: l.Kind, Text: strings.TrimSpace(l.Text), Ref: l.Ref, Source: "import",
		SourceType: l.SourceType}
	if m.Kind == "" {
		m.Kind = record.KindNote
	}
	if l.Trust != nil {
		m.Trust = record.Trust(*l.Trust)
	}
	at, err := parseTime(l.CreatedAt)
	if err != nil {
		return m, err
	}
	if at.IsZero() {
		at = now
	}
	m.At = at
	if err := validate(m); err != nil {
		return m, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "add memory: "))
	}
	return m, nil
}

// parseTime reads created_at: an RFC 3339 string or unix milliseconds.
func parseTime(raw json.RawMessage) (time.Time, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return time.Time{}, nil
	}
	if s[0] == '"' {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return time.Time{}, fmt.Errorf("created_at %s is not a string or number", s)
		}
		t, err := time.Parse(time.RFC3339Nano, str)
		if err != nil {
			return time.Time{}, fmt.Errorf("created_at %q is not RFC 3339 (2026-01-31T09:00:00Z) or unix milliseconds", str)
		}
		return t.UTC(), nil
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ms <= 0 {
		return time.Time{}, fmt.Errorf("created_at %s is not RFC 3339 or a positive whole number of unix milliseconds", s)
	}
	return time.UnixMilli(ms).UTC(), nil
}
