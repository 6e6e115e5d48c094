package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/vibe-science/vibe/internal/embed"
)

// ProgressBar draws download progress (embed.Pull's Progress) on stderr: a
// redrawn bar on a terminal, a plain line every 10% otherwise (logs and CI
// stay readable). `vibe model pull` and `vibe setup` draw it.
type ProgressBar struct {
	W   io.Writer
	TTY bool // W is a terminal

	file    string
	lastPct int
	drawn   bool
}

// Update draws p.
func (b *ProgressBar) Update(p embed.Progress) {
	if p.File != b.file {
		b.Finish()
		b.file, b.lastPct = p.File, -1
	}
	pct := -1
	if p.Total > 0 {
		pct = int(p.Done * 100 / p.Total)
	}
	if b.TTY {
		if pct == b.lastPct && pct >= 0 {
			return
		}
		b.lastPct = pct
		if pct < 0 {
			fmt.Fprintf(b.W, "\r%-16s %s", p.File, HumanBytes(p.Done))
		} else {
			filled := pct * 30 / 100
			fmt.Fprintf(b.W, "\r%-16s [%s%s] %3d%% %s / %s", p.File, strings.Repeat("=", filled), strings.Repeat(" ", 30-filled),
				pct, HumanBytes(p.Done), HumanBytes(p.Total))
		}
		b.drawn = true
		return
	}
	step := pct / 10 * 10
	if pct < 0 {
		step = int(p.Done >> 24) // every 16 MiB when the size is unknown
	}
	if step == b.lastPct {
		return
	}
	b.lastPct = step
	if pct < 0 {
		fmt.Fprintf(b.W, "%s: %s\n", p.File, HumanBytes(p.Done))
	} else {
		fmt.Fprintf(b.W, "%s: %d%% of %s\n", p.File, step, HumanBytes(p.Total))
	}
}

// Finish ends the bar's line on a terminal.
func (b *ProgressBar) Finish() {
	if b.TTY && b.drawn {
		fmt.Fprintln(b.W)
	}
	b.drawn = false
}
