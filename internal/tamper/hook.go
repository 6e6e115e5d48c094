package tamper

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

// AfterTool is PostToolUse's check: it compares the project's guarded files
// with their snapshot after the call in ev, undoes what the call's role may
// not change and returns a BLOCK per undone change (plus the drift WARN of
// an accepted domain-config change). It never fails the hook: an error is
// logged and reported as a note. in is the call's file input as ev.Files()
// reads it (the handler has it already: a tool input can be megabytes).
// veto (nil: none) judges the allowed changes (Call.Veto).
func AfterTool(ctx context.Context, env *hookrun.Env, ev *hook.Event, in hook.FileInput, veto Veto) []verdict.Verdict {
	return check(ctx, env, ev, in, false, verdict.Block, veto)
}

// AtStop is the Stop hook's check: every guarded file, raw data included,
// is compared. While Claude Code reports the Stop hook already active, the
// undone changes are reported as WARN, so a file that something keeps
// changing cannot hold the turn open forever (it is restored each time).
func AtStop(ctx context.Context, env *hookrun.Env, ev *hook.Event, veto Veto) []verdict.Verdict {
	res := verdict.Block
	if ev.StopHookActive {
		res = verdict.Warn
	}
	return check(ctx, env, ev, hook.FileInput{}, true, res, veto)
}

func check(ctx context.Context, env *hookrun.Env, ev *hook.Event, in hook.FileInput, full bool, result verdict.Result, veto Veto) []verdict.Verdict {
	// The project as every handler sees it (CLAUDE_PROJECT_DIR first): a
	// shell that cd'd elsewhere does not move what is guarded.
	proj := env.Project(ev.Cwd)
	c := Call{Root: proj.Root, AgentType: ev.AgentType, Session: ev.SessionID, Full: full, Now: env.Now(), Clock: env.Now, Veto: veto}
	if !full {
		c.Tool, c.ToolUseID = ev.ToolName, ev.ToolUseID
		switch ev.ToolName {
		case "Write", "Edit", "MultiEdit", "NotebookEdit":
			if in.FilePath != "" {
				abs := in.FilePath
				if !filepath.IsAbs(abs) {
					abs = filepath.Join(ev.Cwd, abs)
				}
				c.Named, c.Direct = []string{proj.Rel(filepath.Clean(abs))}, true
			}
		default:
			req := permission.Request{ProjectRoot: proj.Root, Cwd: ev.Cwd, AgentType: ev.AgentType,
				ToolName: ev.ToolName, ToolInput: ev.ToolInput}
			c.MoreNamed = func() []string {
				paths, _ := permission.WrittenPaths(req)
				return paths
			}
			c.Approved = func(p *permission.Policy, rel string) bool { return DownloadApproved(p, req, rel) }
		}
	}
	c.Drift = configDrift(ctx, func() integritycheck.Store[*store.Tx] {
		st, err := env.Store(ctx)
		if err != nil {
			return nil // judged on this change alone: no history
		}
		return st
	}, proj, c.Now)
	g := For(env.Paths().Home)
	rep, err := g.Check(c)
	if err != nil {
		env.Logf("tamper: %v", err)
		env.Note("vibe could not compare the protected files with their snapshot (%v); the next tool call checks again, and `vibe tamper accept` takes a new snapshot if this one is damaged", err)
	}
	if rep.FirstSight {
		env.Logf("tamper: first snapshot of %s: %d protected files, %d not read yet", proj.Root, rep.Files, rep.Pending)
	}
	for _, f := range rep.Findings {
		if f.Set == SetDomainConfig && f.Outcome == Accepted {
			if st, err := env.Store(ctx); err == nil {
				if raw, err := os.ReadFile(filepath.Join(proj.Root, filepath.FromSlash(f.Path))); err == nil {
					if _, err := integritycheck.RecordConfigChange(ctx, st, proj, f.Path, raw, c.Now, ev.ToolUseID); err != nil {
						env.Logf("tamper: record threshold change: %v", err)
					}
				}
			}
		}
	}
	return Verdicts(rep, c, result)
}

// BeforeTool is PreToolUse's part: the net as the permission policy asks
// it (for a write it reaches only through a computation), and, once the
// call is let through, Begin, which opens the call's window. named are the
// files the call names as written (the permission decision's Paths).
func BeforeTool(env *hookrun.Env, ev *hook.Event, root string) (net permission.Net, begin func(named []string)) {
	g := For(env.Paths().Home)
	return g.Net(root, env.Now), func(named []string) {
		var in struct {
			Background bool `json:"run_in_background"`
		}
		_ = ev.Input(&in)
		if err := g.Begin(CallStart{Root: root, Session: ev.SessionID, ToolUseID: ev.ToolUseID, AgentType: ev.AgentType,
			Tool: ev.ToolName, Named: named, Background: in.Background}); err != nil {
			env.Logf("tamper: %v", err)
		}
	}
}

// DownloadApproved reports whether the new raw-data file rel came from a
// download the user approved: req downloads into rel (PreToolUse asked
// for it: a new download into raw data is asked), or the policy asks the
// user before req because it downloads or clones (approval.download,
// approval.clone; judged now, after the call, when the downloaded file
// already exists, so only its own target is asked about by name). Such a
// call ran only if the user approved it, so the raw data it brought is
// accepted.
func DownloadApproved(p *permission.Policy, req permission.Request, rel string) bool {
	for _, d := range permission.Downloads(req) {
		if d.Path == rel {
			return true
		}
	}
	d := p.Check(req)
	return d.Action == permission.Ask && (d.Rule == "approval.download" || d.Rule == "approval.clone")
}

// configDrift judges a domain-config change with integritycheck.ConfigWrite
// against the project's threshold history (none when st gives nil). A
// change under the warning level is no finding.
func configDrift(ctx context.Context, st func() integritycheck.Store[*store.Tx], proj project.Project, now time.Time) func(rel string, old, cur []byte) (verdict.Verdict, bool) {
	return func(rel string, old, cur []byte) (verdict.Verdict, bool) {
		// A command that raised the compute allowance is undone: it cannot
		// be asked after the fact, and only the user sets it. Without the
		// old content there is nothing to compare with: no opinion.
		if old != nil {
			if raise := gate.ComputeRaise(old, cur); raise != "" {
				return permission.ComputeRaiseVerdict(rel, raise, verdict.Block), true
			}
		}
		vs, err := integritycheck.ConfigWrite(ctx, st(), proj, rel, old, cur, now)
		if err != nil || len(vs) == 0 || vs[0].Result == verdict.Pass {
			return verdict.Verdict{}, false
		}
		return vs[0], true
	}
}
