// Package integritycheck connects the integrity monitor (internal/integrity)
// and research briefs (internal/brief) to a project on disk and to the
// store: the functions the hooks and the CLI call to judge a domain-config
// write, record the threshold changes actually made, inject and enforce the
// current brief, notice reference rot after an anchored file is written, and
// check a project's evidence graph and drift history. It must not import
// cobra or a hook handler, and it never reads the clock: every function
// takes the time it judges at. Judgements live in integrity, brief and
// claim; SQL lives in store, reached only through the Reads, Writes and
// Store interfaces of store.go (a function that takes a nil store wants a
// nil interface, not a nil *store.Store).
//
// # Which configs, and what counts as a change
//
// IsDomainConfig names the files whose thresholds are watched: the project's
// .vibe-science/domain-config.json and any blueprints/domains/*.json inside
// the project. A project config is a partial override of a shipped domain,
// so a key it does not name still has the shipped value. Each version is
// therefore merged onto its base (the shipped domain named by "extends", or
// by "domain") the way the gate engine merges it, and the effective
// thresholds are compared: writing {"domain":"generic","dq2":{"min_auc":0.5}}
// over {"domain":"generic"} is a change of dq2.min_auc from 0.55 to 0.5.
// The compared view holds the dq1 numbers (allowed_missing_fraction,
// leakage_corr_threshold, min_samples and each column check's bound under
// its name, a range as name[0] and name[1]), dq2 and dq3; file patterns,
// literature and dq4's matching rule are not thresholds.
//
// The direction table passed to integrity.DiffThresholds extends the default
// with what each column check's kind says: a range check (mean_within,
// values_within) loosens when its low end is lowered or its high end raised,
// and an at-least check (values_at_least, fraction_nonzero_at_least)
// loosens when its minimum is lowered. So the crispr domain's
// cfd_nonzero_threshold, unknown to integrity's table, is known here.
//
// A version that names another domain than the one before is compared with
// the shipped thresholds of its new domain, not with the old domain's:
// choosing a domain picks a baseline, and only moving away from that
// baseline is drift. A config that did not exist before is compared with its
// shipped domain in the same way, so creating a config that overrides a
// shipped threshold counts as changing it.
//
// # Recording and judging
//
// ConfigWrite judges a proposed write at PreToolUse against the history in
// threshold_changes (integrity.DriftVerdictFor: 800 bps WARN, 1000 bps BLOCK
// for further loosening over 180 days; tightening never blocked), with the
// keys loosened within seven days of a DQ1, DQ2 or DQ3 failure of the
// project marked and named. RecordConfigChange, at PostToolUse, diffs the
// file against the last snapshot vibe saw (config_snapshots), appends the
// changes and moves the snapshot, so an edit by Bash is recorded too and a
// repeated call records nothing. ConfigWrite and BaselineConfigs snapshot a
// config vibe has never seen, so overrides that predate vibe are not
// counted as new changes.
//
// # Briefs
//
// IngestBrief parses, validates and pins a brief and stores it as a new
// version; the newest version is current. BriefContext renders the current
// brief for SessionStart and re-checks its anchors (brief.RotVerdict).
// BriefWrite returns the brief-constraint verdicts of a write at PreToolUse
// (HARD_BLOCK for Critical+Block, a WARN that brief.NeedsConfirm turns into
// "ask"). AnchorEdited re-checks the anchors in a file just written and
// reports those that drifted or went missing. A brief that cannot be read
// is reported through the "brief" circuit breaker (integrity.Breakers).
//
// # Idempotency
//
// Unseen drops WARN and PASS verdicts whose decision hash the project's
// advisory log already holds, so a context note is shown once; it never
// drops a denial or an "ask", which must answer every call. AnchorEdited
// applies it itself. BriefContext does not: SessionStart rebuilds a context
// window from nothing, so a degraded brief must be said again.
package integritycheck
