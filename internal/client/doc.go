// Package client adapts vibe's hooks to agent clients other than Claude Code:
// Codex CLI and Gemini CLI. It turns each client's hook event into the
// Claude-shaped event the handlers already judge (event names, tool names and
// tool inputs, apply_patch split into one judged write per file), runs the
// handler through hookrun once per event, and renders the merged reply in the
// client's own vocabulary, avoiding the shapes a client would read as "no
// opinion" and let the tool run.
//
// The client is never guessed from the event: the hook command names it
// (`vibe-pre-tool-use --client codex`), internal/relay turns that into
// VIBE_CLIENT, and Main reads it. Without it, Main is hookrun.Main.
//
// It also holds Events, every hook event each client ships (Claude Code
// included) with the binary vibe registers for it or the reason it is
// ignored; hooks.json, the Codex and Gemini installs and docs/clients.md
// follow it, and the E2E suite checks it against the installed clients. And
// it asks Codex, for `vibe doctor`, whether Codex trusts vibe's hooks
// (CodexTrust runs `codex app-server`).
//
// The package holds no policy of its own. Hooks use only Main, which does
// no I/O beyond the Env it is given; the installs read and write the
// clients' settings files, and CodexTrust runs the codex program. The facts
// it relies on are in docs/clients.md.
package client
