-- Integrity monitor and research briefs (issue 9). Times are INTEGER unix
-- milliseconds (UTC).

-- Every change of a numeric domain threshold, as threshold drift (D3) sums
-- it. Append-only: deleting history would reset the drift budget, which is
-- exactly what the check must not allow.
CREATE TABLE threshold_changes (
    id            INTEGER PRIMARY KEY,
    project_path  TEXT NOT NULL,
    domain        TEXT NOT NULL,
    threshold_key TEXT NOT NULL,               -- dotted key, e.g. dq2.min_auc, dq1.mean_mismatch_range[0]
    old_value     REAL NOT NULL,
    new_value     REAL NOT NULL,
    bps           INTEGER NOT NULL,            -- size relative to the old value, basis points
    loosens       INTEGER NOT NULL DEFAULT 0,
    after_failure INTEGER NOT NULL DEFAULT 0,  -- made shortly after a gate failed on the key
    direction     TEXT NOT NULL,               -- lower_looser, higher_looser, unknown
    at            INTEGER NOT NULL,
    source_ref    TEXT NOT NULL DEFAULT ''     -- file and tool_use_id that made the change
);
CREATE INDEX idx_threshold_changes ON threshold_changes(project_path, domain, at);
CREATE TRIGGER threshold_changes_no_update BEFORE UPDATE ON threshold_changes
BEGIN SELECT RAISE(ABORT, 'threshold changes are append-only'); END;
CREATE TRIGGER threshold_changes_no_delete BEFORE DELETE ON threshold_changes
BEGIN SELECT RAISE(ABORT, 'threshold changes are append-only'); END;

-- The last domain config vibe saw per project and path, so PostToolUse can
-- turn any change of it (by Write, Edit or Bash) into threshold changes.
CREATE TABLE config_snapshots (
    project_path TEXT NOT NULL,
    path         TEXT NOT NULL,     -- project-relative
    content      BLOB NOT NULL,
    sha256       TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (project_path, path)
);

-- Every ingested version of a project's research brief; the newest row is
-- the current brief. content is the parsed brief as JSON with its anchors
-- pinned (signature and hash at ingest).
CREATE TABLE briefs (
    id           INTEGER PRIMARY KEY,
    project_path TEXT NOT NULL,
    source_path  TEXT NOT NULL,     -- project-relative, or absolute outside the project
    hash         TEXT NOT NULL,     -- SHA-256 of the brief file's bytes
    title        TEXT NOT NULL,
    content      TEXT NOT NULL,
    constraints  INTEGER NOT NULL DEFAULT 0,
    decisions    INTEGER NOT NULL DEFAULT 0,
    anchors      INTEGER NOT NULL DEFAULT 0,
    ingested_at  INTEGER NOT NULL
);
CREATE INDEX idx_briefs_project ON briefs(project_path, id);
