package client

// Event is one hook event a client ships and what vibe does with it: the
// binary it registers for the event, or why it leaves the event alone.
type Event struct {
	// Name is the client's own name for the event.
	Name string
	// Binary is the vibe-<hook> binary the event runs; empty when ignored.
	Binary string
	// Guarded means the hook fails closed: Claude Code's "onFailure":
	// "block" in hooks.json, plugin/guard.sh for Codex and Gemini.
	Guarded bool
	// Timeout is the hook's timeout in seconds.
	Timeout int
	// Ignored says why vibe registers nothing for the event; empty when
	// registered.
	Ignored string
}

// Registered reports whether vibe runs a binary for the event.
func (e Event) Registered() bool { return e.Binary != "" }

// Events lists, for each client, every hook event its pinned release
// ships, in the client's own order, with what vibe does with it. The E2E
// suite reads the event list out of each installed client (Claude Code's
// bundle, Codex's app-server schema, Gemini CLI's bundle) and fails when
// it names an event this table does not, so a new client event is
// registered or ignored on purpose, never by omission. Claude Code's
// hooks.json and the hooks `vibe setup --client` writes for Codex and
// Gemini are checked against (Codex, Gemini: built from) this table, and
// docs/clients.md shows it.
//
// What decides: an event at which a command can run or a file can change
// is judged (registered) unless another registered event already judges
// the same thing; events that only report, display or ask the person are
// ignored with the reason.
var Events = map[string][]Event{
	Claude: {
		{Name: "PreToolUse", Binary: "vibe-pre-tool-use", Guarded: true, Timeout: 30},
		{Name: "PostToolUse", Binary: "vibe-post-tool-use", Timeout: 30},
		{Name: "PostToolUseFailure", Binary: "vibe-post-tool-use", Timeout: 30},
		{Name: "PostToolBatch", Ignored: "fires once after a batch of tool calls that PostToolUse has already judged one by one; it carries the same calls again"},
		{Name: "Notification", Ignored: "a message for the person (idle, waiting for a permission); nothing runs and nothing changes"},
		{Name: "UserPromptSubmit", Binary: "vibe-prompt-submit", Timeout: 10},
		{Name: "UserPromptExpansion", Ignored: "a slash command or MCP prompt expanding into the prompt: the shell commands it holds are judged at PreSkillShellCommand, the calls it leads to at PreToolUse, and the prompt at UserPromptSubmit"},
		{Name: "SessionStart", Binary: "vibe-session-start", Timeout: 30},
		{Name: "SessionEnd", Binary: "vibe-session-end", Timeout: 2},
		{Name: "Stop", Binary: "vibe-stop", Timeout: 10},
		{Name: "StopFailure", Ignored: "the turn ended on an API error: the client ignores the hook's output and exit code, so nothing can be refused or said; every call before it was judged at its PostToolUse, and SessionEnd still closes the session"},
		{Name: "SubagentStart", Ignored: "it can only add context to the subagent, whose role prompt (plugin/agents) already says what it may write; every call the subagent makes passes PreToolUse and PostToolUse with its agent_type"},
		{Name: "SubagentStop", Binary: "vibe-stop", Timeout: 10},
		{Name: "PreCompact", Binary: "vibe-session-end", Timeout: 10},
		{Name: "PostCompact", Ignored: "compaction is over: PreCompact checkpointed the narrative and SessionStart (source compact) gives Claude vibe's state again"},
		{Name: "PreModelSwitch", Ignored: "the session's model is about to change; no command runs and no file changes"},
		{Name: "PostModelSwitch", Ignored: "the session's model changed; no command runs and no file changes"},
		{Name: "PermissionRequest", Ignored: "the client asks the person to allow a call that PreToolUse has already judged (vibe's own questions are PreToolUse asks); answering from a hook would take the choice from the person"},
		{Name: "PermissionDenied", Ignored: "the auto-mode classifier refused a call: nothing ran and nothing changed"},
		{Name: "Setup", Binary: "vibe-session-start", Timeout: 30},
		{Name: "TeammateIdle", Ignored: "agent-team bookkeeping; a teammate's tool calls reach PreToolUse and PostToolUse like any other"},
		{Name: "TaskCreated", Ignored: "agent-team bookkeeping; a teammate's tool calls reach PreToolUse and PostToolUse like any other"},
		{Name: "TaskCompleted", Ignored: "agent-team bookkeeping; a teammate's tool calls reach PreToolUse and PostToolUse like any other"},
		{Name: "Elicitation", Ignored: "an MCP server asks the person for input; the MCP tool calls themselves are judged at PreToolUse (mcp__*)"},
		{Name: "ElicitationResult", Ignored: "the person's answer to an MCP server; the MCP tool calls themselves are judged at PreToolUse (mcp__*)"},
		{Name: "ConfigChange", Binary: "vibe-session-start", Timeout: 10},
		{Name: "WorktreeCreate", Ignored: "a hook for it replaces the client's own worktree creation (it must make the worktree and print its path); vibe makes none, and calls inside a worktree are judged like any other"},
		{Name: "WorktreeRemove", Ignored: "a worktree is cleaned up; calls inside it were judged like any other"},
		{Name: "InstructionsLoaded", Ignored: "a CLAUDE.md or rules file entered Claude's context; nothing runs and nothing changes"},
		{Name: "CwdChanged", Ignored: "the working directory moved; every event carries its cwd and vibe finds the project from it each time"},
		{Name: "FileChanged", Ignored: "it carries a path and change/add/unlink but not who changed it, fires for the agent's own writes in the middle of a call as for anyone else's, only for paths a hook listed in watchPaths, and can neither refuse nor reach Claude; the net already compares every protected file after each call and at Stop, and restoring sooner would race the command still running (docs/clients.md)"},
		{Name: "DirectoryAdded", Ignored: "/add-dir widens where the agent may work; the calls that touch those files are judged like any other"},
		{Name: "MessageDisplay", Ignored: "display-only stream of Claude's text; nothing runs and nothing changes"},
		{Name: "PreSkillShellCommand", Binary: "vibe-pre-tool-use", Guarded: true, Timeout: 30},
	},
	Codex: {
		{Name: "PreModelRequest", Ignored: "around a model request; no command runs and no file changes (0.171 has no command-hook input schema for it)"},
		{Name: "PostModelRequest", Ignored: "around a model request; no command runs and no file changes (0.171 has no command-hook input schema for it)"},
		{Name: "PreToolUse", Binary: "vibe-pre-tool-use", Guarded: true, Timeout: 30},
		{Name: "PermissionRequest", Ignored: "Codex asks the person to approve a call that PreToolUse has already judged; answering from a hook would take the choice from the person"},
		{Name: "PostToolUse", Binary: "vibe-post-tool-use", Timeout: 30},
		{Name: "PreCompact", Binary: "vibe-session-end", Timeout: 10},
		{Name: "PostCompact", Ignored: "compaction is over: PreCompact checkpointed the narrative"},
		{Name: "SessionStart", Binary: "vibe-session-start", Timeout: 10},
		{Name: "SessionEnd", Binary: "vibe-session-end", Timeout: 2},
		{Name: "UserPromptSubmit", Binary: "vibe-prompt-submit", Timeout: 10},
		{Name: "SubagentStart", Ignored: "it can only add context to the subagent; every call the subagent makes passes PreToolUse and PostToolUse"},
		{Name: "SubagentStop", Binary: "vibe-stop", Timeout: 10},
		{Name: "Stop", Binary: "vibe-stop", Timeout: 10},
		{Name: "Interrupt", Ignored: "the person interrupted the turn; every call before it was judged at its PostToolUse"},
	},
	Gemini: {
		{Name: "BeforeTool", Binary: "vibe-pre-tool-use", Guarded: true, Timeout: 30},
		{Name: "AfterTool", Binary: "vibe-post-tool-use", Timeout: 30},
		{Name: "BeforeAgent", Binary: "vibe-prompt-submit", Timeout: 10},
		{Name: "Notification", Ignored: "a message for the person; nothing runs and nothing changes"},
		{Name: "AfterAgent", Binary: "vibe-stop", Timeout: 10},
		{Name: "SessionStart", Binary: "vibe-session-start", Timeout: 10},
		{Name: "SessionEnd", Binary: "vibe-session-end", Timeout: 2},
		{Name: "PreCompress", Ignored: "Gemini CLI 0.61 fires it (trigger auto) before every model request in -p mode, and vibe-session-end is end-of-session work"},
		{Name: "BeforeModel", Ignored: "around a model request; no command runs and no file changes"},
		{Name: "AfterModel", Ignored: "around a model request; no command runs and no file changes"},
		{Name: "BeforeToolSelection", Ignored: "it filters the tools the model is offered; vibe judges the calls, not the offer"},
	},
}
