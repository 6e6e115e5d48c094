package handler

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/artifact"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Reproducibility capture (docs/reproducibility.md): the result files a
// call changed (metrics, calibration results, a findings JSON, any other
// JSON it wrote in the research folders) get a lineage row with who wrote
// them, recorded with the call (DQ4 and promotions look it up by content
// hash, in this very call too), and the full record (command, script,
// inputs, seeds, environment, commit) after the reply, in the database and
// in the project's .vibe-science/lineage.jsonl.

// resultKinds are the artifacts whose lineage is recorded: the results
// DQ4 and promotions take numbers from.
var resultKinds = map[string]bool{gate.FileMetrics: true, gate.FileCalibration: true, research.KindFindingsSource: true}

// maxResultBytes bounds a result read for its hash and its values.
const maxResultBytes = 16 << 20

// result is a result file this call changed, with who wrote it.
type result struct {
	rel, abs string
	sha      string
	size     int64
	class    lineage.Class
	call     lineage.Call
	id       int64 // its row, once recorded
}

// results finds the result files of a scan and the call's named writes,
// and classifies each. The call's command is parsed only when one is
// found, which few calls do.
func results(ev *hook.Event, proj project.Project, scan artifact.Scan, written map[string]bool, since time.Time) []result {
	type cand struct {
		rel, abs string
		during   bool
	}
	var cands []cand
	seen := map[string]bool{}
	add := func(rel, abs string, during bool) {
		if !seen[rel] {
			seen[rel] = true
			cands = append(cands, cand{rel, abs, during})
		}
	}
	sinceNS := since.UnixNano()
	for _, c := range scan.Changes {
		if resultKinds[c.Kind] {
			add(c.Rel, c.Abs, written[c.Rel] || c.MtimeNS >= sinceNS)
		}
	}
	for _, c := range scan.Outputs {
		if resultFile(c.Rel) {
			add(c.Rel, c.Abs, true)
		}
	}
	for rel := range written {
		if resultFile(rel) {
			add(rel, absUnder(proj, rel), true)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	call := lineage.Call{Tool: ev.ToolName, Root: proj.Root, Cwd: ev.Cwd, Since: since}
	if call.Cwd == "" {
		call.Cwd = proj.Root
	}
	if ev.ToolName == "Bash" {
		call.Command = ev.Files().Command
		runs, unparsed := permission.Runs(permission.Request{ProjectRoot: proj.Root, Cwd: ev.Cwd, AgentType: ev.AgentType,
			ToolName: ev.ToolName, ToolInput: ev.ToolInput})
		call.Unparsed = unparsed
		for _, r := range runs {
			call.Runs = append(call.Runs, lineage.Run{Argv: r.Argv, Cwd: r.Cwd, Stdin: r.Stdin, StdinFile: r.StdinFile})
		}
	}
	var out []result
	for _, c := range cands {
		raw, ok := readResult(c.abs)
		if !ok || !lineage.HasNumbers(raw) {
			continue
		}
		cl := call
		cl.During = c.during
		out = append(out, result{rel: c.rel, abs: c.abs, sha: lineage.Sum(raw), size: int64(len(raw)),
			class: lineage.Classify(cl, raw), call: cl})
	}
	return out
}

// resultFile reports whether a file a call named as written is a result
// whose lineage counts: a JSON file that is not one of the records the
// methodology has written by hand (vibe's own configs at the top of
// .vibe-science/, reviews, schema-gate artifacts such as the D1 record),
// nor configuration (a dot folder or file, a code base's package.json).
func resultFile(rel string) bool {
	if !strings.EqualFold(filepath.Ext(rel), ".json") || filepath.IsAbs(filepath.FromSlash(rel)) || strings.HasPrefix(rel, "../") {
		return false
	}
	dir := filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel)))
	base := strings.ToLower(filepath.Base(rel))
	switch {
	case dir == project.Dir, strings.Contains("/"+rel, "/05-reviewer2/"):
		return false
	case strings.HasSuffix(base, "-promotion.json") || codeConfigs[base] || strings.HasPrefix(base, "tsconfig"):
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") && seg != project.Dir {
			return false // .claude/, .vscode/, .eslintrc.json: configuration
		}
	}
	for _, a := range gatecheck.Artifacts {
		if ok, _ := filepath.Match(filepath.Base(filepath.FromSlash(a.Pattern)), filepath.Base(rel)); ok {
			return false
		}
	}
	return true
}

