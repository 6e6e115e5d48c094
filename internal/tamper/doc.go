// Package tamper is the safety net under the permission analyser: it keeps
// content snapshots of a project's protected files in VIBE_HOME and, after
// every tool call and once more at Stop, puts back what changed without an
// allowed write. It touches the project only to stat, read, restore and move
// aside guarded files, never deletes a file, never runs a program, and
// imports no hook handler, cobra or SQL (the store is reached only through
// integritycheck for the drift history).
//
// # What is guarded
//
// Every file of the permission policy's protected sets (claim ledgers,
// reviews and judge reports, the serendipity log, the schemas, the policy
// file, the project's .claude/ and .mcp.json, the project's copy of the
// research brief) and read-only sets (raw data), as permission.Policy.Guarded
// names them, plus the domain configs (integritycheck.IsDomainConfig) and
// the files a Critical Block constraint of the brief binds (set
// "brief.<ID>", read from the snapshot's copy of .vibe-science/brief.json;
// no role may change them, and a new brief's files are taken in when its
// copy is accepted). The first check of a project walks it once
// (skipping .git, node_modules, virtual environments and a VIBE_HOME kept
// inside, at most Options.MaxWalk entries) and takes the snapshot; nothing
// is judged then. A guarded folder that is a symlink (raw data kept on
// another disk) is followed: its files are guarded where they live, and the
// link itself, if removed or pointed elsewhere by a role that may not write
// the folder, is put back. Before a restore, a folder on the way that was
// replaced by a symlink is moved aside, so a restore never writes through a
// link it did not record.
//
// Each file is compared by content, existence and name (a rename is a
// removal and a creation), and by mode and owner (ModeChanged: restored
// with chmod and chown). The folders of a guarded tree are judged too: one
// made where the role may not make it is moved to quarantine once what it
// holds has been judged, one removed is made again with its mode and
// owner, one whose mode changed gets it back. A watched folder whose
// listing changed has its snapshotted files compared at once, raw data
// included, so a removed or renamed raw file is seen by the next check.
//
// # Which call made a change
//
// A change is charged to a call only on evidence. PreToolUse opens the
// call's window (Begin: its start on the file system's clock, read from a
// file vibe writes, so it compares with change times, which nobody can set
// back); the check after the call ends it. A change whose time (a file's
// ctime; for a removal, its folder's) lies in the checked call's window,
// and that the call's tool can make (a Write or Edit changes only the file
// it names; Read, Grep, Task and the like change nothing), is the call's.
// Otherwise the newest other window that explains it decides: a call still
// running is left to judge it at its own check (its session's Stop ends
// every window the session left open), a call that returned is charged
// (raw data the rotation reaches later; a run_in_background job's window
// stays open backgroundSpan). A change no window explains was made
// outside any call (a person, an editor, another program): it is kept as it
// is (the snapshot takes it, the version before is kept as Prior), reported
// once as a WARN, and waits for the person: `vibe tamper accept` keeps it,
// `vibe tamper restore` (Restore) puts the earlier version back, `vibe
// tamper pending` (Pending) lists them. Until a project's calls are
// recorded (no Begin yet), every change is the checked call's. The windows
// are VIBE_HOME/tamper/projects/<key>.calls, one JSON line per begin, end
// and Stop, rewritten past maxWindows.
//
// # What the policy asks before a call
//
// Net gives permission.Request.Net: PreToolUse lets a command through
// whose protected targets are known only when it runs (a glob, find, a
// listing) when the snapshot holds a restorable copy of every protected
// file those targets may reach, and asks otherwise. A project seen for the
// first time is snapshotted then, before the call.
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
//     threshold drift (integritycheck.ConfigWrite) unless a Write or Edit
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
// an edit of .claude/settings.json) made between calls is kept and
// reported (see above); made while a call that could have made it runs,
// it is undone like the call's would be, and the quarantined version is
// there to move back. `vibe tamper accept [PATH...]` (Accept) takes files
// into the snapshot, and the shipped policy asks the user before an agent
// runs it or `vibe tamper restore`. Claude Code's own
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
// The evidence is the file system's clock: on a file system that keeps
// whole seconds a call's window starts at the second; a network file
// system whose server's clock differs from this machine's can misplace a
// change. A removal is dated by its folder, which a later change in the
// same folder dates again: a person's removal followed, in the same
// folder, by a call that may remove files is charged to that call. A job
// a call left running after backgroundSpan is outside any call.
// PostToolUse cannot unsend what a program did elsewhere (a network
// upload, a process it started).
package tamper
