// Package sessionstart is the SessionStart hook: it upserts the session under
// Claude's session_id (the event fires again on resume, clear, compact and
// fork) and injects the first state block: the previous session's narrative,
// or "first session on this project". It fails open: without a database the
// agent still starts, and the user is told.
package sessionstart

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/integrityhook"
	"github.com/vibe-science/vibe/internal/ledger"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/observer"
	"github.com/vibe-science/vibe/internal/posttool"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/projectfiles"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// Spec declares the hook.
var Spec = hookrun.Spec{
	Name:   "vibe-session-start",
	Events: []string{hook.SessionStart},
	Policy: hookrun.FailOpen,
	Budget: 5 * time.Second,
	Handle: Handle,
}

// Handle builds the SessionStart context.
func Handle(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	proj := project.Resolve(ev.Cwd)
	now := env.Now()
	st, err := env.Store(ctx)
	if err != nil {
		env.Note("the memory database is unavailable (%v); resuming from the project's .vibe-science files only", err)
		text := header(proj, 0, ev.Source) + "\nDatabase unavailable: resuming from .vibe-science files."
		if fs, ferr := projectfiles.FileState(proj); ferr == nil && fs != "" {
			text += "\n" + fs
		}
		return hookrun.Outcome{Context: []string{text}}, nil
	}
	var prev store.Session
	var hasPrev bool
	var count int
	err = st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, hookrun.Seen(ev, proj.Root, now)); err != nil {
			return err
		}
		return ledger.Baseline(ctx, tx, proj, now)
	})
	if err != nil {
		return hookrun.Outcome{}, fmt.Errorf("record session start: %w", err)
	}
	if prev, hasPrev, err = st.PreviousSession(ctx, proj.Root, ev.SessionID); err != nil {
		return hookrun.Outcome{}, err
	}
	if count, err = st.ProjectSessionCount(ctx, proj.Root); err != nil {
		return hookrun.Outcome{}, err
	}
	var b strings.Builder
	b.WriteString(header(proj, count, ev.Source))
	if hasPrev {
		when := prev.LastSeenAt
		if prev.EndedAt != nil {
			when = *prev.EndedAt
		}
		fmt.Fprintf(&b, "\nLast session (%s, %s):\n%s", short(prev.ID), when.Format("2006-01-02 15:04 UTC"), prev.NarrativeSummary)
	} else {
		b.WriteString("\nFirst session on this project.")
	}
	if d, err := gate.LoadDomain(proj.Root); err == nil {
		b.WriteString("\n" + literature.Line(d.Name, d.Literature.Primary))
	} else {
		env.Note("%v", err)
	}
	for _, hint := range []func(context.Context, *store.Store, string) (string, error){calibrate.Hint, calibrate.Patterns} {
		if h, err := hint(ctx, st, proj.Root); err == nil && h != "" {
			b.WriteString("\n" + h)
		}
	}
	ensureWorker(env)
	if err := integrityhook.BaselineConfigs(ctx, st, proj, now); err != nil {
		env.Logf("baseline configs: %v", err)
	}
	var out hookrun.Outcome
	if text, degraded, err := integrityhook.BriefContext(ctx, st, proj, BriefTokens, BriefConstraints); err != nil {
		env.Note("the research brief could not be read: %v", err)
	} else {
		if text != "" {
			out.Context = append(out.Context, text)
		}
		if degraded.Check != "" && degraded.Result != verdict.Pass {
			out.Verdicts = append(out.Verdicts, degraded)
		}
	}
	if _, err := seeds.Tick(ctx, st, proj.Root, ev.SessionID); err != nil {
		env.Logf("seeds tick: %v", err)
	}
	if lines, err := seeds.Pending(ctx, st, proj.Root, 5); err == nil && len(lines) > 0 {
		b.WriteString("\nPending serendipity seeds (triage them; LAW 5):")
		for _, l := range lines {
			b.WriteString("\n- " + l)
		}
	}
	if alerts, err := st.Alerts(ctx, store.AlertFilter{Project: proj.Root, Limit: 5}); err == nil && len(alerts) > 0 {
		b.WriteString("\nOpen observer alerts (most severe first):")
		for _, l := range observer.Lines(alerts, 5) {
			b.WriteString("\n- " + l)
		}
	}
	if changed, err := st.AdvisoriesByCheck(ctx, proj.Root, posttool.CheckProtectedChange, now.Add(-7*24*time.Hour), 5); err == nil && len(changed) > 0 {
		b.WriteString("\nProtected files changed by a role that may not write them (revert if not done yet):")
		for _, a := range changed {
			fmt.Fprintf(&b, "\n- %s %s", a.Verdict.Reason, a.Verdict.Recommendation)
		}
	}
	out.Context = append([]string{b.String()}, out.Context...)
	return out, nil
}

// The brief's share of the SessionStart context (seed 004's defaults).
const (
	BriefTokens      = 4000
	BriefConstraints = 20
)

func header(p project.Project, count int, source string) string {
	s := fmt.Sprintf("[VIBE STATE] project %s", p.Name())
	if count > 0 {
		s += fmt.Sprintf(", session %d", count)
	}
	if source != "" && source != "startup" {
		s += " (" + source + ")"
	}
	return s
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// ensureWorker starts the embed worker when it is not running (detached;
// a running worker costs one lock probe) and asks it to load its model
// before the first prompt. VIBE_WORKER=off leaves it alone (tests, or a
// user who wants lexical recall only).
func ensureWorker(env *hookrun.Env) {
	if env.Getenv("VIBE_WORKER") == "off" {
		return
	}
	paths := env.Paths()
	started, err := client.EnsureRunning(paths)
	if err != nil {
		env.Logf("start embed worker: %v", err)
		return
	}
	if !started {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_ = client.Warm(ctx, paths.Socket)
	}
}
