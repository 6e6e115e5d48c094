package handler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/mistake"
	"github.com/vibe-science/vibe/internal/observer"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/spine"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/tamper"
	"github.com/vibe-science/vibe/internal/verdict"
)

// PostToolUse declares the hook.
var PostToolUse = hookrun.Spec{
	Name:   "vibe-post-tool-use",
	Events: []string{hook.PostToolUse, hook.PostToolUseFailure},
	Policy: hookrun.FailOpen,
	Budget: 5 * time.Second,
	Handle: handlePostToolUse,
}

// MaxChecksumBytes bounds the file size vibe hashes after a write; larger
// files are recorded with their size only, so one huge output cannot stall
// every tool call.
const MaxChecksumBytes = 32 << 20

// Call is a PostToolUse event digested for recording.
type Call struct {
	Project project.Project
	Entry   record.SpineEntry
	Files   []record.Touched
	Memory  *record.NewMemory
}

// Digest turns an event into the rows to record. It reads written files to
// checksum them and nothing else.
func Digest(ev *hook.Event, proj project.Project, now time.Time) Call {
	call, in, rel := digestFiles(ev, proj)
	call.digestEntry(ev, in, rel, now)
	return call
}

// digestFiles is the part of Digest that the checks before the reply need:
// the files the call read and wrote (written ones checksummed), with the
// tool input and the project-relative path of its file.
func digestFiles(ev *hook.Event, proj project.Project) (call Call, in hook.FileInput, rel string) {
	in = ev.Files()
	abs := in.FilePath
	if abs != "" && !filepath.IsAbs(abs) {
		abs = filepath.Join(ev.Cwd, abs)
	}
	if abs != "" {
		rel = proj.Rel(filepath.Clean(abs))
	}
	var files []record.Touched
	if ev.ToolName == "Bash" || ev.ToolName == "PowerShell" || strings.HasPrefix(ev.ToolName, "mcp__") {
		paths, _ := permission.WrittenPaths(permission.Request{ProjectRoot: proj.Root, Cwd: ev.Cwd,
			AgentType: ev.AgentType, ToolName: ev.ToolName, ToolInput: ev.ToolInput})
		for _, p := range paths {
			t := record.Touched{Path: p, Op: "write"}
			t.SHA256, t.Size = checksum(absUnder(proj, p))
			files = append(files, t)
		}
	}
	if abs != "" {
		switch ev.ToolName {
		case "Write", "Edit", "MultiEdit", "NotebookEdit":
			t := record.Touched{Path: rel, Op: "write"}
			t.SHA256, t.Size = checksum(abs)
			files = append(files, t)
		case "Read":
			files = append(files, record.Touched{Path: rel, Op: "read"})
		}
	}
	return Call{Project: proj, Files: files}, in, rel
}

// maxText is how much of a written file's content a call's summary and
// classification read.
const maxText = 4096

