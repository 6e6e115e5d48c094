// Package permission holds the TEAM roles and the path policy that PreToolUse
// enforces before a write happens: which role a tool call runs as, which
// files the call would write, and whether that role may write them. It never
// runs a program and never opens the store; its I/O is reading the project's
// policy file, looking at the file system (symlinks, folders, globs, the
// listings `ls` and `find` would print, the diff a `patch` reads) and, for
// `kill`, the name of the process in /proc. It imports only the standard
// library, verdict, blueprints, filememo, lazyre, vibehome, walltime,
// github.com/gobwas/glob and mvdan.cc/sh/v3/syntax (the only package allowed
// to import the shell parser).
//
// Roles come from Claude Code's agent_type, never from prompt text: the main
// thread is the researcher in SOLO mode and the lead in TEAM mode;
// "vibe:reviewer2" or a bare "reviewer2" is reviewer2; aliases are
// configurable; any other agent type gets the restricted default role, and a
// subagent can never obtain a main-thread role.
//
// Paths are made absolute against the event's cwd ("~" is the home folder),
// resolved through symlinks (for a file that does not exist yet, through its
// deepest existing parent; a dangling link counts as its target), made
// project-relative and compared after a fold that drops case, accents and
// invisible characters and maps look-alike letters (fullwidth, Cyrillic,
// Greek, 0/o, 1/l/i) to one skeleton, so CLАIM-LEDGER.md with a Cyrillic А
// is still the ledger.
//
// The rules, in the order they are tried: the role's tools and Bash
// programs; for each path written, the locked paths (Claude Code's settings,
// hooks and plugins, vibe's installed plugin folder, and VIBE_HOME: no role
// writes them, the lead included),
// read-only data, the role's deny rules and its write_only area (a "**/"
// pattern never opens an agent configuration folder such as .claude/); then
// writes whose target is unknown; then forbidden commands (stopping,
// replacing or signalling vibe's worker) and the operations that need the
// user's approval (installs, downloads, curl | sh, clones, rm -r, and
// compute runs: job submissions, detached analysis runs, GPU containers and
// cloud jobs, unless Request.Compute covers the job; compute.go says
// which). A new file
// downloaded into raw data is asked, not refused; writing raw data any other
// way, or over an existing raw file, is refused.
//
// For a reviewer, two places say what the policy does:
//
//   - programs.go: writerTable is the one list of what a program run
//     through Bash writes (which operands, which option values, of which
//     kind, which flags make it recursive), read by a small interpreter
//     (shellAnalyzer.writes); programs with special behaviour are named
//     functions the table points to (copyLike, sed, awk, tar, curl, find,
//     git's subcommands in gitTable, shellCmd, ...). The programs that run
//     another command (sudo, env, xargs, timeout, ...) say in wrappers.go
//     how they read their options; interpreters (inline.go) say which
//     options carry inline code, and inlineRules which calls in that code
//     write. A program in no entry and not an interpreter is opaque.
//   - check.go: decide runs the decision in stages, each a small function:
//     roleOf and judgeTool (which role, which tools), normalise (the
//     command or tool input parsed into targets, resolved and made
//     project-relative), judgeRole (the role's Bash programs, writing
//     through Bash at all), judgePaths and judgePath (which protected class
//     each target is in: locked, outside the project, read-only data, the
//     role's deny rules, its write-only area), judgeUnknown (targets known
//     only at run time, opaque programs, commands that do not parse) and
//     judgeCommands (forbidden operations and approvals). The tool rule
//     runs before normalise so a refused tool costs no parsing.
//
// Bash commands are parsed with mvdan.cc/sh and walked: redirections,
// writer programs (cp with -l/-s/-b, mv, tee, sed scripts command by command
// including w and e, awk's print, getline and system, dd of=, shuf/sort/iconv
// -o, script, gzip round trips, ...), nested shells (bash -c, eval, trap,
// heredocs), cd (with globs and CDPATH), variables the command sets
// (read, printf -v, declare -n, ${F^^} and the other transforms), variables
// that make programs run other code (GIT_EDITOR and the like analysed as
// commands; BASH_ENV, PATH, LD_PRELOAD and the like make the command opaque),
// hash -p, glob options (shopt),
// globs and braces, find's expression as find reads it (tests, actions, !,
// -o, parentheses, -prune; a test vibe does not evaluate may be true) with
// -delete and -exec judged per matched file (-exec's command analysed
// once, "{}" standing for the file), xargs and while read fed by a listing
// (find's filters and the grep stages after it kept), git (-c commands and aliases, --output, whole-tree
// commands judged against every protected file under the tree, apply and
// init), patch by the files its diff names, and the inline code of
// interpreters, searched for the calls that write (also builtins.open,
// os.open, os.exec*, fileinput, exec of a literal, getattr, sysopen, Node's
// computed member names). A target that cannot be resolved is unknown, and a
// program whose writes cannot be told (a script file, make) may write
// anything: a role confined to one area is refused, any other role only when
// the command names or globs into a path it may not write (raw data named by
// such a program is left out: scripts read raw data all the time). A command
// that does not parse or exceeds 256 KB is refused for the confined roles and
// the default role.
//
// Deny what is known, net what is not. A target the command's words name
// (a path, a folder it writes into, what lies outside the project) is
// judged by the rules above. A target the command reaches only through a
// computation made when it runs (a glob's match, a find match, a listing
// fed to xargs or $(...), what a folder being extracted or synced into
// holds, or a folder too large to look through: every bound of the
// analysis, maxWalk entries, maxFindMatches, maxGlobMatches, turns into
// "anything under this folder", never into an allow) is judged by viaNet:
// when a rule forbids it, the command does not spell the name of what the
// rule guards, and the file lies in the project in a set the net (internal/
// tamper) snapshots, the call is allowed when Request.Net can restore it
// and asked about when it cannot; Decision.Net lists what was left to the
// net. Without a net (Request.Net nil) such a write is refused as before.
// WrittenPaths and Decision.Paths hold only the files the call names. A
// kill of a computed process id is allowed when the lookup cannot reach
// vibe's worker (a TCP port's owner, a pgrep or ps | grep pattern that is
// not vibe's, the shell's own jobs), refused when it may, and asked
// (approval.signal) when it cannot be told.
//
// This is a policy for an assistant that follows
// instructions, not a sandbox: a program run from a script file can still
// write what it likes, which is why PostToolUse checks protected files again
// (ProtectedFor); Downloads tells it which files a call fetched and from
// where, and Runs which simple commands a call runs (reproducibility
// capture, internal/lineage, reads them).
package permission