// codeConfigs are JSON files of a code base, not results.
var codeConfigs = map[string]bool{"package.json": true, "package-lock.json": true, "jsconfig.json": true, "composer.json": true,
	"renovate.json": true, "deno.json": true, "lerna.json": true, "angular.json": true, "vercel.json": true, "firebase.json": true}

func readResult(p string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxResultBytes {
		return nil, false
	}
	b, err := io.ReadAll(f)
	return b, err == nil
}

// originsFor are the sources' origins a hook decides from: the lineage
// rows of this call's own results (not recorded yet) and those the
// database holds for a content hash, else the project's mirror
// (gatecheck.StoredOrigins). env (for its log) may be nil.
func originsFor(ctx context.Context, env *hookrun.Env, st *store.Store, proj project.Project, own []result, now time.Time) gate.Origins {
	return gatecheck.StoredOrigins(proj.Root, func(sha string) []lineage.Row {
		var rows []lineage.Row
		for _, r := range own {
			if r.sha == sha {
				rows = append(rows, lineage.Row{Path: r.rel, SHA256: sha, Writer: r.class.Writer, By: r.class.By, At: now})
			}
		}
		if st == nil {
			return rows
		}
		recs, err := st.LineageOf(ctx, proj.Root, sha)
		if err != nil && env != nil {
			env.Logf("read lineage: %v", err)
		}
		for _, l := range recs {
			rows = append(rows, lineage.Row{Path: l.Path, SHA256: l.SHA256, Writer: lineage.Writer(l.Writer), By: l.By, At: l.At})
		}
		return rows
	})
}

// recordLineage writes the rows of the call's results (in the call's
// record transaction).
func (g *gated) recordLineage(ctx context.Context, tx *store.Tx, ev *hook.Event, proj project.Project, now time.Time) error {
	for i := range g.results {
		r := &g.results[i]
		id, err := tx.AddLineage(ctx, record.Lineage{Project: proj.Root, Path: r.rel, SHA256: r.sha, Writer: string(r.class.Writer),
			By: r.class.By, Tool: ev.ToolName, Session: ev.SessionID, ToolUseID: ev.ToolUseID, At: now})
		if err != nil {
			return err
		}
		r.id = id
	}
	return nil
}

// captureLineage fills in the full records of the call's results after the
// reply: the command, script, inputs, seeds, environment and commit, into
// the database (st may be nil) and the project's mirror. Programs (the
// interpreter's version and package list, git status) run only in the
// resident process, where the reply has already gone.
func (g gated) captureLineage(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, proj project.Project, now time.Time) {
	opt := lineage.Options{Exec: env.After != nil, Cache: filepath.Join(env.Paths().Home, "lineage"), Now: now, Path: env.Getenv("PATH")}
	for _, r := range g.results {
		rec := lineage.Record{Path: r.rel, SHA256: r.sha, Size: r.size, Writer: r.class.Writer, By: r.class.By, Tool: ev.ToolName,
			At: now.UTC(), Session: ev.SessionID, ToolUseID: ev.ToolUseID, Command: r.call.Command}
		packages := lineage.Capture(ctx, r.call, r.class, &rec, opt)
		rec = privacy.ScrubAll(rec)
		if st != nil && r.id != 0 {
			if detail, err := json.Marshal(rec); err == nil {
				if err := st.SetLineageDetail(ctx, r.id, detail); err != nil {
					env.Logf("record the lineage of %s: %v", r.rel, err)
				}
			}
		}
		if err := lineage.AppendMirror(proj.Root, rec, packages); err != nil {
			env.Logf("%v", err)
		}
	}
}

// afterReplyCapture captures the records of the call's results once the
// reply has gone (now, in a process that is no resident worker).
func (g gated) afterReplyCapture(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, proj project.Project, now time.Time) {
	if len(g.results) == 0 {
		return
	}
	env.AfterReply(ctx, func(ctx context.Context) { g.captureLineage(ctx, env, st, ev, proj, now) })
}
