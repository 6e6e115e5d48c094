package handler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/disclosure"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// SessionStart declares the hook. Its binary also serves Claude Code's
// Setup (first-run setup, setup.go) and ConfigChange (a settings change
// that would turn vibe off mid-session): both are about the session's
// set-up, and neither is worth a binary of its own.
var SessionStart = hookrun.Spec{
	Name:   "vibe-session-start",
	Events: []string{hook.SessionStart, hook.Setup, hook.ConfigChange},
	Policy: hookrun.FailOpen,
	Budget: 5 * time.Second,
	Handle: func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
		switch ev.HookEventName {
		case hook.Setup:
			return handleSetup(ctx, env, ev)
		case hook.ConfigChange:
			return handleConfigChange(ctx, env, ev)
		}
		return handleSessionStart(ctx, env, ev)
	},
}

// The brief's share of the SessionStart context (seed 004's defaults).
const (
	BriefTokens      = 4000
	BriefConstraints = 20
)

// handleSessionStart builds the SessionStart context.
func handleSessionStart(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := env.Project(ev.Cwd)
	now := env.Now()
	st, err := env.Store(ctx)
	if err != nil {
		env.Note("the memory database is unavailable (%v); resuming from the project's .vibe-science files only", err)
		text := "[VIBE STATE] project " + proj.Name() + "\nDatabase unavailable: resuming from .vibe-science files."
		if tree := resume.TreeResume(proj); tree != "" {
			text += "\n" + tree
		}
		if fs, ferr := resume.FileState(proj); ferr == nil && fs != "" {
			text += "\n" + fs
		}
		return hookrun.Outcome{Context: []string{text}}, nil
	}
	// The baselines first: the first ledger or domain-config change of
	// this session is told apart from what was there before by them. With
	// neither file (most projects, most starts) there is nothing to read.
	if claimcheck.Exists(proj) {
		if err := st.Tx(ctx, func(tx *store.Tx) error { return claimcheck.Baseline(ctx, tx, proj, now) }); err != nil {
			env.Logf("baseline the claim ledger: %v", err)
			env.Note("vibe could not record the claim ledger as it is at this session's start (%v): claims already in it may be counted as created in this session", err)
		}
	}
	if err := integritycheck.BaselineConfigs(ctx, st, proj, now); err != nil {
		env.Logf("baseline configs: %v", err)
	}
	// One statement says which of the other packages' parts have rows;
	// only those are read (most session starts find none). If the probe
	// fails, every part is read.
	changedSince := now.Add(-changedWithin)
	has, err := st.SessionStartProbe(ctx, proj.Root, CheckProtectedChange, changedSince)
	if err != nil {
		env.Logf("probe the session start's parts: %v", err)
		has = store.SessionParts{Alerts: true, Changed: true, Reviews: true, Patterns: true, Seeds: true}
	}
	// The session's row: nothing below reads it (the state line numbers
	// this session whether it is recorded yet or not), so the resident
	// process writes it after its reply, before any hook that follows;
	// the database refusing it spools it (hookrun.Env.Record). Ticking a
	// waiting seed counts this session, so then it is written first.
	seen := hookrun.Seen(ev, proj.Root, now)
	record := func(ctx context.Context) {
		if err := env.Record(ctx, store.Record{Session: &seen}); err != nil {
			env.Logf("record session start: %v", err)
		}
	}
	if has.Seeds {
		record(ctx)
		if _, err := seeds.Tick(ctx, st, proj.Root, ev.SessionID); err != nil {
			env.Logf("seeds tick: %v", err)
		}
	} else {
		env.AfterReplyOrdered(ctx, record)
	}
	vec := ensureWorker(ctx, env, proj.Root)

	settings := env.Settings()
	text, err := disclosure.SessionStartContext(ctx, st, vec, proj.Root, ev.SessionID, now,
		disclosure.DefaultBudgets(settings.SessionStartTokens), parts(ctx, env, st, proj, has, changedSince))
	if err != nil {
		return hookrun.Outcome{}, err
	}
	out := hookrun.Outcome{Context: []string{text}}
	if brief, degraded, err := integritycheck.BriefContext(ctx, st, proj, BriefTokens, BriefConstraints); err != nil {
		env.Note("the research brief could not be read: %v", err)
	} else {
		if brief != "" {
			out.Context = append(out.Context, brief)
		}
		if degraded.Check != "" && degraded.Result != verdict.Pass {
			out.Verdicts = append(out.Verdicts, degraded)
		}
	}
	return out, nil
}

// changedWithin is how far back SessionStart reports protected files that
// changed without an allowed write.
const changedWithin = 7 * 24 * time.Hour

