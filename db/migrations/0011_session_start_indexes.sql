-- Indexes shaped like SessionStart's reads (issue 15), so each is an index
-- search instead of a table scan, a sort or a per-row subquery; results do
-- not change (internal/store's SessionStart tests keep the old SQL as the
-- oracle). BenchmarkSessionStartQueries measures them. IF NOT EXISTS: the
-- migration tests rewind user_version and replay the later migrations.

-- PreviousSession: the newest other session with a narrative, read in
-- index order (ties as the old sort kept them: earliest start first)
-- instead of sorting every session of the project.
CREATE INDEX IF NOT EXISTS idx_sessions_previous ON sessions(project_path, COALESCE(ended_at, last_seen_at) DESC, started_at)
WHERE narrative_summary <> '';

-- ClaimGateCounts: each claim's latest status, and each gate and claim's
-- latest run, one index range per project in group order, without a
-- subquery per row. GateFailureCounts groups the same range. claim_id is
-- repeated after the expression so the index covers the query (SQLite
-- reads the table for a column an expression uses otherwise).
CREATE INDEX IF NOT EXISTS idx_claims_status ON claim_events(project_path, claim_id, new_status) WHERE new_status IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_gates_latest ON gate_checks(project_path, gate_id, COALESCE(claim_id, ''), status, claim_id);

-- AdvisoriesByCheck: one check's recent verdicts of a project; the table
-- grows on every hook that returns a verdict and had no project index.
CREATE INDEX IF NOT EXISTS idx_advisories_check ON advisories(project_path, check_name, ts);

-- RepeatedFixes: a project's BUG_FIX entries grouped by their summary,
-- not every project's BUG_FIX entries.
CREATE INDEX IF NOT EXISTS idx_spine_bug_fixes ON spine_entries(project_path, input_summary) WHERE action_type = 'BUG_FIX';
