package hookrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// Policy is what a hook does when it cannot decide: crash, timeout, bad
// input, internal error.
type Policy int

// The policies.
const (
	// FailOpen lets the agent's action proceed and tells the user why vibe
	// had no opinion.
	FailOpen Policy = iota
	// FailClosed refuses the action (PreToolUse deny) and says why.
	FailClosed
)

// RelayNoteVar carries a sentence from the per-event client that ran this
// handler locally (relay.NoteVar): it goes into the reply's systemMessage.
const RelayNoteVar = "VIBE_RELAY_NOTE"

// DefaultMaxInput caps stdin (hook.MaxEvent).
const DefaultMaxInput = hook.MaxEvent

// DefaultMaxJudged is the largest event a hook decodes and judges: beyond
// it, decoding and the checks could outlast the hook's timeout (a 50 MB
// event took 10-15 s), so the event is not judged: PreToolUse refuses it
// (fail-closed), the other hooks skip it and say so.
const DefaultMaxJudged = 8 << 20

// Handler judges one event.
type Handler func(ctx context.Context, env *Env, ev *hook.Event) (Outcome, error)

// Spec declares a hook: the events it accepts, its failure policy, its time
// budget and its handler.
type Spec struct {
	Name     string // binary name, for messages
	Events   []string
	Policy   Policy
	Budget   time.Duration
	MaxInput int64
	// MaxJudged overrides DefaultMaxJudged.
	MaxJudged int64
	Handle    Handler
	// ClosedFor narrows FailClosed to the events it matters for (a
	// PreToolUse of a tool that can write). nil means every event.
	ClosedFor func(ev *hook.Event) bool
}

// Main runs the hook over env and returns the process exit code. It always
// exits 0 with JSON (or nothing) unless the reply itself cannot be encoded
// on a fail-closed hook, in which case it falls back to exit 2 + stderr.
func Main(spec Spec, env *Env) int {
	if env == nil {
		env = OSEnv()
	}
	defer env.close()
	event := ""
	if len(spec.Events) > 0 {
		event = spec.Events[0]
	}
	outcome, ev, err := run(spec, env)
	if err == errNotEnforced {
		return 0 // not a vibe project: no reply, no record (Env.Enforced)
	}
	if n := env.Getenv(RelayNoteVar); n != "" {
		env.Note("%s", n)
		env.Logf("%s: %s", spec.Name, n)
	}
	if ev != nil && (len(spec.Events) == 0 || slices.Contains(spec.Events, ev.HookEventName) || known(ev.HookEventName)) {
		event = ev.HookEventName // an unknown name gets the reply of the event this route serves
	}
	if err != nil {
		env.Logf("%s: %v", spec.Name, err)
		outcome = failure(spec, env, ev, event, err)
	}
	outcome.Verdicts = append(outcome.Verdicts, databaseBreaker(env, event)...)
	ds := decide(event, outcome)
	recordOutcome(env, ev, event, ds)
	env.AfterReply(context.Background(), func(ctx context.Context) { replay(ctx, env) })
	reply := reply(event, ds, outcome.Context, env.Notes())
	if reply.Empty() {
		return 0
	}
	out, encErr := reply.Encode()
	if encErr != nil {
		fmt.Fprintf(env.Stderr, "vibe %s: cannot encode reply: %v\n", spec.Name, encErr)
		if spec.Policy == FailClosed {
			return 2
		}
		return 0
	}
	env.Stdout.Write(out)
	return 0
}

