// Package postmortem holds the blueprint's Appendix-A errors (M1–M12, the
// twelve mistakes of the real CRISPR off-target run) as small research
// sessions replayed through the hooks, plus a clean control session that
// does the same work correctly. Each scenario is data (scenarios/*.json): the
// project it starts from and the tool calls the agent makes, with scripts
// run through Bash writing the tables, metrics and findings the way
// researchers work, and what vibe must answer at each call. "refs" (issue
// 34) adds the error the blueprint's run did not list: a reference the
// agent invented beside two it searched for, flagged alone when FINDINGS.md
// is written, and a claim promoted on it refused.
//
// Each scenario also comes named otherwise (issue 32): <id>-renamed keeps
// the work in the research question's folder with the files named in the
// domain config but no column or key, so the checks must infer the column
// pair, the grouping, the importances and the unread dataset;
// <id>-results puts the scripts and outputs at the project's own analysis/
// and results/ with no hint at all. A scenario whose expectations wait for
// another part of the issue says so in "awaits".
//
// The in-process replay (postmortem_test.go) runs every scenario through the
// PreToolUse and PostToolUse handlers; the E2E suite plays some of them
// through the real Claude Code client. A scenario's steps without an
// expectation must draw no reaction at all, so a false block anywhere fails
// the suite as surely as a missed error.
//
// The control sessions (controls/*.json, written by controls.py) are
// legitimate work with the exploration real research has: scratch tables,
// sorted copies, samples, a file the user adds to raw data, a download the
// user approves, and an independent corpus of forty calls from the
// Software Carpentry shell lesson. TestControls holds them to no block, no
// denial and one warning per file the design does not plan.
//
// It imports only the standard library, scaffold and project; nothing
// outside tests may import it.
package postmortem
