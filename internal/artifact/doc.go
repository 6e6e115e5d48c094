// Package artifact finds the research artifacts of a project that changed
// since the gates last saw them — whatever changed them: a Write, a script
// run through Bash, an MCP tool — and runs the gates that apply to each kind
// of file: DQ1 and DD0 on a features table, DQ2 on metrics, DQ3 on
// calibration results, DQ4 on a findings file (again when its source JSON
// changes), DD0 when a data dictionary changes, DC0 when a design file
// changes or new data files appear.
//
// It is PostToolUse's eyes on the disk. What a file is comes from
// research.Recognize (its content, with the domain config's patterns and
// columns as hints) and which gates it calls for from research.Gates: the
// recognition and the table `vibe gate check` uses, so a session and CI
// judge a file alike. A Tracker watches, per project, the folders where
// research is written (every research question whole, the root's research
// folders such as analysis/ and results/, and the folders of artifacts
// written or recorded before) and keeps the size and modification time of
// every artifact in them; the paths a call wrote count anywhere in the
// project research.Ignore does not skip. Other folders are never walked,
// so a large code base beside the research costs nothing; a call that
// changed nothing costs one read of the kernel's change reports in the
// resident worker, one stat per watched folder and artifact elsewhere.
// Nothing here opens the store: what was seen is handed in (Loader) and
// handed back (Result.Seen) for the caller to record.
//
// A gate that cannot decide — an unreadable or binary table, a metrics file
// that is not JSON, a JSON file too large to read in a hook — says so as a
// WARN and never blocks. Tables over MaxGateBytes are judged on their first
// MaxGateBytes (cut at a line end), and the result says so.
//
// It imports the standard library, gate, gatecheck (for the claim ledgers),
// research, claim, literature (a direction's name) and project; never
// the store, hookrun or the shell parser.
package artifact
