package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/privacy"
)

// WriteJSON writes v as indented JSON with HTML characters left as they
// are: the --json form of every listing. Every string of v is scrubbed
// first (privacy.ScrubAll), so a record stored before a secret rule
// existed is not shown.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(privacy.ScrubAll(v))
}

// Table writes a listing, each cell scrubbed (privacy.Scrub). On a terminal the columns are aligned and the
// widest cells are cut (with "…") until each row fits the terminal's width;
// in a pipe every row is tab-separated and nothing is cut, so `cut -f`,
// `awk -F'\t'` and spreadsheets get whole values. header is tab-separated.
func Table(o IO, header string, rows [][]string) {
	head := strings.Split(header, "\t")
	all := make([][]string, 0, len(rows)+1)
	all = append(all, head)
	for _, r := range rows {
		clean := make([]string, len(r))
		for i, c := range r {
			clean[i] = strings.Map(func(r rune) rune {
				if r == '\t' || r == '\n' || r == '\r' {
					return ' '
				}
				return r
			}, privacy.Scrub(c))
		}
		all = append(all, clean)
	}
	if !o.TTY {
		for _, r := range all {
			fmt.Fprintln(o.Out, strings.Join(r, "\t"))
		}
		return
	}
	width := o.Width
	if width <= 0 {
		width = 80
	}
	fmt.Fprint(o.Out, alignRows(all, width))
}

// minCell is the narrowest a column is cut to.
const minCell = 6

// alignRows pads the columns to a common width, two spaces apart, cutting
// the widest column one rune at a time until a row fits width (or every
// column is down to minCell).
func alignRows(rows [][]string, width int) string {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	total := func() int {
		t := 2 * (n - 1)
		for _, w := range widths {
			t += w
		}
		return t
	}
	for total() > width {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= minCell {
			break
		}
		widths[widest]--
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			c = cut(c, widths[i])
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// cut shortens s to w runes, the last one "…".
func cut(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
}

// TS is t as a listing shows it (UTC, to the minute), "-" for no time.
func TS(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// ShortID is the first 8 characters of a session id, as listings show it.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// OrDash is s, or "-" for an empty cell.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// HumanBytes is n in B, KiB, MiB or GiB, one decimal.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
