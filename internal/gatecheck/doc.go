// Package gatecheck holds `vibe gate check`: it judges a repository from its
// files alone, as CI must, and renders the findings as text, JSON, GitHub
// workflow commands or SARIF 2.1.0. It reads the file system and nothing
// else: it must not open the database, import cobra, exec programs or reach
// the network. It also resolves a claim's evidence into gate inputs for
// `vibe gate run --claim`.
//
// # What is checked
//
// The root is walked as the hooks look at it (research.Walk): skipping
// version control, hidden folders other than .vibe-science, virtual and
// conda environments, dependencies (node_modules, vendor), caches, build
// output, testdata (Go's convention for fixtures, so a repository's fault
// corpus does not fail it) and folders listed in .gitignore outside
// .vibe-science/ and the RQ-* folders. Each file is recognised by its
// content (research.Recognize, with the domain config's patterns and
// columns as hints), the recognition PostToolUse uses, so CI and the
// session judge the same files with the same gates. Research questions are
// RQ-* folders directly under the root or under .vibe-science/. Then:
//
//   - domain-config: .vibe-science/domain-config.json, when present, must
//     validate (gate.ValidateDomain); otherwise each problem is an error and
//     the generic domain is used for the rest of the check.
//   - DQ4: every findings file against its source JSON; a source the
//     project's lineage mirror (.vibe-science/lineage.jsonl, written by the
//     hooks) records as written by hand backs no number.
//   - DQ1 and DD0: every feature table (DQ1 with the label recognition
//     found); DD0 against the data dictionary
//     gate.FindDictionary finds for it. DQ2 on every metrics file, DQ3 on
//     every calibration file. DC0 on each research question's DESIGN.md
//     against the data files under its *-data folders (gate.DataFiles).
//     The deviation rule is the hooks' (deviation.go): the design's own
//     problems warn; a data file it does not plan is a DC0 warning on that
//     file, an error once a claim or findings file rests on it; a data
//     gate's failure on such a file warns until then.
//   - Schema gates: each artifact found under its documented name in a
//     research question (Artifacts, from
//     skill/vibe/protocols/schema-validation.md) is validated against its
//     schema.
//   - claim-ledger: .vibe-science/CLAIM-LEDGER.md and CLAIM-LEDGER.md at the
//     root parse without errors; a claim killed for insufficient evidence,
//     confounding or prematurity names its salvaged seed; evidence files of
//     claims that are not killed exist (a warning).
//   - claim-promotion: each PROMOTED or VERIFIED claim has what the hooks
//     ask of a promotion (claim.PromotionGates with the domain's table):
//     every gate its tier requires, D1 (its <claim>-promotion.json record),
//     a file under some 05-reviewer2/ folder that cites it, and no result
//     it rests on written by hand (UnbackedEvidence, by the mirror).
//   - LAW4-review: each PROVISIONAL claim is cited (claim.CitedClaims) by a
//     file under some 05-reviewer2/ folder.
//   - D1-circular-logic: a PROMOTED or VERIFIED claim whose support is
//     circular is an error (claim.CycleVerdict with promoting set); other
//     cycles in the evidence graph are one warning.
//   - L-1: each file that sets a research direction (literature.IsDirection:
//     a file named *direction*, a "## Research direction" heading, a tree
//     node of type direction) needs a literature record: a query line
//     (date | database | query | hits …, at least three fields) in its
//     research question's 01-discovery/queries.log. A direction outside any
//     research question accepts any research question's log or
//     .vibe-science/01-discovery/queries.log.
//
// # What CI can and cannot judge
//
// The hooks judge from the database; CI has only the repository. So:
//
//   - A promotion gate counts as satisfied when its artifacts exist and the
//     gate passes when recomputed now. The artifacts are the claim's evidence
//     files of the gate's kind (an evidence JSON beside a findings file of
//     the same name stands for that findings file), else every file of the
//     kind in the research questions the evidence names; DC0 uses those
//     research questions' DESIGN.md; a schema gate uses its artifact there
//     (D1: <claim>-promotion.json). CI cannot see whether the PASS was
//     recorded in gate_checks before the promotion, as the PreToolUse hook
//     requires; it can only say the gate would pass today.
//   - Prompt-level gates in a promotion table (and L-1) cannot be confirmed
//     from files: they are reported as warnings, never as passes.
//   - LAW 4 at Stop counts reviews recorded in the session; CI counts review
//     files that cite the claim, whoever wrote them and whenever.
//   - L-1 at PreToolUse needs a search recorded in the session before the
//     direction was written; CI accepts a logged query in the repository and
//     cannot tell which came first.
//   - Whether a number was computed by a script is known only from the
//     lineage records the hooks mirror into .vibe-science/lineage.jsonl
//     (commit it): a result the mirror does not know is unknown, never
//     held against a finding, and a mirror edited by hand is believed.
//     Whether an artifact's content is true, and anything that happened
//     only in a session (tool calls, observer alerts, calibration), are
//     beyond any file check.
//
// # Output
//
// Findings carry the rule id (a gate id, or domain-config, claim-ledger,
// claim-promotion, LAW4-review, D1-circular-logic), a level (error or
// warning), the file relative to the root with forward slashes, a 1-based
// line when known, the message and the fix. An error fails the check.
package gatecheck
