// Package claim holds the claim ledger (the CLAIM-LEDGER.md format, its
// parser, the claim events an edit produces, promotion tiers and the gates
// they require), the claim citations in reviewer files, and the evidence graph
// with its D1 circular-logic check. It does no I/O, keeps no state between
// calls and imports only the standard library and verdict: reading files,
// recording events and deciding what a hook replies belong to its callers.
//
// The format itself is documented for people in
// skill/vibe/formats/claim-ledger.md and skill/vibe/formats/review-report.md;
// tests parse the examples in those files, so the documents and this parser
// cannot drift apart.
//
// Two choices differ from the JavaScript reference and are deliberate. A
// claim's tier comes from its type (descriptive 0, correlative 1, predictive
// 2, causal 3), not from the first digit of its id, and a tier written lower
// than its type's never lowers the gates a promotion needs. The circular-logic
// check lists every elementary cycle (not only the first, and not only the
// cycles closed by a DFS back edge), so the verdict names every loop a person
// has to break.
package claim
