package handler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/mistake"
	"github.com/vibe-science/vibe/internal/observer"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/tamper"
	"github.com/vibe-science/vibe/internal/verdict"
)

// PreToolUse declares the hook. It also judges PreSkillShellCommand (Claude
// Code 2.1.332): the shell command a skill or slash command runs when it
// loads is a Bash call that no PreToolUse sees, so the same policy judges
// it, and fails closed on it whatever tool it names.
var PreToolUse = hookrun.Spec{
	Name:   "vibe-pre-tool-use",
	Events: []string{hook.PreToolUse, hook.PreSkillShellCommand},
	Policy: hookrun.FailClosed,
	Budget: 5 * time.Second,
	Handle: handlePreToolUse,
	ClosedFor: func(ev *hook.Event) bool {
		return ev.HookEventName == hook.PreSkillShellCommand || MayWrite(ev.ToolName)
	},
}

// PreToolUseGates are the gates PreToolUse judges on a proposed write, before it
// happens: D1 (ledgerCheck, claim promotion), DQ4 (findingsCheck, on a Write
// or a shell command's spelled-out text) and L-1 (directionCheck). The
// docs' trigger columns are tested against this list, and the list against
// what the hook does.
var PreToolUseGates = []string{"D1", "DQ4", "L-1"}

// MayWrite reports whether a tool can change files, so that an undecidable
// call to it is refused rather than let through.
func MayWrite(tool string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "PowerShell":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}

// handlePreToolUse judges one proposed tool call. Checks that need no history run
// even when the database is unavailable; checks that need it fail closed.
// A call it lets through opens its window in the safety net (tamper.BeforeTool).
func handlePreToolUse(ctx context.Context, env *hookrun.Env, ev *hook.Event) (out hookrun.Outcome, err error) {
	ev = skillShell(ev)
	proj := env.Project(ev.Cwd)
	net, begin := tamper.BeforeTool(env, ev, proj.Root)
	var named []string
	defer func() {
		for _, v := range out.Verdicts {
			if v.Result.Blocks() {
				return
			}
		}
		if err == nil {
			begin(named)
		}
	}()
	return preToolUse(ctx, env, ev, net, &named)
}

func preToolUse(ctx context.Context, env *hookrun.Env, ev *hook.Event, net permission.Net, named *[]string) (hookrun.Outcome, error) {
	proj := env.Project(ev.Cwd)
	now := env.Now()
	st, stErr := env.Store(ctx)
	if stErr != nil {
		env.NoteUnavailable(integrity.DepDatabase, "the memory database is unavailable (%v); checks that need recorded history refuse what they cannot confirm", stErr)
	}
	// Decide first, record after (in the resident process, after the
	// reply): a database that cannot take the session row now (locked,
	// full disk) delays the record (spooled), never the decision.
	defer env.AfterReply(ctx, func(ctx context.Context) {
		seen := hookrun.Seen(ev, proj.Root, now)
		if err := env.Record(ctx, store.Record{Session: &seen}); err != nil {
			env.Logf("record session: %v", err)
		}
	})
	var out hookrun.Outcome
	policy, err := permission.Load(proj.Root)
	if err != nil {
		env.Note("%v; using the default permissions until it is fixed", err)
		policy = permission.Default()
	}
	req := permission.Request{ProjectRoot: proj.Root, Cwd: ev.Cwd, AgentType: ev.AgentType, ToolName: ev.ToolName, ToolInput: ev.ToolInput, Net: net,
		Compute: shellAllowance(ev.ToolName, proj.Root)}
	d := policy.Check(req)
	*named = d.Paths
	switch d.Action {
	case permission.Deny:
		// A refused call needs no further checks: report the one reason.
		out.Verdicts = append(out.Verdicts, policy.Verdict(req, d))
		return out, nil
	case permission.Ask:
		out.Ask = append(out.Ask, policy.Verdict(req, d))
	}
	probe := probeState(ctx, env, st, ev, proj)
	if probe.mistakes {
		if c, err := mistake.Context(ctx, st, ev, proj.Root); err != nil {
			env.Logf("mistake memory: %v", err)
		} else if c != "" {
			out.Context = append(out.Context, c)
		}
	}
	out.Verdicts = append(out.Verdicts, ledgerBash(ev, d.Paths)...)
	out.Verdicts = append(out.Verdicts, shellWrites(ctx, env, ev, st, proj, d.Paths)...)
	if probe.halts {
		out.Verdicts = append(out.Verdicts, haltCheck(ctx, env, st, proj, d.Paths)...)
	}
	if probe.brief {
		briefVerdicts, ask := briefCheck(ctx, env, st, proj, d.Paths)
		out.Verdicts = append(out.Verdicts, briefVerdicts...)
		out.Ask = append(out.Ask, ask...)
	}
	target := writeTarget(ev)
	if target == "" {
		return out, nil
	}
	old, proposed, ok := proposedWrite(ev, target)
	if !ok {
		return out, nil
	}
	domain, err := gate.LoadDomain(proj.Root)
	if err != nil {
		env.Note("%v; gates use the generic thresholds until it is fixed", err)
		domain, _ = gate.ShippedDomain(gate.GenericDomain)
	}
	out.Verdicts = append(out.Verdicts, ledgerCheck(ctx, proj, target, old, proposed, domain, st, now)...)
	out.Verdicts = append(out.Verdicts, findingsCheck(proj, target, proposed, domain, originsFor(ctx, env, st, proj, nil, now))...)
	out.Verdicts = append(out.Verdicts, directionCheck(ctx, env, ev, st, proj, target, old, proposed, domain)...)
	if rel := proj.Rel(target); integritycheck.IsDomainConfig(rel) {
		vs, err := integritycheck.ConfigWrite(ctx, integrityStore(st), proj, rel, old, proposed, now)
		if err != nil {
			env.Logf("threshold drift: %v", err)
		}
		out.Verdicts = append(out.Verdicts, vs...)
		if raise := gate.ComputeRaise(old, proposed); raise != "" {
			out.Ask = append(out.Ask, permission.ComputeRaiseVerdict(rel, raise, verdict.Warn))
		}
	}
	return out, nil
}

