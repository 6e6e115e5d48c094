-- What the PostToolUse gates last saw of each research artifact (issue 13):
-- a features table, metrics, calibration results, a findings file, a data
-- dictionary, a design file. A file whose size and modification time match
-- its row is not gated again; profile keeps DQ1's column profile of the
-- table as it was, so the next version can be compared with it.
CREATE TABLE artifact_states (
    project_path TEXT NOT NULL,
    path         TEXT NOT NULL,               -- project-relative, forward slashes
    kind         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    sha256       TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT '',    -- PASS/WARN/FAIL of the last gate run, '' when not gated
    profile      TEXT,                        -- JSON, DQ1 only
    checked_at   INTEGER NOT NULL,
    PRIMARY KEY (project_path, path)
) WITHOUT ROWID;