func run(spec Spec, env *Env) (o Outcome, ev *hook.Event, err error) {
	max := spec.MaxInput
	if max <= 0 {
		max = DefaultMaxInput
	}
	data, err := io.ReadAll(io.LimitReader(env.Stdin, max+1))
	if err != nil {
		return o, nil, fault.E(fault.Invalid, "read stdin", err)
	}
	// Claude Code names the project in the environment, so an event of a
	// folder that is no vibe project is dropped before it is decoded (a
	// write too large to judge there is none of vibe's business either).
	// Setup (`claude --init`, run on purpose) is answered everywhere: an
	// event that may be one is decoded to tell.
	named := env.Getenv(project.EnvProjectDir) != ""
	maySetup := bytes.Contains(data, []byte(`"Setup"`))
	if named && !maySetup && !env.Enforced("") {
		return o, nil, errNotEnforced
	}
	if int64(len(data)) > max {
		return o, nil, fault.Errorf(fault.Invalid, "read stdin", "event larger than %d bytes", max)
	}
	judged := spec.MaxJudged
	if judged <= 0 {
		judged = DefaultMaxJudged
	}
	if int64(len(data)) > judged {
		if cwd, ok := hook.CwdOf(data); ok && !named && !env.Enforced(cwd) {
			return o, nil, errNotEnforced
		}
		return o, nil, fault.Errorf(fault.Invalid, "read stdin",
			"the event is %.1f MB, more than the %d MB vibe can check within the hook's time limit; write large content with a script in smaller parts",
			float64(len(data))/(1<<20), judged>>20)
	}
	ev, err = hook.Decode(data)
	if err != nil {
		return o, nil, fault.E(fault.Invalid, "read event", err)
	}
	if (!named || maySetup) && ev.HookEventName != hook.Setup && !env.Enforced(ev.Cwd) {
		return o, ev, errNotEnforced
	}
	if len(spec.Events) > 0 && !slices.Contains(spec.Events, ev.HookEventName) {
		return o, ev, fault.Errorf(fault.Invalid, "read event",
			"%s handles %s, got %s (check hooks.json)", spec.Name, strings.Join(spec.Events, ", "), ev.HookEventName)
	}
	budget := spec.Budget
	if budget <= 0 {
		budget = 5 * time.Second
	}
	parent := env.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, budget)
	defer cancel()

	type result struct {
		o   Outcome
		err error
	}
	done := make(chan result, 1)
	handle := func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fault.Errorf(fault.Internal, spec.Name, "panic: %v\n%s", p, debug.Stack())}
			}
		}()
		o, err := spec.Handle(ctx, env, ev)
		done <- result{o, err}
	}
	// The handler may outlive this call (it overran its budget and ignores
	// ctx); env.Go lets the resident process count it until it returns.
	if env.Go != nil {
		env.Go(handle)
	} else {
		go handle()
	}
	select {
	case r := <-done:
		return r.o, ev, r.err
	case <-ctx.Done():
		if parent.Err() != nil {
			return o, ev, fault.Errorf(fault.Unavailable, spec.Name, "stopped before it decided: the process running it is shutting down (%v)", context.Cause(parent))
		}
		// The log gets where the handler waits (describe keeps the stacks
		// out of the message the user sees).
		return o, ev, fault.Errorf(fault.Unavailable, spec.Name, "gave up after its %v time budget\n%s", budget, stacks())
	}
}

// errNotEnforced is run's answer to an event from a folder where vibe does
// not act (Env.Enforced): Main then exits 0 with no reply and records
// nothing.
var errNotEnforced = errors.New("not a vibe project")

// stacks is every goroutine's stack, at most 64 KB of it: for the log of
// a handler that overran its budget, where it was waiting is the fix.
func stacks() string {
	buf := make([]byte, 64<<10)
	return string(buf[:runtime.Stack(buf, true)])
}

// failure applies the declared policy to an error. An event this route does
// not serve (an unknown or wrong hook_event_name) is undecidable whatever
// its tool, so a fail-closed hook refuses it.
func failure(spec Spec, env *Env, ev *hook.Event, event string, err error) Outcome {
	what := describe(err)
	foreign := ev != nil && len(spec.Events) > 0 && !slices.Contains(spec.Events, ev.HookEventName)
	closed := spec.Policy == FailClosed && (spec.ClosedFor == nil || ev == nil || foreign || spec.ClosedFor(ev))
	if closed {
		v := verdict.New("hook-failure", verdict.HardBlock, verdict.High,
			fmt.Sprintf("vibe could not check this action (%s), so it was refused to keep protected files safe.", what),
			map[string]string{"hook": spec.Name, "kind": fault.KindOf(err).String()})
		v.Recommendation = "Run `vibe doctor` to see what is wrong; the action can be retried once it passes."
		env.Note("%s could not check a tool call and refused it: %s. Run `vibe doctor`.", spec.Name, what)
		return Outcome{Verdicts: []verdict.Verdict{v}}
	}
	env.Note("%s had no opinion on this event: %s. The session continues; run `vibe doctor` if this repeats.", spec.Name, what)
	return Outcome{}
}

