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
// VIBE_CLIENT, and Main reads it. Without it, Main is hookrun.Main. The
// package holds no policy of its own and does no I/O beyond the Env it is
// given; the facts it relies on are in docs/clients.md.
package client
