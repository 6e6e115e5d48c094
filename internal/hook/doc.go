// Package hook holds the Claude Code hook protocol as Go types: the event
// JSON a hook reads on stdin (every event vibe handles, unknown fields
// tolerated) and the reply JSON it may print. It decodes and encodes only; it
// does no I/O and imports only the standard library.
package hook