func describe(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "\ngoroutine "); i > 0 {
		msg = msg[:i] // keep stacks in the log, not in messages
	}
	return msg
}

// recordOutcome appends the verdicts to the advisory log with what the
// reply did with each (deny, block, ask, warn, recorded), the call's tool
// and the file each verdict was about: every decision of every hook is
// recorded here, once, after it is made. What the database refuses goes
// to the spool (Env.Record). A failure here never changes the reply.
func recordOutcome(env *Env, ev *hook.Event, event string, ds []decided) {
	if len(ds) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c := record.AdvisoryContext{At: env.Now(), Event: event}
	var proj project.Project
	if ev != nil {
		proj = env.Project(ev.Cwd)
		c.SessionID, c.Event, c.ToolUseID, c.Tool = ev.SessionID, ev.HookEventName, ev.ToolUseID, ev.ToolName
		c.ProjectPath = proj.Root
	}
	if c.ProjectPath == "" {
		c.ProjectPath = "(unknown)"
	}
	r := store.Record{Advisory: &c, Verdicts: make([]verdict.Verdict, len(ds)), Decided: make([]record.Decided, len(ds))}
	target, targetRead := "", false
	for i, d := range ds {
		r.Verdicts[i] = d.v
		file := ""
		if len(d.v.Evidence.Paths) > 0 {
			file = d.v.Evidence.Paths[0]
		} else if ev != nil && d.kind != record.DecisionRecorded {
			if !targetRead { // decoded once, and only when a decision names no file
				target, targetRead = ev.Files().FilePath, true
			}
			file = target
		}
		if file != "" && proj.Root != "" {
			file = proj.Rel(file)
		}
		r.Decided[i] = record.Decided{Kind: d.kind, File: file}
	}
	if c.SessionID != "" {
		// The session row must exist for the verdict to belong to it.
		r.Session = &record.SessionSeen{ID: c.SessionID, ProjectPath: c.ProjectPath, At: c.At, Client: clientOf(ev)}
	}
	if err := env.Record(ctx, r); err != nil {
		env.Logf("record verdicts: %v", err)
		env.Note("verdicts were applied but not recorded: %s", describe(err))
	}
}

// clientOf is the agent client an event came from (internal/client).
func clientOf(ev *hook.Event) string {
	if ev == nil {
		return ""
	}
	return ev.Client
}

// replay writes what earlier events spooled, once this event has reached
// the database (a hook that never opened it does not open it for this).
// It never changes the reply: the resident process runs it after the reply
// is written (Env.AfterReply; the spool's two lstats were on every hook's
// way to its reply), a hook binary before it exits.
func replay(ctx context.Context, env *Env) {
	opened, st, stErr := env.storeState()
	if !opened || stErr != nil || env.isSpooled() || !store.Spooled(env.Paths().Spool) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	n, skipped, err := st.ReplaySpool(ctx, env.Paths().Spool)
	switch {
	case err != nil:
		env.Logf("replay spool: %v", err)
	case n > 0 || skipped > 0:
		env.Logf("replayed %d spooled records (%d unreadable lines skipped)", n, skipped)
	}
}

// known reports whether Claude Code has an event of this name, so that a
// reply in its shape means something.
func known(name string) bool {
	switch name {
	case hook.SessionStart, hook.UserPromptSubmit, hook.PreToolUse, hook.PostToolUse, hook.PostToolUseFailure, hook.Stop,
		hook.SubagentStop, hook.SessionEnd, hook.PreCompact, hook.PreSkillShellCommand, hook.Setup, hook.ConfigChange:
		return true
	}
	return false
}

// databaseBreaker applies the "database" circuit breaker of config.json
// when this event could not open the database. fail refuses the call at
// PreToolUse and PreSkillShellCommand (a BLOCK: deny); skip and warn change nothing here (the
// handlers' notes go through NoteUnavailable, which skip silences). Other
// events are never stopped for it: a Stop refused for a missing database
// would trap the session.
func databaseBreaker(env *Env, event string) []verdict.Verdict {
	opened, _, stErr := env.storeState()
	if !opened || stErr == nil || (event != hook.PreToolUse && event != hook.PreSkillShellCommand) {
		return nil
	}
	v, proceed := env.Settings().Breakers.On(integrity.DepDatabase, stErr)
	if proceed {
		return nil
	}
	return []verdict.Verdict{v}
}
