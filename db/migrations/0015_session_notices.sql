-- What a hook told Claude that it says once per file and session (issue
-- 32: a deviation from the design, DC0's unplanned file, is a warning said
-- once per file per session, not at every change of the file). A row means
-- "check_name was said about path in session_id"; the hooks read it before
-- they warn again. Sessions are kept, so the rows are few: one per
-- unplanned file a session wrote.
CREATE TABLE IF NOT EXISTS session_notices (
    session_id   TEXT NOT NULL,
    project_path TEXT NOT NULL,
    check_name   TEXT NOT NULL,
    path         TEXT NOT NULL,
    ts           INTEGER NOT NULL,
    PRIMARY KEY (session_id, project_path, check_name, path)
) WITHOUT ROWID;
