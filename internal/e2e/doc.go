// Package e2e holds the end-to-end harness that drives the real Claude Code
// client against a loopback mock of the Messages API; it must never reach a
// network address other than 127.0.0.1, and nothing outside tests may import it.
//
// # Pieces
//
//   - Mock (mock.go) serves POST /v1/messages on 127.0.0.1 with a random
//     port, streamed (SSE) or not, plus /v1/messages/count_tokens. It plays
//     a Script and records every request (Requests, Conversation,
//     ToolResults, Saw, Errors).
//   - RunClaude (run.go) runs `claude -p PROMPT --permission-mode acceptEdits
//     --output-format json --debug-file FILE [--plugin-dir DIR]` with an
//     isolated HOME, TMPDIR and VIBE_HOME and an environment reduced to PATH,
//     locale and the mock's variables (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY=dummy,
//     CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1), so a Claude Code session
//     running the tests cannot leak into the one under test. VIBE_RELEASE_URL
//     points at a closed loopback port, so a plugin copy without binaries
//     never downloads vibe's release from GitHub (plugin/bootstrap.sh);
//     TestMarketplaceInstallWithoutToolchain serves one on loopback.
//   - ValidatePlugin runs `claude plugin validate DIR [--strict]`.
//
// A script reads as the conversation it plays:
//
//	Script{
//		Turns: []Turn{
//			{Text("writing"), Tool("Write", map[string]any{"file_path": p, "content": "x\n"})},
//			{Agent("vibe:reviewer2", "R2-TASK review the ledger")},
//			{Text("done")},
//		},
//		Agents: []AgentScript{{Marker: "R2-TASK", Turns: []Turn{{Text("reviewed")}}}},
//	}
//
// # Running
//
//	.ci/install-claude.sh          # prints the binary path; cached after the first run
//	VIBE_CLAUDE_BIN=$(.ci/install-claude.sh) go test -tags 'sqlite_fts5 e2e' ./internal/e2e/...
//
// Without VIBE_CLAUDE_BIN the harness looks in the install script's cache,
// ${VIBE_E2E_CACHE:-$HOME/.cache/vibe-e2e}/claude-2.1.332. With no client the
// tests skip, unless VIBE_E2E_REQUIRE is set (CI sets it), then they fail.
// The client must report PinnedVersion (2.1.332); TestInstallScriptPin holds
// the install script's default to it. A whole session takes 2–4 s.
// The mock's own unit tests need no tag and no client; `-update` rewrites
// their golden files under testdata/.
//
// # Which conversation a request belongs to (measured on 2.1.330)
//
// A turn of a conversation is served statelessly: a request whose history
// holds i assistant replies (consecutive assistant messages count once)
// gets Turns[i]. A retried request therefore gets the same turn, and a side
// request can never consume one. The mock checks that the request carries a
// tool_result for every tool call of turn i-1 and records an error if not.
//
//   - Subagent requests carry the header X-Claude-Code-Agent-Id (the same
//     agent_id the subagent's hook inputs carry), offer only the agent's
//     tools (never Agent), put the agent's own prompt in the system prompt,
//     and have the Agent call's prompt as the last text block of their first
//     user message. The mock picks the AgentScript whose Marker occurs there.
//   - Side requests (a prompt-type hook is the one seen in -p sessions) send
//     `tools: []` and ask for structured output with output_config.format;
//     model and max_tokens are the same as the main thread's, so they cannot
//     tell side requests apart. The client also knows the headers
//     X-Claude-Code-Request-Class and X-Claude-Code-Auxiliary-Type (memory
//     extraction); the mock treats any class but "main" and any auxiliary
//     type as side, though neither header was seen. A side request gets
//     Script.Side, or the smallest JSON value its schema accepts ({"ok":true,
//     "reason":"e2e mock"} for a prompt hook), or "ok".
//   - Everything else, no agent header and a non-empty tools list, is the
//     main conversation. The debug log names each request's source:
//     "[API REQUEST] /v1/messages source=sdk" for the main thread,
//     "source=agent:custom:<plugin>:<agent>" for a plugin subagent,
//     "source=hook_prompt" for a prompt hook.
//
// # What Claude Code 2.1.330 does that a test must know
//
//   - Hook output reaches the model as messages with role "system" inside the
//     messages list, not only as <system-reminder> text: the SessionStart
//     additional context arrives as "SessionStart hook additional context: …"
//     at the head of the system message that also carries the environment
//     section; a Stop block arrives as a user message "Stop hook feedback:\n
//     <reason>" followed by a system message "Stop hook blocking error from
//     command: …". Use MessagesRequest.SystemMessages and SystemReminders.
//     2.1.332 wraps that user message in one <system-reminder> that starts
//     with HookOutputPreamble; HookFeedback takes it out.
//   - 2.1.332 runs a skill's or slash command's inline shell commands
//     (!`cmd` in its text, allowed by its allowed-tools) when it loads,
//     after a PreSkillShellCommand hook; a refused one reaches Claude as
//     "[not run: blocked by hook: <reason>]" in place of its output, in the
//     skill's text. A Skill call needs --allowedTools Skill in -p sessions.
//   - A PreToolUse deny reaches the model as tool_result is_error=true with
//     the text "PreToolUse:Write hook error: <reason>"; no PostToolUse or
//     PostToolUseFailure fires for the denied call, PostToolBatch does.
//   - An Agent call without run_in_background runs in the background: the
//     tool result is "Async agent launched successfully", the main turn goes
//     on, and the subagent's report later starts a new turn as a
//     <task-notification> user message, which also fires Stop again with
//     stop_hook_active false. The Agent helper sets run_in_background false.
//   - `claude plugin validate` only warns about an unknown hook event
//     ("unknown hook event; entry ignored at runtime"); --strict fails on it.
//   - In acceptEdits mode a Bash command that writes inside the project runs
//     without --allowedTools; RunOptions.AllowedTools is there for others.
//   - Task output lands under $TMPDIR/claude-<uid>/, hence the per-run TMPDIR.
package e2e
