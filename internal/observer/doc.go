// Package observer holds the periodic checks PostToolUse runs every N tool
// calls (Settings.ObserverEvery, see Due) and the alerts they raise, plus
// what PreToolUse needs to deny writes while a HALT is open (OpenHalts,
// Blocking, HaltVerdict). It reads the project's files with stat calls and
// a few small listings and reaches the database only through the Reads,
// Writes and Store interfaces it declares (store.go), never importing
// store; it
// must not walk the project tree (the one bounded walk is the design-drift
// check's of a research question's analysis folders, below), run programs,
// or import cobra or a hook handler.
//
// # Checks
//
// Nothing runs in a project without a .vibe-science folder.
//
//	check               level      condition
//	state-stale         WARN/HALT  24 h / 72 h of recorded work since the researcher's part of STATE.md last changed; WARN when STATE.md is missing
//	findings-json       WARN       a *findings*.md (in a research-question folder or its 04-results/) is newer than the JSON beside it by more than 30 min
//	findings-stale      WARN       a findings file whose JSON changed after it, 30 min or more ago, and whose numbers or headline values DQ4 no longer finds in it (M6)
//	data-undocumented   WARN       more than 3 files under a 02-data/ folder that its DATA-DICTIONARY.md does not name (heading, glob or path in the text)
//	phase-drift         WARN       most of the last 20 phase-bearing actions lie outside the phase STATE.md names; INFO when the phase is not one vibe knows
//	literature-drought  WARN       none of the project's last 30 actions is a literature search
//	seed-pending        WARN/HALT  a seed waits for triage 5 / 10 sessions (serendipity_seeds.sessions_pending)
//	design-drift        WARN       a dataset of a research question (planned in DESIGN.md, in its raw-data folder, or downloaded) that no action or analysis script has read after 30 actions or 24 h (observer block of the domain config)
//
// The phase is read from one line of STATE.md, `phase: X` or `stage: X`
// (also bold, as a list item or a heading), never continued onto the next
// line. Staleness counts from the first recorded action after the last
// change of the researcher's part, not from the file's mtime: vibe rewriting
// its own section does not reset the clock, and a week away from the
// project does not count as a week of unrecorded work.
//
// # Design drift
//
// The blueprint's M2: a dataset planned and downloaded, never used, while
// the analysis went on without it. A research question's datasets are
// found without relying on names: the paths its DESIGN.md steps bring in
// from outside (the outputs of a step that reads nothing, such as a
// download, and the inputs that no step produces; every path under a raw/
// folder; globs, scripts and documents aside), resolved against the
// research question and then the project root; the entries of its
// raw-data folder (raw/ under 02-data/, data/ or any *-data/, when there
// are at most 20: more is a collection of samples, not a list of
// datasets); and the downloads recorded (RecordDownload, the downloads
// table) under the research question, anywhere in the project under a
// file name the design plans, or anywhere when the project has one
// research question. A dataset is read when its file name appears, in
// any case, in the input summary of a recorded action (a Read path, a Bash
// command), in a script of the research question's analysis folders
// (03-analysis, analysis, *-analysis, scripts, src, code, notebooks) or in
// a script a recorded command ran (python3 analysis/build.py, wherever it
// lives in the project; at most 200 remembered), or when a raw-folder glob
// there ("raw/*.csv") matches it. Its clock starts when vibe first sees it
// or when it was downloaded; a dataset only planned waits until it is
// present or until another dataset of its question was read, so an early
// plan is not drift. A deviation (in DESIGN.md or DEVIATIONS.md) whose
// what, why or files name the file accepts it. One alert per research
// question lists its overdue datasets, each by its path and how vibe
// learned of it (planned in DESIGN.md with the step, in the raw folder,
// downloaded).
//
// Cost: the spine is searched incrementally (the entries since the last
// run, at most 5000; 20000 on the first run); the analysis folders are
// walked (at most 500 entries, scripts read only when changed) only while
// some dataset is overdue, and then at most every 5 minutes.
//
// # Alerts
//
// Each alert has a level (INFO, WARN, HALT), a check name, a message that
// says what is wrong, which rule, and how to fix it, and a fingerprint: the
// check plus what identifies the situation (the seed, the folder and its
// count, the time of the last STATE.md change). An open fingerprint is not
// raised twice (a unique index), and a fingerprint a person resolved is not
// raised again until the situation changes. Alerts are listed most severe
// first (HALT, WARN, INFO), then newest.
//
// Resolution: `vibe alerts resolve ID [--note TEXT]` by a person, or by the
// observer when a check runs and its condition has cleared (the resolution
// then reads "observer: <why>"). A HALT for STATE.md staleness or a pending
// seed is re-judged by OpenHalts at the next PreToolUse, so updating
// STATE.md (which stays writable under that HALT, see Blocking) lifts the
// denial at once.
//
// # Cost
//
// A run stats STATE.md (reading it only when its mtime or size changed),
// lists .vibe-science and each folder in it one level deep plus each
// 04-results folder, and stats the folders of each 02-data tree; a 02-data
// tree is listed again (at most Config.MaxDataEntries entries) only when one
// of its folders or its dictionary changed. What it remembers between runs
// is kept in the meta table. The database work is a handful of indexed
// queries and, only when something changed, one transaction.
package observer