// shellAllowance is the project's compute allowance for a shell call, nil
// for other tools.
func shellAllowance(tool, root string) *permission.Allowance {
	if tool != "Bash" {
		return nil
	}
	return permission.ComputeAllowance(root)
}

// skillShell is a PreSkillShellCommand as the shell call it is: its
// tool_input is {"command": ...} and its tool_name says which shell runs
// it (Bash or PowerShell); a name the policy does not know as a shell is
// judged as Bash, so that no command escapes the shell analyser for the
// name it came under. Every other event is returned as it is.
func skillShell(ev *hook.Event) *hook.Event {
	if ev.HookEventName != hook.PreSkillShellCommand || ev.ToolName == "Bash" || ev.ToolName == "PowerShell" {
		return ev
	}
	c := *ev
	c.ToolName = "Bash"
	return &c
}

// pending is what the project holds that a PreToolUse must read further.
type pending struct{ halts, mistakes, brief bool }

// probeState asks the database in one statement whether the project has
// open HALT alerts, mistakes recorded on this call's target, and a brief,
// so that the checks run only on what is there. Without the database only
// the brief's copy can be read; when the probe fails every check runs and
// reports its own error.
func probeState(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, proj project.Project) pending {
	if st == nil {
		return pending{brief: true}
	}
	halts, mistakes, brief, err := st.PreToolProbe(ctx, proj.Root, mistake.Target(ev.ToolName, ev.ToolInput, ev.Cwd, proj.Root))
	if err != nil {
		env.Logf("probe the project's state: %v", err)
		return pending{halts: true, mistakes: true, brief: true}
	}
	if !brief {
		// A database made again without the brief the project's copy holds.
		_, err := os.Stat(filepath.Join(proj.Root, filepath.FromSlash(integritycheck.ProjectBriefFile)))
		brief = err == nil
	}
	return pending{halts: halts, mistakes: mistakes, brief: brief}
}

// integrityStore is st as integritycheck takes it: a nil interface, not a
// nil *store.Store, when the database is unavailable, so its "no history"
// path runs instead of a call on a nil store.
func integrityStore(st *store.Store) integritycheck.Store[*store.Tx] {
	if st == nil {
		return nil
	}
	return st
}

