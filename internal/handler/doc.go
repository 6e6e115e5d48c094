// Package handler holds vibe's hook handlers, one per Claude Code event, and
// the registry that finds them by name (vibe-hook and the resident worker run
// any of them through hookrun). Each handler lists its checks in the order
// they run, and gates.go says which gates each event runs, the one list the
// registry's Enforced field and the docs' trigger columns are tested against.
//
//   - PreToolUse and PreSkillShellCommand (pretooluse.go): the only points
//     where vibe can stop a write before it happens (PreSkillShellCommand,
//     Claude Code 2.1.332, is the shell command a skill or slash command runs
//     when it loads, judged as the Bash call it is). It runs the checks that can be judged from the
//     proposed call (roles and paths, the text a shell command spells out
//     for findings and directions, ledger promotions, L-1, research-brief
//     constraints, an open HALT, the mistake memory's reminder), then
//     upserts the session (spooled when the database cannot take it: the
//     decision never waits for a write). Fail-closed for tools that can
//     write, fail-open for the rest.
//   - PostToolUse and PostToolUseFailure (posttooluse.go): protected files
//     changed without an allowed write are restored (internal/tamper); the
//     research artifacts that changed, whatever changed them, get their gates
//     (internal/artifact), and the result files among them their lineage
//     (posttooluse_lineage.go: who wrote them with the call's record, the
//     full record after the reply); one spine entry and its provenance per call; claim
//     events, seeds, reviews, threshold drift, downloads, literature
//     searches; a failed call is remembered with its error and its later fix
//     (internal/mistake); the observer every N calls. Fail-open: PostToolUse
//     cannot undo a call, so an error is reported, never turned into a block.
//   - SessionStart (sessionstart.go): upserts the session under Claude's
//     session_id (the event fires again on resume, clear, compact and fork),
//     makes sure this install's worker runs (replacing another build's), and
//     injects the progressive context within internal/disclosure's budgets.
//     Without a database it resumes from the project's .vibe-science files,
//     TREE-STATE.json first.
//   - Setup and ConfigChange (setup.go, served by vibe-session-start):
//     first-run setup on `claude --init` (folders, database, whether the
//     project has opted in), and a settings change that would turn vibe's
//     hooks off mid-session refused for the running session.
//   - UserPromptSubmit (promptsubmit.go): records the prompt's SHA-256 and
//     length (never its text) and injects the memories recalled for it. It
//     never blocks a prompt (a block would erase what the user typed).
//   - Stop and SubagentStop (stop.go): LAW 4 (no ending with unreviewed
//     claims, bounded, honouring stop_hook_active), the protected files
//     compared once more, and the session narrative checkpointed once per
//     main-thread turn, then .vibe-science/TREE-STATE.json (LAW 7), both
//     after the reply.
//   - SessionEnd and PreCompact (sessionend.go): the final narrative and
//     counters, the project's STATE.md/SPINE.md/pickup/TREE-STATE.json export, within the
//     1.5 s Claude Code gives all SessionEnd hooks together. Never blocks
//     (blocking PreCompact would stop compaction).
//
// It does no I/O of its own beyond what hookrun.Env gives it and the
// project's files; it must not import cobra, the embedder or the CLI.
package handler
