package handler

import (
	"context"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/research"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

// maxCitingBytes bounds how much of a changed research file the citation
// audit reads: findings, ledgers, reviews and directions are notes.
const maxCitingBytes = 1 << 20

// cited is what the citation audit found in the research files one call
// changed: a warning per file citing ids the record does not vouch for,
// and the notices to record (each id is warned about once per file and
// session).
type cited struct {
	verdicts []verdict.Verdict
	said     []string // rel#id
}

// citingFiles are the files of the call that cite papers as research: the
// findings and directions it changed (as the artifact scan recognised
// them, whatever tool wrote them), the claim ledgers and reviews it wrote,
// and any file named like findings it wrote. Restored files are left out:
// their change is undone.
func citingFiles(call Call, g gated, restored []verdict.Verdict) map[string]string {
	out := map[string]string{}
	for _, c := range g.scan.Changes {
		switch c.Kind {
		case research.KindFindings:
			out[c.Rel] = "findings"
		case research.KindDirection:
			out[c.Rel] = "direction"
		}
	}
	for _, f := range call.Files {
		if f.Op != "write" {
			continue
		}
		switch base := strings.ToLower(path.Base(f.Path)); {
		case claimcheck.IsLedger(f.Path):
			out[f.Path] = "ledger"
		case claimcheck.IsReview(f.Path):
			out[f.Path] = "review"
		case strings.Contains(base, "findings") && (strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".txt")):
			out[f.Path] = "findings"
		}
	}
	for _, r := range restored {
		for _, p := range r.Evidence.Paths {
			delete(out, p)
		}
	}
	return out
}

// citationsWritten is the citation audit after a call: each research file
// it changed that cites a paper id no recorded search retrieved, or one that
// cannot exist, is a WARN naming the ids and their lines, once per id, file
// and session. Without the database only the ids that cannot exist are
// told (what was retrieved is unknown). Nothing here blocks: the promotion
// of a claim is where a citation blocks (claimcheck.Judge).
func citationsWritten(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, call Call, g gated,
	restored []verdict.Verdict, now time.Time) cited {
	files := citingFiles(call, g, restored)
	if len(files) == 0 {
		return cited{}
	}
	proj := call.Project
	type read struct {
		rel   string
		cites []citation.Cite
	}
	var reads []read
	var all []citation.Cite
	for _, rel := range sortedKeys(files) {
		content, err := readBounded(absUnder(proj, rel), maxCitingBytes)
		if err != nil {
			continue
		}
		cs := citation.Cites(content)
		if len(cs) == 0 {
			continue
		}
		reads = append(reads, read{rel, cs})
		all = append(all, cs...)
	}
	if len(reads) == 0 {
		return cited{}
	}
	var retrieved map[string]bool
	known := false
	if st != nil {
		var err error
		if retrieved, err = st.Retrieved(ctx, proj.Root, citation.IDsOf(all)); err != nil {
			env.Logf("citation audit: %v", err)
		} else {
			known = true
		}
	}
	type pending struct {
		rel string
		fs  []citation.Finding
	}
	var found []pending
	var keys []string
	for _, r := range reads {
		seen := map[string]bool{}
		var fs []citation.Finding
		for _, f := range citation.Unvouched(r.cites, retrieved, now) {
			if seen[f.ID] || !known && f.Status != citation.StatusInvalid {
				continue
			}
			seen[f.ID] = true
			fs = append(fs, f)
			keys = append(keys, r.rel+"#"+f.ID)
		}
		if len(fs) > 0 {
			found = append(found, pending{r.rel, fs})
		}
	}
	if len(found) == 0 {
		return cited{}
	}
	noticed := map[string]bool{}
	if st != nil {
		var err error
		if noticed, err = st.Noticed(ctx, ev.SessionID, proj.Root, citation.CheckCitation, keys); err != nil {
			env.Logf("read the session's notices: %v", err)
			noticed = map[string]bool{}
		}
	}
	var out cited
	for _, p := range found {
		var fresh []citation.Finding
		for _, f := range p.fs {
			if k := p.rel + "#" + f.ID; !noticed[k] {
				fresh = append(fresh, f)
				out.said = append(out.said, k)
			}
		}
		if len(fresh) > 0 {
			out.verdicts = append(out.verdicts, citation.WrittenVerdict(p.rel, fresh))
		}
	}
	return out
}

// readBounded reads at most n bytes of a file.
func readBounded(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
