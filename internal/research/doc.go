// Package research holds what makes a file of a project research: one
// recognition of research artifacts by their content (Recognize: data and
// feature tables, metrics, calibration and other evaluation results,
// findings, direction and brainstorm notes, the claim ledger, the design),
// the table of gates each kind of artifact calls for (Gates), and the rules
// that say which folders are not research at all (Ignore, Walk: version
// control, virtual environments, caches, build output, .gitignore'd trees,
// files over a size cap).
//
// The hooks (internal/artifact, PostToolUse's eyes on disk) and `vibe gate
// check` (internal/gatecheck) both decide through this package, so a file
// is judged the same way in a session and in CI. Domain-config file
// patterns and column names are hints that add files and columns; a file
// is never recognised by its name alone, except where the domain config
// names it or vibe itself owns the name (CLAIM-LEDGER.md, a research
// question's DESIGN.md).
//
// Recognition reads a bounded head of a file (HeadBytes; JSON documents up
// to JSONHeadBytes) and never the whole of it. It is tuned against false
// positives as much as against misses: a file taken for a metrics file
// that is a hyper-parameter config would be blocked by a gate that has
// nothing to judge, which is as bad as a missed leak. So a kind is given
// only when the gate of that kind can judge the file (the keys DQ2 and DQ3
// read, the label DQ1 needs); evaluation results no gate reads are
// recognised as KindEvaluation and gated by nothing.
//
// It imports the standard library, gate (the domain config and what each
// gate reads), claim (the ledger format) and literature (what sets a
// research direction); never the store, hookrun, the handlers or gatecheck.
package research