// digestEntry fills in the call's spine entry and memory: the summaries
// and digests that only the record reads, so the resident process makes
// them after the reply when the record follows it.
func (call *Call) digestEntry(ev *hook.Event, in hook.FileInput, rel string, now time.Time) {
	proj := call.Project
	text := in.Content
	switch {
	case in.NewString != "" || in.OldString != "":
		text = in.NewString
	case len(in.Edits) > 0:
		for _, e := range in.Edits {
			text += e.NewString + "\n"
		}
	case in.NewSource != "":
		text = in.NewSource
	}
	if len(text) > maxText {
		// Scrubbed before it is cut: a secret the cut split would no
		// longer be found by the summary's scrub.
		text = privacy.Prefix(text, maxText)
		text = strings.ToValidUTF8(text[:min(len(text), maxText)], "")
	}
	query := in.Query
	if query == "" {
		query = in.URL
	}
	c := spine.Call{Tool: ev.ToolName, Path: rel, Command: in.Command, Text: text, Query: query}
	action := spine.Classify(c)
	entry := record.SpineEntry{
		SessionID:     ev.SessionID,
		ProjectPath:   proj.Root,
		At:            now,
		ActionType:    action,
		ToolName:      ev.ToolName,
		ToolUseID:     ev.ToolUseID,
		InputSummary:  spine.InputSummary(ev.ToolName, c, ev.ToolInput),
		OutputSummary: spine.OutputSummary(ev.ToolResponse),
		InputSHA256:   spine.Digest(ev.ToolInput),
		OutputSHA256:  spine.Digest(ev.ToolResponse),
		DurationMS:    ev.DurationMS,
		AgentType:     ev.AgentType,
		GateResult:    call.Entry.GateResult,
	}
	if ev.HookEventName == hook.PostToolUseFailure {
		// The call failed: the spine keeps what was tried and the error.
		msg := ev.Error
		if ev.IsInterrupt {
			msg = "interrupted: " + msg
		}
		entry.OutputSummary = spine.Clip("failed: "+msg, spine.MaxSummary)
		entry.OutputSHA256 = spine.Digest([]byte(msg))
	}
	call.Entry = entry
	if ev.HookEventName == hook.PostToolUseFailure {
		// mistake.Record remembers a failed call.
	} else if spine.Significant(action) {
		ref := ev.ToolUseID
		if rel != "" {
			ref = rel
		}
		call.Memory = &record.NewMemory{
			ProjectPath: proj.Root, SessionID: ev.SessionID, Kind: record.KindAction,
			Text: action + ": " + entry.InputSummary, Ref: ref, Source: "hook", At: now,
		}
	}
}

