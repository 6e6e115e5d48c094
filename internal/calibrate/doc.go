// Package calibrate holds what vibe learns across sessions about reviews
// and confidence: it parses Reviewer 2 reports, judge reports and V0
// records into r2_reviews, builds the SessionStart hints (R2's weak rubric
// dimensions, the planted-fault categories it misses, the J0 trend, and the
// researcher's repeated fixes and failing gates), records claim outcomes in
// the calibration log and scores them (Brier, ECE). It reaches the
// database only through the small interfaces it declares (store.go), which
// *store.Store and *store.Tx satisfy, and never imports store; it must not
// read project files (callers pass contents), exec programs or call
// time.Now.
//
// # What a review row holds
//
// One review is described by up to three files under 05-reviewer2/: the R2
// report (mode, claims, seeded-fault tally), the judge's report on it (J0
// total and dimension scores) and the V0 record (which planted faults were
// caught). Each fills its part of the row keyed by review id. The
// weaknesses of a review are the rubric dimensions the judge scored 0 or 1:
// what R2 did not do. The per-claim "weaknesses" a markdown report lists are
// the researcher's, not R2's, and are not counted. A markdown or YAML
// report is read leniently because its format documents only citations:
// the review id defaults to the file name, the mode may sit in the title's
// parentheses, and the tally may be written in several shapes (readText).
// A YAML report is parsed as YAML (readYAML, go.yaml.in/yaml/v3: the one
// package that imports it), so comments, quoting, flow lists and block text
// mean what YAML says; one that does not parse is read line by line and
// its Problems say so.
//
// # Outcomes
//
// OutcomeFor maps ledger events to the log's outcomes: VERIFIED (ROBUST
// with a ROBUST confounder harness, or a claim promoted back out of a
// dispute), and KILLED as ARTIFACT, CONFOUNDED or REJECTED (every other
// kill reason). Scores use each claim's latest outcome.
package calibrate
