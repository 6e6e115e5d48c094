package resume

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/project"
)

// FileState limits: lines taken from each file, and the block's size.
const (
	fileStateUserLines   = 15
	fileStateVibeLines   = 8
	fileStatePickupLines = 8
	fileStateMaxBytes    = 4000
)

// FileState builds a short state block from the .vibe-science files alone
// (LAW 7), for a SessionStart that cannot open the database: the head of the
// researcher's part of STATE.md, vibe's last section of it, the where-it-
// stands and next-steps parts of project_pickup.md, and the ledger's claims
// counted by status. The caller says that the database is unavailable. A
// project without .vibe-science gives "" and no error; an unreadable file is
// skipped and reported in the error while the rest is still returned.
func FileState(proj project.Project) (string, error) {
	if !hasVibeDir(proj) {
		return "", nil
	}
	var errs []error
	read := func(name string) []byte {
		raw, err := readCapped(proj.Path(name))
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", name, err))
		}
		return raw
	}
	var b strings.Builder
	b.WriteString("State from the project's .vibe-science files:\n")

	state := read(StateFile)
	if state == nil {
		b.WriteString("- STATE.md: missing; `vibe init` creates it (it changes no existing file)\n")
	} else {
		if key, v, _ := Phase(state); v != "" {
			fmt.Fprintf(&b, "- %s (STATE.md): %s\n", key, v)
		}
		if head := headLines(UserPart(state), fileStateUserLines); len(head) > 0 {
			b.WriteString("- STATE.md, the researcher's notes (first lines):\n")
			indent(&b, head)
		}
		if s, err := FindSection(state); err == nil && s.Found {
			var keep []string
			for _, l := range headLines(state[s.Body[0]:s.Body[1]], 100) {
				if strings.HasPrefix(l, "- ") {
					keep = append(keep, l)
				}
				if len(keep) == fileStateVibeLines {
					break
				}
			}
			if len(keep) > 0 {
				b.WriteString("- vibe's last summary (STATE.md):\n")
				indent(&b, keep)
			}
		}
	}

	if ledger := read(LedgerFile); ledger != nil {
		l, perrs := claim.ParseLedger(ledger)
		fmt.Fprintf(&b, "- claims in CLAIM-LEDGER.md: %d", len(l.Claims))
		if len(l.Claims) > 0 {
			fmt.Fprintf(&b, " (%s)", claimCounts(l.Claims))
		}
		if len(perrs) > 0 {
			fmt.Fprintf(&b, "; %d entries do not parse", len(perrs))
		}
		b.WriteString("\n")
		var open []string
		for _, c := range l.Claims {
			if c.Status != claim.StatusKilled {
				open = append(open, claimLabel(c))
			}
		}
		if len(open) > 0 {
			fmt.Fprintf(&b, "- open claims: %s\n", capped(open, maxListed))
		}
	}

	if pickup := read(PickupFile); pickup != nil {
		where := sectionLines(pickup, func(t string) bool { return t == "Where the work stands" }, 4)
		next := sectionLines(pickup, func(t string) bool { return t == "Next steps" }, fileStatePickupLines)
		if len(where)+len(next) > 0 {
			b.WriteString("- last pickup note (project_pickup.md):\n")
			indent(&b, where)
			indent(&b, next)
		}
	}
	out := b.String()
	if len(out) > fileStateMaxBytes {
		cut := strings.LastIndexByte(out[:fileStateMaxBytes], '\n')
		out = out[:cut+1] + "  … (cut; read the files for the rest)\n"
	}
	return strings.TrimRight(out, "\n"), errors.Join(errs...)
}

// headLines returns the first max non-blank lines of content, outside vibe's
// markers, each cut to 200 runes.
func headLines(content []byte, max int) []string {
	var out []string
	for _, l := range lines(content) {
		t := strings.TrimRight(strings.TrimPrefix(string(content[l.Start:l.End]), string(bom)), " \t")
		if strings.TrimSpace(t) == "" || markerLine(t, BeginMarker) || markerLine(t, EndMarker) {
			continue
		}
		out = append(out, oneLineKeepIndent(t, 200))
		if len(out) == max {
			break
		}
	}
	return out
}

func oneLineKeepIndent(s string, max int) string {
	ind := len(s) - len(strings.TrimLeft(s, " "))
	return s[:ind] + oneLine(s[ind:], max)
}

func indent(b *strings.Builder, ls []string) {
	for _, l := range ls {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
}
