// Package gate holds the methodology's gate registry, the domain configs
// that set the gates' thresholds, and the computation of every gate that
// code can judge from the researcher's files (DQ1–DQ4, DD0, DC0 and the
// schema-validated artifacts); it reads files and returns results, and
// must not open the database, record anything, exec programs or reach the
// network. Recording results and deciding hook replies belong to the
// callers (store, the hook handlers, the CLI).
//
// # Registry: 32 gates, not 34
//
// The v6.0 blueprint says the methodology has 34 gates, "27 from v5.0 plus
// 7 from v5.5". The seven v5.5 gates exist (L-1, DQ1, DQ2, DQ3, DQ4, DD0,
// DC0), but every document of every version defines only 25 v5.0 ids:
// G0–G6, L0–L2, D0–D2, T0–T3, B0, S1–S5, V0, J0. The two missing v5.0
// gates are named nowhere, so 32 distinct gates exist and Registry ships
// those 32 rather than invent two; TestRegistryCount pins the number. Of
// them, 7 are computed by code (L-1, DQ1–DQ4, DD0, DC0), 9 are validated
// against a JSON Schema under skill/vibe/schemas/ (L0, L2, D1, D2, B0, S4,
// S5, V0, J0: every gate whose artifact has a schema), and 16 are
// prompt-level (performed by the agent, audited by Reviewer 2).
//
// # Domain configs
//
// The shipped domains live in blueprints/domains/*.json (generic,
// crispr-off-target, photonics-integrated, particle-physics). A project
// picks one in .vibe-science/domain-config.json by "domain" and may
// override any value; see LoadDomain and ValidateDomain. Domain-specific
// DQ1 checks are data (ColumnCheck): a mean within a range, every value
// within a range or above a floor, a fraction of non-zero values.
//
// # DQ4: numbers in findings must be numbers of their source JSON
//
// A reported number matches when a number of the source JSON (at any
// depth, or a string that is wholly a number) rounds to it at the number of
// decimals written: with the last written digit worth u, the source value
// s matches the reported value v when |s − v| ≤ u/2 ("0.913" matches
// 0.91347, "41" matches 40.6, "0.9" does not match 0.86). Scientific
// notation counts its mantissa digits ("1.2e-5" has u = 1e-6). A
// percentage also matches the source fraction × 100 ("87.3%" matches
// 0.8734). The sign must agree. With dq4.rounding = round_or_truncate a
// value truncated to the written decimals matches too. One unmatched
// number fails the gate; the result lists each with its line, its context
// and the nearest source value.
//
// These are not reported values and are skipped:
//   - fenced code blocks, inline code, HTML comments and YAML front matter;
//   - URLs, DOIs, doi:/arXiv:/PMID:/PMCID:/ISBN:/ISSN:/ORCID: identifiers
//     (every paper id the citation audit reads, ISBN-13: 978-0-262-03384-8
//     and its grouped digits included), Markdown link texts and targets, footnote references [^1], HTML tags,
//     and bracketed integer citations [3], [4, 7–9] (a bracketed interval
//     with decimals, [0.88, 0.94], is checked);
//   - identifiers: digits glued to a letter or '#' on their left (C001, R2,
//     GRCh38, log2, H3K27ac, #12), digits joined by '-', '.', '/', '_' or
//     '^' to a token that starts with a letter (C-001, RQ-001, DEV-001,
//     SEED-20260112-001, node-014, fig.2, run_03, r^2), digits followed by
//     '_' and a letter or digit (2_features), digits followed by letters and
//     then another digit (3D7, a hash), and numbers inside a file path
//     (03-data/raw.csv, model_2.pkl);
//   - version strings with two or more dots (1.2.3) and numbers after the
//     words version or release;
//   - dates and times: 2024-01-05, 2024/01/05, 05/01/2024, 10:30, 10:30:15,
//     and a day or year next to a month name (5 March 2024, March 5, 2024);
//   - citation years: 1900–2099 (optionally 2020a) right after "et al." or,
//     inside parentheses or brackets, alone or right after a capitalised
//     author name: (Smith, 2020), [Tsai 2015], (2018);
//   - ordinals (3rd, 21st);
//   - numbers that refer to a part of a document or of the method, right
//     after Figure/Fig./Table/Section/Sec./§/Eq./Equation/Appendix/
//     Chapter/Page/p./pp./Line/Step/Stage/Phase/Cycle/Round/Item/Part/
//     Panel/LAW/Tier/Node (and the rest of a list: "Figures 2–4", "Tables 1,
//     2 and 5");
//   - the enumerator of a heading (## 2.1 Results) and the marker of an
//     ordered list item (3. or 3) at the start of a line).
//
// A number computed in the text is exempt when marked: "(derived)" or
// "(derived: how)" right after it (after its percent sign or one unit
// word), which also exempts the numbers inside the parenthetical; or a
// region between <!-- derived --> and <!-- /derived --> (a region never
// closed runs to the end of the file and gives a WARN).
//
// The source JSON is declared in the findings file with one or more
// <!-- source: PATH --> comments, else it is the file of the same name with
// the extension .json beside it (see SourcesFor). A findings file without
// a source fails with "no source JSON" and the paths looked at. A number
// that matches only with the opposite sign is reported as such. A findings
// file that reports numbers but never states a sample size ("n = …") gets
// a WARN, since DQ4 also asks that n be reported.
//
// A source backs numbers only when a computation wrote it. The caller
// says how each source's current content was written (Origins, from the
// lineage internal/lineage records: the hooks' database, the project's
// .vibe-science/lineage.jsonl for CI); a source written by hand (the
// agent's Write or Edit, a shell command that only echoes or edits text)
// that no computation ever produced is no source: a number only it holds
// fails, with the file, when and by what it was written, and the fix
// (re-run the script that computes it). A source whose origin is unknown
// (no record, a result made outside the session) counts as before.
//
// # Files the other code gates read
//
// DQ1 streams a CSV or TSV features table; DQ2 reads a metrics JSON and DQ3
// a calibration JSON, whose recognised keys are listed in dq2.go and dq3.go
// and in skill/vibe/protocols/data-quality-gates.md. DD0 reads
// DATA-DICTIONARY.md (skill/vibe/formats/data-dictionary.md) or its JSON
// form (schemas/data-dictionary.schema.json) and checks a table's header
// against the section for that table. DC0 reads DESIGN.md
// (skill/vibe/formats/design-file.md) or its JSON form
// (schemas/design-file.schema.json): the planned steps with their inputs
// and outputs, and the dated deviations with what changed and why; every
// executed data file must be planned or named by a deviation. Like every
// vibe format, these parsers ignore fenced code blocks and HTML comments.
//
// # Checks that need no names
//
// The domain config used to spell out which columns and keys the checks
// read. DQ1 now infers them from the values, names what it inferred in
// each message, and lets the config correct a wrong guess:
//   - a computed/reported pair: two numeric columns that agree on most
//     rows but not all (dq1pairs.go; dq1.pairs);
//   - a point mass: a code or a value set apart from the rest of its
//     column, and its share between versions (dq1point.go; dq1.point_mass);
//   - the grouping column and the fold column, and so the groups of each
//     fold (dq1groups.go; dq1.grouping), and, after a script, the groups a
//     derived table keeps of the table it was made from (derived.go:
//     TablesRead finds what the command read, GroupsKept compares);
//   - the keys of metrics and calibration JSON written by other tools
//     (jsonkeys.go), documented keys first.
//
// # The blueprint's post-mortem errors
//
// Appendix A of the v6.0 blueprint lists twelve errors of a real CRISPR
// run. The checks that catch them in files live here:
//   - M3 (leakage, a dominant feature): DQ1's |r| with the label, and a
//     feature that separates a two-valued label perfectly (at least 15
//     rows per class, where chance does so with probability about 1e-8),
//     which catches a skewed assay count whose r stays low; DQ2's
//     dominance check.
//   - M4, M7 (a simplified score zeroing part of a feature, a misaligned
//     join leaving a column constant or empty): DQ1Compare, with the
//     TableProfile of the previous version (Result.Profile; the caller
//     keeps it, this package records nothing), and the point-mass check.
//   - M5 (computed vs reported): dq1.cross_checks, and the inferred pair.
//   - M8 (a subsample keeping a third of the groups, folds of one group):
//     DQ2's grouping keys when the metrics state them; DQ1's fold column
//     and GroupsKept from the tables.
//   - M6 (FINDINGS.md stale after FINDINGS.json changed): DQ4's numbers,
//     and its headline check for values the JSON marks.
//   - M9 (an overclaim): DQ4's overclaim check; FAIL, because writing the
//     alternatives section is cheap and a surprising claim without it is
//     exactly what the gate exists to stop.
//   - M10 (terminology): DQ4 warns on the domain's term misuses.
//   - M12 (a finding named differently in the log): DQ4's finding-id
//     check, reading PROGRESS.md and CLAIM-LEDGER.md found by walking up
//     from the findings file (see dq4ids.go for what an id is).
//
// M2 (a planned dataset never used) is the observer's design-drift check.
//
// The gates are allocation-light and stream where the input can be large
// (DQ1 reads a features table once, row by row).
package gate