// handlePostToolUse records the call.
func handlePostToolUse(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := env.Project(ev.Cwd)
	now := env.Now()
	// The files first: the checks before the reply read them; the spine
	// entry waits for the record (entry), after the reply when it can.
	call, in, rel := digestFiles(ev, proj)
	entry := func() { call.digestEntry(ev, in, rel, now) }
	var lit *record.LiteratureSearch
	if s, ok := literature.Detect(ev.ToolName, ev.ToolInput, ev.ToolResponse); ok {
		l := s.Record(ev.SessionID, proj.Root, ev.ToolUseID, now)
		if ev.HookEventName == hook.PostToolUseFailure {
			l.Retrieved = nil // a fetch that failed (a 404 of an invented DOI) retrieved nothing
		}
		lit = &l
	}
	// Protected files changed without an allowed write are restored first,
	// whatever the database's state, so what is gated and recorded below is
	// the restored content; a claim ledger's change is judged as an edit
	// of it is (ledgerNet), and put back when it promotes a claim that
	// lacks what its promotion needs.
	net := &ledgerNet{env: env, proj: proj}
	for _, f := range call.Files {
		if f.Op == "write" && claimcheck.IsLedger(f.Path) && ev.ToolName != "Bash" && ev.ToolName != "PowerShell" {
			net.judged = append(net.judged, f.Path)
		}
	}
	restored := tamper.AfterTool(ctx, env, ev, in, net.veto(ctx))
	call.addChanged(net.changed)
	rests := net.resting(ev.ToolName)
	// What is judged on disk needs no database: the restored files, a
	// write the role may not make, the gates of the changed artifacts, the
	// citations of the research files it changed (with the database, also
	// against what the project retrieved).
	var cites cited
	onDisk := func(g gated, st *store.Store) []verdict.Verdict {
		vs := append([]verdict.Verdict(nil), restored...)
		vs = append(vs, notRestored(protectedChanges(env, ev, call), restored)...)
		vs = append(vs, rests...)
		vs = append(vs, g.verdicts(ev)...)
		vs = append(vs, g.direction...)
		return append(vs, cites.verdicts...)
	}
	st, err := env.Store(ctx)
	if err != nil {
		entry()
		if spool(env, ev, proj, call, lit, now) {
			env.Note("the memory database is unavailable (%v); this %s call was spooled and is recorded once it is back", err, ev.ToolName)
		} else {
			env.Note("the memory database is unavailable (%v); this %s call was not recorded in the research spine", err, ev.ToolName)
		}
		g := gateArtifacts(ctx, env, nil, ev, call, now)
		g.directionNet(ctx, env, nil, ev, proj, lit != nil)
		cites = citationsWritten(ctx, env, nil, ev, call, g, restored, now)
		g.afterReplyCapture(ctx, env, nil, ev, proj, now)
		return hookrun.Outcome{Verdicts: onDisk(g, nil)}, nil
	}
	g := gateArtifacts(ctx, env, st, ev, call, now)
	g.directionNet(ctx, env, st, ev, proj, lit != nil)
	cites = citationsWritten(ctx, env, st, ev, call, g, restored, now)
	call.Entry.GateResult = string(g.worst)
	calls, brief, perr := st.PostToolProbe(ctx, ev.SessionID, proj.Root)
	if perr != nil {
		env.Logf("probe the session's state: %v", perr) // the call is then recorded before the reply
	}
	every := env.Settings().ObserverEvery
	record := func(ctx context.Context) error {
		entry()
		return st.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.UpsertSession(ctx, hookrun.Seen(ev, proj.Root, now)); err != nil {
				return err
			}
			if _, err := tx.AddSpine(ctx, call.Entry, call.Files); err != nil {
				return err
			}
			var err error
			if calls, err = tx.SessionToolCalls(ctx, ev.SessionID); err != nil {
				return err
			}
			if call.Memory != nil {
				if _, _, err := tx.AddMemory(ctx, *call.Memory); err != nil {
					return err
				}
			}
			if lit != nil {
				if _, _, err := tx.AddLiteratureSearch(ctx, *lit); err != nil {
					return err
				}
			}
			if err := recordClaims(ctx, tx, ev, call, now); err != nil {
				return err
			}
			if ev.HookEventName == hook.PostToolUseFailure {
				err = mistake.Record(ctx, tx, ev, proj.Root, call.Entry.InputSummary, now)
			} else {
				err = mistake.Resolve(ctx, tx, ev, proj.Root, call.Entry.InputSummary, now)
			}
			if err != nil {
				return err
			}
			if err := tx.AddNotices(ctx, ev.SessionID, proj.Root, citation.CheckCitation, cites.said, now); err != nil {
				return err
			}
			return g.record(ctx, tx, ev, proj, now)
		})
	}
	// A record the database refuses is spooled (or, when it cannot be,
	// reported); what was found on disk reaches Claude either way.
	refused := func(err error) {
		if !(fault.KindOf(err) == fault.Unavailable && spool(env, ev, proj, call, lit, now)) {
			env.Note("record %s call: %v; this call is missing from the research spine", ev.ToolName, err)
			env.Logf("record %s call: %v", ev.ToolName, err)
		}
	}
	if perr == nil && recordAfterReply(call, g) && !observer.Due(calls+1, every) {
		// Most calls, failed ones too: nothing in the reply depends on the
		// record, so the resident process writes it after answering.
		after := env.AfterReply
		if ev.HookEventName == hook.PostToolUseFailure || lit != nil || len(cites.said) > 0 {
			// the next PreToolUse reads the mistake, gate L-1 the search,
			// the next PostToolUse the citations already warned about
			after = env.AfterReplyOrdered
		}
		after(ctx, func(ctx context.Context) {
			if err := record(ctx); err != nil {
				refused(err)
				return
			}
			recordDownloads(ctx, env, st, ev, call, now)
		})
		g.afterReplyCapture(ctx, env, st, ev, proj, now)
		out := hookrun.Outcome{Verdicts: onDisk(g, st)}
		if brief {
			out.Verdicts = append(out.Verdicts, integrityAfterWrite(ctx, env, st, ev, call, now)...)
		}
		return out, nil
	}
	err = record(ctx)
	g.afterReplyCapture(ctx, env, st, ev, proj, now)
	if err != nil {
		refused(err)
		return hookrun.Outcome{Verdicts: onDisk(g, st)}, nil
	}
	recordDownloads(ctx, env, st, ev, call, now)
	out := hookrun.Outcome{Verdicts: onDisk(g, st)}
	out.Verdicts = append(out.Verdicts, syncSeeds(ctx, env, st, ev, call, now)...)
	out.Verdicts = append(out.Verdicts, recordReviews(ctx, env, st, ev, call, now)...)
	out.Verdicts = append(out.Verdicts, integrityAfterWrite(ctx, env, st, ev, call, now)...)
	if observer.Due(calls, every) {
		raised, err := observer.Run(ctx, st, proj, ev.SessionID, now, observer.Config{})
		if err != nil {
			env.Logf("observer: %v", err)
		}
		out.Verdicts = append(out.Verdicts, observer.Verdicts(raised)...)
	}
	return out, nil
}

