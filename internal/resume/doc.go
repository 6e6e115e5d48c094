// Package resume holds the project files vibe writes or reads for
// resumability (LAW 7): its own section of .vibe-science/STATE.md, the
// append-only SPINE.md export, the project_pickup.md note written at
// SessionEnd, TREE-STATE.json (the project's research tree, claims, gates,
// alerts and direction as ids and statuses, written at Stop and SessionEnd;
// skill/vibe/schemas/tree-state.schema.json), and a state block built from
// the files alone, TREE-STATE.json first, for when the database is
// unavailable. It never writes a byte of STATE.md outside its
// markers, never rewrites an earlier line of SPINE.md, and must not import
// cobra or any hook handler.
//
// # STATE.md markers
//
// vibe owns only the lines between
//
//	<!-- vibe:state:begin -->
//	<!-- vibe:state:end -->
//
// each on a line of its own (indented by at most three spaces) and outside a
// fenced code block, so a marker quoted in a code block or inline code is
// text, not a marker. The first begin marker and the first end marker after
// it delimit the section; everything before and after is kept byte for
// byte, line endings (LF or CRLF), byte-order mark and a missing final
// newline included. Without markers the section is appended once at the
// end. A begin marker with no end marker after it is an error rather than a
// guess, because guessing could swallow the researcher's text. The file is
// replaced atomically (temporary file, then rename) and keeps its mode; a
// symlinked STATE.md is written through to its target. A section that
// differs only in its "- updated:" line is not rewritten, so a turn that
// recorded nothing new leaves the file and its mtime alone.
//
// # SPINE.md
//
// Each export appends the project's spine entries recorded since the last
// one, at most MaxSpineExport per call, oldest first, under a heading per
// day and session. How far the export has got is kept in the database's meta
// table, not in the file, so a new database starts a new run of lines rather
// than skipping them.
package resume
