-- Datasets downloaded into a project (issue 13): where each came from, where
-- it landed and its checksum, so the observer's design-drift check knows a
-- dataset that arrived and was never used, and a raw file can be traced to
-- its source.

CREATE TABLE downloads (
    id           INTEGER PRIMARY KEY,
    project_path TEXT NOT NULL,
    session_id   TEXT NOT NULL DEFAULT '',
    url          TEXT NOT NULL,
    path         TEXT NOT NULL,              -- project-relative, forward slashes
    sha256       TEXT NOT NULL DEFAULT '',
    size         INTEGER,
    ts           INTEGER NOT NULL
);
CREATE INDEX idx_downloads_project ON downloads(project_path, ts);
CREATE INDEX idx_downloads_path ON downloads(project_path, path);