// parts are the context lines other packages own, of those has says have
// rows; disclosure fits them into the layers' budgets by priority.
func parts(ctx context.Context, env *hookrun.Env, st *store.Store, proj project.Project, has store.SessionParts, changedSince time.Time) []disclosure.Part {
	var ps []disclosure.Part
	if d, err := gate.LoadDomain(proj.Root); err == nil {
		_, statErr := os.Stat(filepath.Join(proj.Root, filepath.FromSlash(gate.DomainConfigPath)))
		ps = append(ps, disclosure.Part{Layer: disclosure.LayerState, Priority: disclosure.PriorityBlueprint,
			Lines: []string{literature.Line(d.Name, d.Literature.Primary, statErr == nil)}, More: "vibe literature sources"})
	} else {
		env.Note("%v", err)
	}
	if has.Alerts {
		if alerts, err := st.Alerts(ctx, record.AlertFilter{Project: proj.Root, Limit: 5}); err == nil && len(alerts) > 0 {
			as := make([]disclosure.Alert, len(alerts))
			for i, a := range alerts {
				as[i] = disclosure.Alert{Level: a.Level, Message: fmt.Sprintf("[A-%d] %s", a.ID, a.Message)}
			}
			ps = append(ps, disclosure.AlertsPart(as))
		}
	}
	if has.Changed {
		if changed, err := st.AdvisoriesByCheck(ctx, proj.Root, CheckProtectedChange, changedSince, 5); err == nil && len(changed) > 0 {
			lines := make([]string, len(changed))
			for i, a := range changed {
				lines[i] = a.Verdict.Reason + " " + a.Verdict.Recommendation
			}
			ps = append(ps, disclosure.Part{Layer: disclosure.LayerRecall, Priority: disclosure.PriorityAlerts,
				Title: "PROTECTED FILES CHANGED (revert if not done yet)", Lines: lines})
		}
	}
	var hints []string
	for _, hint := range []struct {
		has bool
		get func() (string, error)
	}{
		{has.Reviews, func() (string, error) { return calibrate.Hint(ctx, st, proj.Root) }},
		{has.Patterns, func() (string, error) { return calibrate.Patterns(ctx, st, proj.Root) }},
	} {
		if !hint.has {
			continue
		}
		if h, err := hint.get(); err == nil && h != "" {
			// The hints carry their own tag ("[R2 CALIBRATION] …"); the part's
			// title already says it.
			if strings.HasPrefix(h, "[") {
				if i := strings.Index(h, "] "); i > 0 {
					h = h[i+2:]
				}
			}
			hints = append(hints, "- "+h)
		}
	}
	if len(hints) > 0 {
		ps = append(ps, disclosure.Part{Layer: disclosure.LayerRecall, Priority: disclosure.PriorityCalibration,
			Title: "R2 CALIBRATION", Lines: hints, More: "vibe calibration"})
	}
	if has.Seeds {
		if lines, err := seeds.Pending(ctx, st, proj.Root, 5); err == nil && len(lines) > 0 {
			for i := range lines {
				lines[i] = "- " + lines[i]
			}
			ps = append(ps, disclosure.Part{Layer: disclosure.LayerRecall, Priority: disclosure.PrioritySeeds,
				Title: "PENDING SEEDS (triage them; LAW 5)", Lines: lines, More: "vibe seeds"})
		}
	}
	return ps
}

// ensureWorker starts the embed worker when it is not running (detached; a
// hook never waits for it), replaces one of another build or install, and
// warms the model for the session's first prompt; it returns the vector
// search recall uses. A handler running inside the worker (env.Query) only
// warms the model and the project's vector codes: the worker is the
// process it runs in.
func ensureWorker(ctx context.Context, env *hookrun.Env, project string) recall.Vectors {
	if config.WorkerOff(env.Getenv) {
		return nil
	}
	paths := env.Paths()
	deadline := env.Settings().RecallDeadline()
	if env.Query != nil {
		if _, err := env.Query(ctx, client.Request{Op: client.OpWarm, Project: project}); err != nil {
			env.Logf("warm the model: %v", err)
		}
		return recall.HookVectors(env.Getenv, paths.Socket, deadline, env.StartQuery, env.Query)
	}
	started, err := client.EnsureRunning(paths)
	if err != nil {
		env.Logf("start embed worker: %v", err)
		return nil
	}
	if !started {
		// A worker of another install or an older build serves no hook
		// (the clients do not trust it): replace it with this install's.
		if bin, err := client.Binary(); err == nil {
			if replaced, err := client.ReplaceForeign(paths, bin, 2*time.Second); err != nil {
				env.Logf("%v", err)
			} else if replaced {
				env.Logf("replaced a worker of another build or install with %s", bin)
				started = true
			}
		}
	}
	if !started {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_ = client.Warm(ctx, paths.Socket)
	}
	return recall.HookVectors(env.Getenv, paths.Socket, deadline, nil, nil)
}
