-- Reproducibility capture (issue 34): the lineage of each version of a
-- result file the gates judge (metrics, calibration results, a findings
-- JSON). The row is written with the call's record: who wrote this content
-- (writer: computation, hand or unknown, and by, in a few words), so DQ4
-- and promotion can refuse numbers that no computation produced with one
-- indexed lookup by content hash. detail is the full record
-- (internal/lineage.Record as JSON: command, script and inputs with their
-- hashes, seeds, environment, git commit), filled in after the reply.
CREATE TABLE IF NOT EXISTS artifact_lineage (
    id           INTEGER PRIMARY KEY,
    project_path TEXT NOT NULL,
    path         TEXT NOT NULL,                -- project-relative, forward slashes
    sha256       TEXT NOT NULL,
    writer       TEXT NOT NULL,                -- computation, hand, unknown
    by_what      TEXT NOT NULL DEFAULT '',
    tool         TEXT NOT NULL DEFAULT '',
    session_id   TEXT NOT NULL DEFAULT '',
    tool_use_id  TEXT NOT NULL DEFAULT '',
    ts           INTEGER NOT NULL,
    detail       TEXT                          -- JSON, NULL until captured
);
CREATE INDEX IF NOT EXISTS artifact_lineage_content ON artifact_lineage (project_path, sha256);
CREATE INDEX IF NOT EXISTS artifact_lineage_path ON artifact_lineage (project_path, path, id);
