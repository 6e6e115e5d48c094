// Package brief holds research briefs: the authoritative constraints,
// accepted decisions and code anchors a project's research hands to the
// agent, read from one file (markdown or JSON) and never from an external
// service. It parses and validates a brief, says which constraints a write
// touches and what verdict each earns, renders the SessionStart context
// within a token cap, and detects reference rot by comparing each anchor's
// recorded signature hash with the code. It imports only the standard library
// and internal/verdict; it does not talk to the database (the lead stores
// briefs and their history) and reads files only through the function it is
// given.
//
// # The markdown form
//
//	# Brief: CRISPR off-target scoring
//	## Constraints
//	### BC-001: Never train on the held-out guides
//	- severity: Critical
//	- action: Block
//	- applies-to: src/split.py#make_splits, data/heldout/**
//	- rationale: the held-out guides measure generalisation.
//	- source: Smith 2024, section 3
//	## Decisions
//	### AD-001: Use guide-held-out splitting (2026-01-10)
//	- status: Accepted
//	- decision: split by guide, never by site.
//	- rationale: sites of one guide share sequence.
//	## Anchors
//	- src/split.py#make_splits
//	- internal/score/score.go#Score
//
// "# Brief: <title>" (or "# <title>") names the brief. "## Constraints",
// "## Decisions" (or "## Accepted decisions") and "## Anchors" (or "## Code
// anchors") open the three sections; other "##" sections are free prose and
// ignored. Each "### ID: Title" opens an item (":" or a spaced dash separates
// id and title; a decision may end its heading with the date in
// parentheses). Items carry "- key: value" fields; an indented line continues
// the previous field, and a plain paragraph under an item is appended to its
// rationale (constraints) or decision text (decisions). Severity and action
// are read in any case, with or without separators (warn-and-confirm,
// WarnAndConfirm). A decision without a status is Accepted: the section holds
// accepted decisions. Text inside ``` fences is ignored. Backticks around
// paths and anchors are dropped.
//
// The JSON form is the Brief struct as encoding/json writes it; anchors may
// also be given as "path#Symbol" strings. Unknown fields are errors, so a
// misspelt key cannot silently drop a constraint. Every "path#Symbol" in an
// applies-to list is also an anchor of the brief, so its signature is
// recorded and checked like the ones listed under Anchors.
//
// # Anchors and signatures
//
// An anchor is "path#Symbol" (or a bare path: the whole file). Its language
// comes from the extension (.go, .py, .r/.R). Signature extracts the symbol's
// normalised signature, and the anchor's hash is the SHA-256 of that string
// (of the raw bytes for a file anchor), recorded at ingest by Pin.
// CheckAnchors later reads the files again: the same hash is Verified, a
// different one Drifted, a symbol or file that is gone Missing, and an anchor
// that was never pinned Unrecorded. Only the signature is hashed, so editing a
// body leaves an anchor Verified: the brief speaks about interfaces, not
// implementations.
//
//   - Go (go/parser): "Name" is a top-level function or type, "T.M" a method
//     of T with either receiver, "(*T).M" and "(T).M" a method with exactly
//     that receiver. A function renders as "func (*T) M[P any](int, string)
//     (int, error)": parameter, result and receiver names are dropped
//     (renaming a parameter changes no caller), types, order, variadics and
//     type parameters are kept. A type renders as "type T struct{A int; B
//     string}" (field names kept, tags dropped). A file that does not parse
//     has no signatures: its anchors are Missing until it parses again.
//   - Python: the line pattern `^(async[ \t]+)?def[ \t]+NAME[ \t]*\(` at
//     column 0 finds a function; "Class.method" finds the def directly in the
//     body of a column-0 `class Class`. From the "(" a scanner that knows
//     brackets, strings and comments reads the header up to its top-level
//     ":", so multi-line headers work. Decorators and docstrings are not part
//     of the signature. Lines inside multi-line strings are not recognised as
//     strings by the line pattern, a documented limit.
//   - R: the line pattern `^[ \t]*NAME[ \t]*(<-|<<-|=)[ \t]*(function|\\)[ \t]*\(`
//     (NAME optionally in backticks), preferring a match at column 0, then
//     the same bracket-aware scanner up to the closing ")". The assignment
//     renders as "<-" and the lambda `\(` as "function(".
//
// Python and R headers are normalised the same way: comments and line breaks
// removed, whitespace dropped except one space between two word characters,
// one space after each comma, no comma before a closing bracket (a
// formatter's trailing comma is not a change), string literals kept as
// written. So reformatting leaves an anchor Verified, while a new parameter,
// a changed default or a changed annotation drifts it.
//
// # Session context and enforcement
//
// Context renders the constraints (Critical, High, Medium, Low; file order
// within a severity) and then the accepted decisions, within two caps (by
// default 4000 tokens and 20 constraints). Tokens are estimated as
// ceil(characters/4), counting Unicode characters, the usual rule of thumb
// for English text with no tokenizer to ship. Each line's rationale is
// shortened to 240 characters. What does not fit is replaced by a marker
// naming how many constraints (or decisions) were left out and that `vibe
// brief show` lists them all; the marker is counted inside the cap.
//
// Applicable matches a written path against each constraint's applies-to
// entries: a "path#Symbol" anchor matches a write of that file (of that
// symbol, when the caller knows which symbols the write touched), a glob
// matches with path.Match per segment plus "**" for any number of segments,
// and a plain path matches the file or anything under that directory.
// Patterns are relative to the project root ("*.py" matches only top-level
// files). Verdicts turns matches into verdicts: Critical+Block is a
// HARD_BLOCK (denied at PreToolUse, reason naming the constraint's id and
// title); Block below Critical and WarnAndConfirm are a WARN that asks the
// person (NeedsConfirm), because only Critical constraints are binding
// enough to deny outright; WarnOnly is a WARN; LogOnly a PASS.
package brief
