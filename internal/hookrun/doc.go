// Package hookrun runs one hook invocation: it reads the event from stdin
// (size-capped), decodes it, gives the handler an Env and a time budget,
// recovers panics, applies the hook's declared failure policy, and turns the
// verdicts into Claude Code's reply through the one verdict → reply table
// (decide, reply). Every verdict and ask is recorded here, once, with what
// the reply did with it (deny, block, ask, warn or recorded only), the
// call's tool and the file it was about: the handlers never record their
// own decisions, so `vibe decisions` lists all of them. Main returns the
// exit code; only cmd/ calls os.Exit. Nothing here knows what a particular
// hook checks.
//
// Decide first, record after: the database opens with a short busy timeout
// (store.HookBusyTimeoutMS), a handler decides before it writes, and what
// the database refuses (locked, full, unopenable) goes through Env.Record
// to the spool in VIBE_HOME, which the next event that reaches the
// database replays (after its reply, like the records below). What the
// reply does not depend on (a session row, a prompt's hash, a plain call's
// spine entry, a narrative) goes through Env.AfterReply: the resident
// process runs it once the reply is written, a hook binary at once. Events
// larger than DefaultMaxJudged are not judged (PreToolUse refuses them),
// and an event name the route does not serve is refused by a fail-closed
// hook. The "database" circuit breaker of
// config.json decides whether PreToolUse refuses while the database is
// down (fail) and whether the user is told (skip silences NoteUnavailable).
//
// A handler that overruns its budget is answered for by its failure policy,
// but its goroutine cannot be killed: it runs under Env.Context and is
// started through Env.Go, so the resident process (internal/worker) can
// cancel it and wait for it before closing the database it uses. Env is
// safe for concurrent use for that reason: such a handler may still add
// notes or open the store while Main records the outcome and replies.
package hookrun
