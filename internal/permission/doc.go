// Package permission holds the TEAM roles and the path policy that PreToolUse
// enforces before a write happens: which role a tool call runs as, which
// files the call would write, and whether that role may write them. It does
// no I/O beyond reading the project's policy file and looking at the file
// system to resolve symlinks, folders and globs; it never runs a program,
// never opens the store, and imports only the standard library, verdict,
// blueprints, github.com/gobwas/glob and mvdan.cc/sh/v3/syntax (the only
// package allowed to import the shell parser).
//
// Roles come from Claude Code's agent_type, never from prompt text: the main
// thread is the researcher in SOLO mode and the lead in TEAM mode;
// "vibe:reviewer2" or a bare "reviewer2" is reviewer2; aliases are
// configurable; any other agent type gets the restricted default role, and a
// subagent can never obtain a main-thread role.
//
// Paths are made absolute against the event's cwd, resolved through
// symlinks (for a file that does not exist yet, through its deepest existing
// parent; a dangling link counts as its target), made project-relative and
// compared after a fold that drops case, accents and invisible characters
// and maps look-alike letters (fullwidth, Cyrillic, Greek, 0/o, 1/l/i) to
// one skeleton, so CLАIM-LEDGER.md with a Cyrillic А is still the ledger.
//
// Bash commands are parsed with mvdan.cc/sh and walked: redirections,
// writer programs (cp, mv, tee, sed -i, dd of=, ...), nested shells
// (bash -c, eval, heredocs), cd, variables the command sets, globs and
// braces, find -delete/-exec, git, and the inline code of interpreters,
// which is searched for the calls that write. A target that cannot be
// resolved is unknown: a role confined to one area is denied, any other
// role only when the command names a protected path. This is a policy for
// an assistant that follows instructions, not a sandbox: a program run from
// a script file can still write what it likes, which is why PostToolUse
// checks protected files again (ProtectedFor).
package permission
