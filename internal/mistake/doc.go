// Package mistake is vibe's mistake memory (the Sylk seed's "check before
// acting"): a tool call that failed is remembered with what it tried and
// its error; when a later call on the same target succeeds, the fix joins
// it; and before a call on a target that failed, PreToolUse tells Claude
// what went wrong last time and, when known, what fixed it.
//
// A target is what a call works on, so that "the same action" is
// recognised across small differences: the script a command runs
// (`python3 03-analysis/train.py --seed 2` and `cd 03-analysis && python3
// train.py` are both "run 03-analysis/train.py"), the file an edit changes,
// the MCP tool called.
//
// A target and an error are scrubbed (privacy) before they are cut, so a
// secret in a failed command is not kept in part where a cut split it.
//
// It imports the standard library, hook, privacy and record, and reaches the
// database only through the Writes and Reads interfaces it declares
// (store.go), never store; it never parses shell syntax beyond splitting
// words (the shell parser belongs to permission).
package mistake
