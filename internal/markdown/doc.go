// Package markdown tells which lines of a Markdown file are code: fenced code
// blocks by CommonMark's rules (a fence of three or more backticks or tildes,
// indented at most three spaces, closed only by a fence of the same character
// at least as long with nothing after it), so a 4-backtick example that quotes
// a 3-backtick block stays code to its end. The line scanners of the project
// files (claim ledger, serendipity log, brief, …) share it, so "code blocks are
// never read" holds the same way for each. It holds no I/O and imports only the
// standard library.
package markdown