// briefCheck applies the research brief's constraints to the files a call
// writes: Critical+Block denies, WarnAndConfirm asks the user, WarnOnly is
// context and LogOnly (a PASS) is recorded only. With the database down,
// the brief's copy is read.
func briefCheck(ctx context.Context, env *hookrun.Env, st *store.Store, proj project.Project, paths []string) (vs, ask []verdict.Verdict) {
	if len(paths) == 0 {
		return nil, nil
	}
	copyPath := integritycheck.BriefCopy(env.Paths().DB, proj.Root)
	breakers := env.Settings().Breakers
	for _, p := range paths {
		for _, v := range integritycheck.BriefWriteWith(ctx, integrityStore(st), copyPath, proj, p, breakers) {
			if brief.NeedsConfirm(v) {
				ask = append(ask, v)
			} else {
				vs = append(vs, v)
			}
		}
	}
	return vs, ask
}

// directionCheck is gate L-1: writing a research direction before any
// literature search in the session is refused, naming the domain's
// recommended sources.
func directionCheck(ctx context.Context, env *hookrun.Env, ev *hook.Event, st *store.Store, proj project.Project, abs string, old, proposed []byte, d gate.Domain) []verdict.Verdict {
	if !literature.IsDirectionChange(proj.Rel(abs), old, proposed) {
		return nil
	}
	has := false
	if st != nil {
		var err error
		if has, err = st.HasLiteratureSearch(ctx, ev.SessionID); err != nil {
			has = false
		}
	}
	if !has {
		// A search whose call the database refused waits in the spool.
		has = store.SpooledLiteratureSearch(env.Paths().Spool, ev.SessionID)
	}
	v := literature.DirectionVerdict(has, d.Name, d.Literature.Primary)
	if v.Result == verdict.Pass {
		return nil
	}
	return []verdict.Verdict{v}
}

// findingsCheck runs DQ4 on the proposed content of a findings file: every
// number it reports must be in its source JSON, and that source must not
// have been written by hand (origins, the recorded lineage), so a typo or
// an invented value is refused before it is written, listing each
// unmatched number with its context.
func findingsCheck(proj project.Project, abs string, proposed []byte, d gate.Domain, origins gate.Origins) []verdict.Verdict {
	if !isFindings(proj.Rel(abs), proposed, d) {
		return nil
	}
	res, err := gate.DQ4FileFrom(abs, proposed, d, origins)
	if err != nil {
		v := verdict.New("DQ4", verdict.Block, verdict.High,
			fmt.Sprintf("DQ4 could not check %s: %v", proj.Rel(abs), err), map[string]string{"path": proj.Rel(abs)})
		v.Recommendation = "Make the source JSON readable (see skill/vibe/formats/findings.md), then write the findings again."
		return []verdict.Verdict{v}
	}
	if res.Status == gate.StatusPass {
		return nil // recorded after the write, by PostToolUse
	}
	for i, in := range res.Inputs {
		res.Inputs[i] = proj.Rel(in) // the command to re-run names them as the project does
	}
	return []verdict.Verdict{res.Verdict()}
}

// isFindings reports whether content written to rel is a findings file:
// named so by the domain config, or recognised as one by what it holds
// (research.Recognize: a findings title or finding ids, and reported
// numbers), as PostToolUse and `vibe gate check` recognise it on disk.
func isFindings(rel string, content []byte, d gate.Domain) bool {
	if slices.Contains(gate.AutoGates(rel, d), "DQ4") {
		return true
	}
	if !research.Candidate(rel, &d) {
		return false
	}
	head := content[:min(len(content), research.HeadBytes)]
	return research.Recognize(research.File{Rel: filepath.ToSlash(rel), Head: head, Size: int64(len(content))}, d).Kind == research.KindFindings
}

// haltCheck refuses writes while the observer has an unresolved HALT for
// the project (the files that fix the HALT stay writable).
func haltCheck(ctx context.Context, env *hookrun.Env, st *store.Store, proj project.Project, paths []string) []verdict.Verdict {
	if st == nil {
		return nil
	}
	halts, err := observer.OpenHalts(ctx, st, proj, env.Now())
	if err != nil {
		env.Logf("open halts: %v", err)
		return nil
	}
	if len(halts) == 0 {
		return nil
	}
	var blocking []observer.Alert
	if len(paths) == 0 {
		blocking = observer.Blocking(halts, "")
	}
	for _, p := range paths {
		blocking = append(blocking, observer.Blocking(halts, p)...)
	}
	if len(blocking) == 0 {
		return nil
	}
	return []verdict.Verdict{observer.HaltVerdict(dedupAlerts(blocking))}
}

