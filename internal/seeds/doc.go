// Package seeds holds serendipity seeds across sessions: the parser of
// .vibe-science/SERENDIPITY.md (skill/vibe/formats/serendipity.md), the sync
// of its entries into the database after each write, the per-session
// pending count with LAW 5 escalation, the lines SessionStart shows, and the
// Salvagente check on kills. It reads and writes the database through store
// only; it must not read or write project files itself (callers pass the
// file's content), exec programs or call time.Now.
//
// # Sessions pending
//
// A seed's pending count is computed, not incremented: the session it was
// written in plus every session of the project started after it was
// written, while it is PENDING_TRIAGE. Tick is therefore idempotent per
// session (SessionStart fires again on resume, clear and compact) and counts
// concurrent sessions correctly. A seed pending for more than EscalateAfter
// (5) sessions is escalated, which is LAW 5's "5 cycles" turned into
// sessions as the blueprint asks; Pending lists escalated seeds first.
//
// # The file is the source of truth
//
// Sync mirrors the whole file: valid entries are upserted, entries with a
// problem keep their last good state and are reported (FormatVerdict makes
// the PostToolUse warning), and stored seeds missing from the file become
// REMOVED (kept, not deleted; an entry that comes back is restored).
// Salvagente accepts a valid seed in the file or a stored one.
package seeds
