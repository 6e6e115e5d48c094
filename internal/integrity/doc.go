// Package integrity holds the integrity monitor's pure judgements: drift in a
// domain's gate thresholds (D3), deduplication by decision hash, and
// the circuit-breaker modes for the dependencies a hook uses. It does no I/O,
// never reads the clock (every window is computed from the `now` it is given)
// and imports only the standard library and internal/verdict; storing changes
// and verdicts is store's job, rendering replies is hookrun's.
//
// # Threshold drift (check "D3-threshold-drift")
//
// A domain config (blueprints, `.vibe-science/domain-config.json`) is a JSON
// object. DiffThresholds flattens it to dotted keys ("dq2.min_auc"; array
// elements as "dq1.mean_mismatch_range[0]"), keeps numeric leaves only, and
// reports every key whose value differs between two versions. A key present
// in only one version is not a change of value and is not reported: the gate
// then falls back to its built-in default.
//
// Each change is measured in basis points relative to the old value:
// |new-old| / |old| × 10,000, rounded half away from zero. When the old
// value is 0 there is nothing to be relative to, so the absolute difference
// × 10,000 is used instead. The arithmetic is exact: each float64 is read back
// as the shortest decimal that round-trips (the number as written in the
// config) and divided as a rational number, so 0.5 → 0.55 is exactly 1000 bps
// and never 999 through binary rounding. One change counts at most MaxBps.
//
// Which way loosens a key comes from a direction table, looked up in order:
//
//  1. the table passed to DiffThresholds (nil means DefaultDirections):
//     dq1.leakage_corr_threshold, dq1.allowed_missing_fraction,
//     dq1.mean_mismatch_range[1], dq1.max_share_change, dq2.max_dominance,
//     dq2.max_fold_cv, dq3.max_coverage_gap, dq3.max_coverage and
//     dq4.surprising_effect loosen when raised; dq1.mean_mismatch_range[0],
//     dq1.min_samples, dq2.min_auc, dq2.min_r2, dq2.min_groups_per_fold and
//     dq2.min_group_share_kept loosen when lowered;
//  2. the naming convention of the blueprints: a key whose last segment
//     starts with "min_" loosens when lowered, "max_" when raised;
//  3. otherwise the direction is Unknown. Such a change still counts in the
//     drift total (any change counts), and because the monitor cannot show
//     that it tightens, DriftVerdictFor judges it as a possible loosening and
//     says so. dq1.cfd_nonzero_threshold is deliberately left unknown: the
//     blueprint does not say whether it is a floor or a ceiling.
//
// Drift sums the basis points of one domain's changes inside the window
// (now-window, now] (default 180 days): a change exactly one window old has
// left it, a change dated after now has not happened yet, and changes of
// other domains never add up. DriftVerdictFor judges proposed changes against
// that total including the proposal itself, so one large loosening cannot
// jump over the cap: below 800 bps PASS, 800 to 999 WARN, 1000 and above
// BLOCK. A proposal that only tightens is never blocked. Loosening a key
// shortly after a gate failed on it (MarkAfterFailure) is named in the reason
// and is at least a WARN, because moving a threshold to turn a failure into
// a pass is exactly what the check exists to expose.
//
// # The escalation table and the seed's WARN/BLOCK mismatch
//
// The integrity-monitor seed had its detectors emit WARN for every circular
// support and every coercion trap, while its escalation state machine only
// applied the two mappings that turn those checks into hard denials (a cycle
// in a rule update, a coercion in an admission gate) to advisories whose
// result was BLOCK. Those mappings could therefore never fire. The seed's
// envelope also allowed only PASS, WARN and BLOCK, while the state machine
// returned HARD_BLOCK, so the strongest outcome could not be recorded.
//
// vibe fixes both by moving the context into the check and out of the table:
// the check that knows where it runs returns the result that context deserves
// (a cycle in the support of a claim being promoted is BLOCK at PreToolUse, a
// WARN elsewhere), the envelope carries all four results, and one table maps
// (event, result) to a reply with no check-specific exceptions: hookrun's decide
// (DESIGN.md), the only one. An invalid result is treated as WARN: a broken
// check is reported, it does not silently pass or stop work.
//
// Verdicts are idempotent by decision hash: Dedup drops a verdict whose hash
// was already seen (in the store or earlier in the same batch), so the same
// decision on the same input is recorded and shown once.
//
// # Circuit breakers
//
// Each dependency a hook uses (database, worker, vec, brief) has a mode:
// skip (carry on silently, record only), warn (carry on and tell Claude and
// the user what is missing) or fail (stop: a BLOCK, denied at PreToolUse).
// The defaults keep the agent's session working: database warn, worker skip,
// vec skip, brief warn.
package integrity
