package gatecheck

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/project"
)

// ClaimsCiting returns, for each of files (absolute paths), the ids of the
// claims in the project's ledgers whose evidence names that file, in
// ledger order. Evidence is resolved as for `vibe gate run --claim`
// (relative to .vibe-science/, else to the root; a "#fragment" is
// ignored). A claim that names a findings file's source JSON cites the
// findings file too, as the two are one result (FINDINGS.json#auc stands
// for FINDINGS.md).
func ClaimsCiting(root string, files []string) map[string][]string {
	out := map[string][]string{}
	if len(files) == 0 {
		return out
	}
	want := map[string]bool{}
	for _, f := range files {
		want[filepath.Clean(f)] = true
	}
	r := &repo{root: root, vibe: filepath.Join(root, project.Dir)}
	for _, p := range FindLedgers(root) {
		raw, ok := readSmall(p)
		if !ok {
			continue
		}
		l, _ := claim.ParseLedger(raw)
		for _, c := range l.Claims {
			cited := map[string]bool{}
			for _, e := range c.Evidence {
				if _, isClaim := claim.NormaliseID(e); isClaim {
					continue
				}
				ev, ok := r.resolveEvidence(e)
				if !ok {
					continue
				}
				for _, f := range []string{ev, siblingMarkdown(ev)} {
					if f != "" && want[f] && !cited[f] {
						cited[f] = true
						out[f] = append(out[f], c.ID)
					}
				}
			}
		}
	}
	return out
}

// siblingMarkdown is the Markdown beside a JSON evidence file of the same
// name (FINDINGS.json → FINDINGS.md), "" when there is none.
func siblingMarkdown(p string) string {
	if !strings.EqualFold(filepath.Ext(p), ".json") {
		return ""
	}
	md := strings.TrimSuffix(p, filepath.Ext(p)) + ".md"
	if _, err := os.Stat(md); err != nil {
		return ""
	}
	return md
}
