package resume

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
)

// MaxSpineExport caps the entries one export appends, so a first export of a
// long history fits in SessionEnd's budget; the rest follows at the next one.
const MaxSpineExport = 3000

// maxSummary caps one SPINE.md line's summary, in runes.
const maxSummary = 200

const spineHeader = "# Research spine\n\n" +
	"vibe appends one line per recorded tool call at the end of each session, oldest first, and never rewrites\n" +
	"an earlier line. `vibe spine` shows the same record from the database.\n"

// AppendSpine appends the project's spine entries not yet exported to
// .vibe-science/SPINE.md and returns how many it wrote. The mark of how far
// the export has got is advanced in the same transaction that reads the
// entries, so two sessions ending at once do not write the same lines.
func AppendSpine[W SpineWrites](ctx context.Context, st Spine[W], proj project.Project) (int, error) {
	path := proj.Path(SpineFile)
	written := 0
	err := st.Tx(ctx, func(tx W) error {
		mark, err := tx.SpineMark(ctx, proj.Root)
		if err != nil {
			return err
		}
		entries, err := tx.SpineAfter(ctx, proj.Root, mark.LastID, MaxSpineExport)
		if err != nil || len(entries) == 0 {
			return err
		}
		text, next := renderSpine(entries, mark)
		// The entries were scrubbed when stored; an entry stored before a
		// secret rule existed is scrubbed here, on its way into the project.
		if err := appendFile(path, privacy.Scrub(text)); err != nil {
			return err
		}
		written = len(entries)
		return tx.SetSpineMark(ctx, proj.Root, next)
	})
	if err != nil {
		return 0, fmt.Errorf("export SPINE.md: %w", err)
	}
	return written, nil
}

// renderSpine renders entries as SPINE.md lines, opening a heading whenever
// the day or the session changes from the previous line (the mark's).
func renderSpine(entries []record.SpineEntry, mark record.SpineMark) (string, record.SpineMark) {
	var b strings.Builder
	b.Grow(len(entries) * 96)
	for _, e := range entries {
		day := e.At.UTC().Format("2006-01-02")
		if day != mark.Day || e.SessionID != mark.Session {
			fmt.Fprintf(&b, "\n## %s · session %s\n\n", day, shortID(e.SessionID))
			mark.Day, mark.Session = day, e.SessionID
		}
		b.WriteString("- ")
		b.WriteString(e.At.UTC().Format("15:04:05"))
		b.WriteByte(' ')
		b.WriteString(e.ActionType)
		b.WriteString(" (")
		b.WriteString(e.ToolName)
		if e.AgentType != "" {
			b.WriteString(", ")
			b.WriteString(e.AgentType)
		}
		b.WriteByte(')')
		if s := oneLine(e.InputSummary, maxSummary); s != "" {
			b.WriteString(": ")
			b.WriteString(s)
		}
		if e.GateResult != "" {
			b.WriteString(" [gate ")
			b.WriteString(e.GateResult)
			b.WriteByte(']')
		}
		b.WriteByte('\n')
		mark.LastID = e.ID
	}
	return b.String(), mark
}

// oneLine folds whitespace runs (line breaks included) into single spaces and
// cuts to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// appendFile appends text to path, writing the header first when the file
// is new or empty and a line break first when someone left the last line
// open.
func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	var prefix string
	if info.Size() == 0 {
		prefix = spineHeader
	} else {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, info.Size()-1); err != nil && err != io.EOF {
			f.Close()
			return err
		}
		if last[0] != '\n' {
			prefix = "\n"
		}
	}
	if _, err := f.WriteString(prefix + text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