// addChanged adds the files found changed on disk that the call did not
// name (a claim ledger a script rewrote) as files it wrote: their claim
// events are recorded, and their provenance.
func (call *Call) addChanged(rels []string) {
	for _, rel := range rels {
		named := false
		for _, f := range call.Files {
			named = named || f.Op == "write" && f.Path == rel
		}
		if !named {
			t := record.Touched{Path: rel, Op: "write"}
			t.SHA256, t.Size = checksum(absUnder(call.Project, rel))
			call.Files = append(call.Files, t)
		}
	}
}

// recordAfterReply: the call's record may follow the reply, because no
// part of the reply reads it; a failed call's mistake memory and a
// literature search (gate L-1 counts it) are recorded with
// AfterReplyOrdered, so they are there for the next PreToolUse as if
// written before the reply. Kept before the reply: gates that ran (their
// results), result files (their lineage rows: the next call's DQ4 reads
// them), and writes of the claim ledger, a review, the seeds file or the
// domain config (their rows feed verdicts of this very reply).
func recordAfterReply(call Call, g gated) bool {
	if len(g.judged) > 0 || len(g.results) > 0 {
		return false
	}
	for _, f := range call.Files {
		if f.Op == "write" && (claimcheck.IsLedger(f.Path) || claimcheck.IsReview(f.Path) || calibrate.IsReviewFile(f.Path) ||
			integritycheck.IsDomainConfig(f.Path) || strings.EqualFold(filepath.Base(filepath.FromSlash(f.Path)), seeds.FileName)) {
			return false
		}
	}
	return true
}

// CheckProtectedChange names the second line of defence: a protected file
// that changed although PreToolUse should have refused it.
const CheckProtectedChange = "protected-change"

// protectedChanges reports files the acting role may not write that this
// call wrote anyway (a program run from a script, a hard link, a policy
// changed mid-session). PostToolUse cannot undo the write, so the verdict
// tells Claude to revert it; it is also shown at the next SessionStart.
func protectedChanges(env *hookrun.Env, ev *hook.Event, call Call) []verdict.Verdict {
	var written []string
	for _, f := range call.Files {
		if f.Op == "write" {
			written = append(written, f.Path)
		}
	}
	if len(written) == 0 {
		return nil
	}
	policy, err := permission.Load(call.Project.Root)
	if err != nil {
		policy = permission.Default()
	}
	role := policy.RoleFor(ev.AgentType, policy.TeamMode())
	// A download the user approved (into raw data, say) is not a forbidden
	// change; the command is analysed for downloads only when it wrote a
	// protected file, which most calls do not.
	var fetched map[string]bool
	var out []verdict.Verdict
	for _, p := range written {
		if !policy.ProtectedFor(role, p) {
			continue
		}
		if fetched == nil {
			fetched = map[string]bool{}
			for _, d := range permission.Downloads(permission.Request{ProjectRoot: call.Project.Root, Cwd: ev.Cwd,
				AgentType: ev.AgentType, ToolName: ev.ToolName, ToolInput: ev.ToolInput}) {
				fetched[d.Path] = true
			}
		}
		if fetched[p] {
			continue
		}
		v := verdict.New(CheckProtectedChange, verdict.Block, verdict.High,
			fmt.Sprintf("%s changed %s, which the %s role may not write; the change happened anyway (%s %s).",
				roleName(role, ev.AgentType), p, role, ev.ToolName, ev.ToolUseID),
			map[string]any{"path": p, "role": role, "tool": ev.ToolName, "tool_use_id": ev.ToolUseID})
		v.Recommendation = fmt.Sprintf("Revert it now (for example `git checkout -- %s`), then let the role that owns it make the change.", p)
		v.Evidence.Paths = []string{p}
		out = append(out, v)
	}
	return out
}