func dedupAlerts(as []observer.Alert) []observer.Alert {
	seen := map[int64]bool{}
	var out []observer.Alert
	for _, a := range as {
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	return out
}

// ledgerBash refuses shell writes to a claim ledger: promotions can only be
// checked when the new content is known, which Write and Edit give and a
// shell command does not. paths are the files the call writes as the
// permission check found them (Decision.Paths: the command is not
// analysed again).
func ledgerBash(ev *hook.Event, paths []string) []verdict.Verdict {
	if ev.ToolName != "Bash" && ev.ToolName != "PowerShell" {
		return nil
	}
	for _, p := range paths {
		if claimcheck.IsLedger(p) {
			v := verdict.New(claimcheck.CheckLedger, verdict.Block, verdict.High,
				fmt.Sprintf("This command writes %s. vibe checks claim promotions from the new ledger content, which it can only know for Write and Edit calls.", p),
				map[string]any{"path": p, "tool": ev.ToolName})
			v.Recommendation = "Change CLAIM-LEDGER.md with the Edit or Write tool instead."
			v.Evidence.Paths = []string{p}
			return []verdict.Verdict{v}
		}
	}
	return nil
}

// ledgerCheck judges a Write/Edit/MultiEdit of a claim ledger before it
// is written, by the rules the PostToolUse net applies to the ledger on
// disk (ledgerJudge).
func ledgerCheck(ctx context.Context, proj project.Project, abs string, old, proposed []byte, d gate.Domain, st *store.Store, now time.Time) []verdict.Verdict {
	if !claimcheck.IsLedger(abs) {
		return nil
	}
	return ledgerJudge(ctx, proj, d, st, now).Check(ctx, proj.Rel(abs), old, proposed)
}

// ledgerJudge is the one claimcheck.Judge of both hooks: the project's domain
// may raise the gates each tier requires; the gates passed come from the
// store (none without it: a promotion is then refused); the D1 record is
// where `vibe gate run D1 --claim` looks (gatecheck.PromotionRecord); the
// papers the project retrieved come from the store too.
func ledgerJudge(ctx context.Context, proj project.Project, d gate.Domain, st *store.Store, now time.Time) claimcheck.Judge {
	j := claimcheck.Judge{Project: proj, Table: d.Promotion, Command: gateCommand, Now: now,
		Record: func(c claim.Claim) string { rel, _ := gatecheck.PromotionRecord(proj.Root, c); return rel }}
	var salvaged seeds.Salvaged // nil, not a nil *store.Store, when there is no database
	if st != nil {
		j.Passed = func(ctx context.Context, id string) (map[string]bool, error) {
			return st.PassedGates(ctx, proj.Root, id)
		}
		j.Retrieved = func(ctx context.Context, ids []string) (map[string]bool, error) {
			return st.Retrieved(ctx, proj.Root, ids)
		}
		salvaged = st
	}
	j.Unbacked = func(c claim.Claim) []string {
		var out []string
		for _, u := range gatecheck.UnbackedEvidence(proj.Root, c, d, originsFor(ctx, nil, st, proj, nil, time.Time{})) {
			out = append(out, u.String())
		}
		return out
	}
	j.Salvage = func(c claim.Claim) verdict.Verdict {
		serendipity, _ := os.ReadFile(proj.Path(seeds.FileName))
		return seeds.SalvageVerdict(ctx, salvaged, proj.Root, c, serendipity)
	}
	return j
}

// gateCommand is the command that passes a gate for a claim: `vibe gate
// run ID --claim C` finds the gate's inputs from the claim's evidence
// (gatecheck.ClaimInputs), so it needs no file arguments.
func gateCommand(gateID, claimID string) string {
	return fmt.Sprintf("`vibe gate run %s --claim %s`", gateID, claimID)
}
