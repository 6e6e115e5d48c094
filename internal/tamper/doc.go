// Package tamper is the safety net under the permission analyser: it keeps
// content snapshots of a project's protected files in VIBE_HOME and, after
// every tool call and once more at Stop, puts back what changed without an
// allowed write. It touches the project only to stat, read, restore and move
// aside guarded files, never deletes a file, never runs a program, and
// imports no hook handler, cobra or SQL (the store is reached only through
// integrityhook for the drift history).
//
// # What is guarded
//
// Every file of the permission policy's protected sets (claim ledgers,
// reviews and judge reports, the serendipity log, the schemas, the policy
// file, the project's .claude/ and .mcp.json) and read-only sets (raw data),
// as permission.Policy.Guarded names them, plus the domain configs
// (integrityhook.IsDomainConfig). The first check of a project walks it once
// (skipping .git, node_modules, virtual environments and a VIBE_HOME kept
// inside, at most Options.MaxWalk entries) and takes the snapshot; nothing
// is judged then. A guarded folder that is a symlink (raw data kept on
// another disk) is followed: its files are guarded where they live, and the
// link itself, if removed or pointed elsewhere by a role that may not write
// the folder, is put back. Before a restore, a folder on the way that was
// replaced by a symlink is moved aside, so a restore never writes through a
// link it did not record.
//
// # What is allowed
//
// A change to a guarded file is judged with the policy the snapshot holds
// (the project's permissions.json as last accepted, else the default: a
// policy file changed by the same call never judges its own change) and the
// role the call ran as (RoleFor of the event's agent_type):
//
//   - the role may write the file (Policy.WriteAction allows): accepted, the
//     snapshot takes the new content; a domain config is first judged for
//     threshold drift (integrityhook.ConfigWrite) unless a Write or Edit
//     named it (PreToolUse judged those), and a change past the drift cap
//     is undone like a forbidden one;
//   - the policy asks before the role writes it (.claude/, permissions.json
//     for the researcher and the lead): accepted only when the call named the
//     file as a target (a Write's file_path, what the shell analyser found in
//     a command), because then PreToolUse asked and the user approved;
//   - otherwise it is undone, except a new raw-data file brought by a call
//     the policy asks for as a download or clone (DownloadApproved).
//
// A caller may hold the allowed changes to rules of its own (Call.Veto):
// the hooks judge a claim ledger's change as an edit of it is judged, and a
// vetoed change is undone like a forbidden one.
//
// Undoing never deletes: a changed or replaced file is moved to
// VIBE_HOME/tamper/quarantine/<project>/<time>/<path> and its snapshot
// written back atomically (temporary file beside it, checked against the
// hash, renamed over the path, so a hard link or symlink standing there is
// replaced, not written through); a deleted file is recreated with its
// folders; a file created where the role may not create one is moved to
// quarantine. Each undone change is one BLOCK verdict naming the file, its
// set, the role and rule, the tool call and what was restored.
//
// # Storage
//
// VIBE_HOME/tamper (0700; files 0600) holds, per project, projects/<key>.idx
// (the index: each guarded file's stat, hash and where its content is kept,
// and the watched folders), <key>.jnl (entries changed since the index was
// last written, appended one write per check; replayed on load, folded into
// the index at Stop or past 256 KB) and <key>.pack (contents up to
// PackMaxBytes, appended); larger contents are blobs/<sha256>, shared by all
// projects. The index is a file and not a table: the check must work when
// the database is locked, full or gone (decide first, record after), the
// resident process keeps it in memory (a SELECT of 10k rows per call would
// cost more than the check), and the contents are files anyway. Another
// process's write is noticed by the index's and journal's stat and
// reloaded. A file larger than Options.MaxFileBytes (64 MB), or beyond the
// project's Options.MaxProjectBytes, is kept as its hash only: a change to
// it is blocked and said to be unrestorable, and Stop says so again until
// the content is back. A first sight reads content for at most
// FirstSightTime / FirstSightBytes (small and policy files first); later
// calls read the rest within CallHashTime, Stops within StopHashTime.
// Nothing is fsynced but a restored file: a lost index only means the next
// check takes the snapshot again.
//
// A person's own change (a git pull of reviews, a dataset copied into raw/,
// an edit of .claude/settings.json) is undone like an agent's; `vibe tamper
// accept [PATH...]` (Accept) takes it into the snapshot, and the shipped
// policy asks the user before an agent runs that command. Claude Code's own
// write of a "don't ask again" rule to .claude/settings.local.json (only
// its "permissions" change) is accepted without it.
//
// # Cost
//
// A stat costs about 1.6 µs on the 2-core development VM (10k stats: 16
// ms), too much for every file on every call. So each call stats every
// watched folder (a new, removed or renamed entry changes the folder's
// mtime), every hot file (all but raw data), the files the call names, and
// a rotating slice of Options.ColdPerCall raw-data files; a stat that
// differs costs a hash, and only a different hash is a change. An in-place
// edit of a raw file the slice did not reach is found within
// len(raw)/ColdPerCall calls, and always at Stop, which stats everything.
// Watched folders are the guarded trees (05-reviewer2/, 02-data/raw/, .claude/
// and their sub-folders), the folders holding guarded files, the root's own
// entries and .vibe-science down to a research question's data folder; a
// guarded file created in a new folder elsewhere is seen when a call names
// it. BenchmarkCheck measures it (README).
//
// # Limits
//
// A change is charged to the call after which it is seen: a background job
// of one agent can be charged to the next call of another, and a person's
// edit of an asked-for file (.claude/settings.json) between tool calls is
// undone like the agent's would be. PostToolUse cannot unsend what a
// program did elsewhere (a network upload, a process it started).
package tamper