func roleName(role, agentType string) string {
	if agentType != "" {
		return agentType
	}
	return "the " + role
}

// absUnder turns a project-relative path back into an absolute one.
func absUnder(proj project.Project, p string) string {
	if filepath.IsAbs(filepath.FromSlash(p)) {
		return filepath.FromSlash(p)
	}
	return filepath.Join(proj.Root, filepath.FromSlash(p))
}

// checksum hashes a written file; files over MaxChecksumBytes (or gone) get
// no hash.
func checksum(path string) (string, int64) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "", 0
	}
	if info.Size() > MaxChecksumBytes {
		return "", info.Size()
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0
	}
	return hex.EncodeToString(h.Sum(nil)), n
}

// recordClaims turns ledger writes into claim events and reviewer files into
// R2_REVIEWED events; claim events are also remembered.
func recordClaims(ctx context.Context, tx *store.Tx, ev *hook.Event, call Call, now time.Time) error {
	for _, f := range call.Files {
		if f.Op != "write" {
			continue
		}
		abs := absUnder(call.Project, f.Path)
		var evs []claim.Event
		var err error
		switch {
		case claimcheck.IsLedger(f.Path):
			content, rerr := os.ReadFile(abs)
			if rerr != nil {
				continue
			}
			evs, err = claimcheck.Record(ctx, tx, ev.SessionID, call.Project.Root, f.Path, content, now, ev.ToolUseID)
		case claimcheck.IsReview(f.Path):
			content, rerr := os.ReadFile(abs)
			if rerr != nil {
				continue
			}
			evs, err = claimcheck.RecordReview(ctx, tx, ev.SessionID, call.Project.Root, f.Path, content, now)
		}
		if err != nil {
			return err
		}
		for _, e := range evs {
			text := e.ClaimID + " " + e.Type
			if e.Narrative != "" {
				text += ": " + e.Narrative
			}
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: call.Project.Root, SessionID: ev.SessionID,
				Kind: record.KindClaimEvent, Text: text, Ref: f.Path + "#" + e.ClaimID, Source: "hook", At: now}); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncSeeds mirrors SERENDIPITY.md into the seeds table after a write of it,
// warning about entries that do not follow the documented format.
func syncSeeds(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, call Call, now time.Time) []verdict.Verdict {
	for _, f := range call.Files {
		if f.Op != "write" || !strings.EqualFold(filepath.Base(filepath.FromSlash(f.Path)), seeds.FileName) {
			continue
		}
		content, err := os.ReadFile(absUnder(call.Project, f.Path))
		if err != nil {
			continue
		}
		res, err := seeds.Sync(ctx, st, call.Project.Root, ev.SessionID, content, now)
		if err != nil {
			env.Logf("sync seeds: %v", err)
			continue
		}
		if len(res.Errors) > 0 {
			return []verdict.Verdict{seeds.FormatVerdict(res.Errors)}
		}
	}
	return nil
}

// CheckReviewFormat names the warning for a reviewer file vibe cannot read.
const CheckReviewFormat = "review-format"

// recordReviews parses R2 and judge reports written under 05-reviewer2/
// into the review table that R2 calibration reads.
func recordReviews(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, call Call, now time.Time) []verdict.Verdict {
	var out []verdict.Verdict
	for _, f := range call.Files {
		if f.Op != "write" || !calibrate.IsReviewFile(f.Path) {
			continue
		}
		content, err := os.ReadFile(absUnder(call.Project, f.Path))
		if err != nil {
			continue
		}
		rev, err := calibrate.RecordReport(ctx, st, call.Project.Root, ev.SessionID, f.Path, content, now)
		problems := rev.Problems
		if err != nil {
			problems = append(problems, err.Error())
		}
		if len(problems) > 0 {
			v := verdict.New(CheckReviewFormat, verdict.Warn, verdict.Low,
				fmt.Sprintf("%s was recorded only in part: %s", f.Path, strings.Join(problems, "; ")),
				map[string]any{"path": f.Path, "problems": problems})
			v.Recommendation = "Follow skill/vibe/formats/review-report.md or judge-report.md so R2 calibration can use it."
			out = append(out, v)
		}
	}
	return out
}

// integrityAfterWrite records threshold changes of domain configs (the drift
// history) and notes when a write moved a code anchor of the research brief.
func integrityAfterWrite(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, call Call, now time.Time) []verdict.Verdict {
	var out []verdict.Verdict
	for _, f := range call.Files {
		if f.Op != "write" {
			continue
		}
		if integritycheck.IsDomainConfig(f.Path) {
			if content, err := os.ReadFile(absUnder(call.Project, f.Path)); err == nil {
				if _, err := integritycheck.RecordConfigChange(ctx, st, call.Project, f.Path, content, now, ev.ToolUseID); err != nil {
					env.Logf("record threshold change: %v", err)
				}
			}
		}
		if v, ok := integritycheck.AnchorEdited(ctx, st, call.Project, f.Path); ok {
			out = append(out, v)
		}
	}
	return out
}

// recordDownloads records each dataset a successful command downloaded
// (source URL, where it landed, its checksum), so the design-drift check
// knows a downloaded dataset that no script reads.
func recordDownloads(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, call Call, now time.Time) {
	if ev.HookEventName != hook.PostToolUse || (ev.ToolName != "Bash" && ev.ToolName != "PowerShell") {
		return
	}
	for _, d := range permission.Downloads(permission.Request{ProjectRoot: call.Project.Root, Cwd: ev.Cwd,
		AgentType: ev.AgentType, ToolName: ev.ToolName, ToolInput: ev.ToolInput}) {
		if d.URL == "" || d.Abs == "" {
			continue
		}
		if _, err := observer.RecordDownload(ctx, st, call.Project, ev.SessionID, d.URL, d.Abs, "", now); err != nil {
			env.Logf("record download of %s: %v", d.URL, err)
		}
	}
}

// notRestored drops the "revert it" verdicts of files the tamper check has
// already put back: Claude is told once, with what was restored.
func notRestored(vs, restored []verdict.Verdict) []verdict.Verdict {
	done := map[string]bool{}
	for _, r := range restored {
		for _, p := range r.Evidence.Paths {
			done[p] = true
		}
	}
	out := vs[:0]
	for _, v := range vs {
		keep := true
		for _, p := range v.Evidence.Paths {
			if done[p] {
				keep = false
			}
		}
		if keep {
			out = append(out, v)
		}
	}
	return out
}

// spool keeps the call's spine entry, files, memory and literature search
// for later when the database refuses them now (hookrun.Env.Record); the
// claim events of this call are not spooled.
func spool(env *hookrun.Env, ev *hook.Event, proj project.Project, call Call, lit *record.LiteratureSearch, now time.Time) bool {
	seen := hookrun.Seen(ev, proj.Root, now)
	entry := call.Entry
	r := store.Record{Session: &seen, Spine: &entry, Files: call.Files, Memory: call.Memory, Literature: lit}
	if err := store.Spool(env.Paths().Spool, r); err != nil {
		env.Logf("spool %s call: %v", ev.ToolName, err)
		return false
	}
	return true
}
