-- Mistake memory (issue 18): a tool call that failed, what it tried and the
-- error, and, once a later call on the same target succeeds, what fixed it.
-- PreToolUse looks a target up here before a similar call runs.
CREATE TABLE mistakes (
    id           INTEGER PRIMARY KEY,
    project_path TEXT NOT NULL,
    session_id   TEXT,
    target       TEXT NOT NULL,   -- the script a command runs, the file an edit changes, the tool
    tool         TEXT NOT NULL,
    tried        TEXT NOT NULL,   -- the call's input summary
    error        TEXT NOT NULL,
    memory_id    INTEGER,
    failed_at    INTEGER NOT NULL,
    fixed_by     TEXT,            -- input summary of the call that then succeeded
    fixed_at     INTEGER
);
CREATE INDEX idx_mistakes_target ON mistakes(project_path, target, failed_at);
