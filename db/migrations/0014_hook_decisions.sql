-- What a hook did with each verdict (issue 32 item 6: every decision can be
-- seen). An advisory is what a check found; its hook decision is what the
-- hook's reply made of it, as the client was told: deny (PreToolUse refused
-- the call), block (PostToolUse or Stop blocked the turn), ask (PreToolUse
-- asked the user first), warn (Claude or the user was told; nothing was
-- stopped) or recorded (a PASS, or an ask a deny overrode: not shown). It
-- also names the call's tool and the file the verdict was about, so
-- `vibe decisions`, the viewer and RECORD.md can list what vibe decided
-- without reading the events again. Like the advisories, rows are appended
-- and never changed. A side table rather than new columns of advisories:
-- the migration tests rewind user_version and replay the later migrations,
-- which ADD COLUMN cannot survive (hence IF NOT EXISTS everywhere).
CREATE TABLE IF NOT EXISTS hook_decisions (
    advisory_id INTEGER PRIMARY KEY REFERENCES advisories(id),
    kind        TEXT NOT NULL CHECK (kind IN ('deny','block','ask','warn','recorded')),
    tool        TEXT,
    file        TEXT
);
CREATE TRIGGER IF NOT EXISTS hook_decisions_no_update BEFORE UPDATE ON hook_decisions
BEGIN SELECT RAISE(ABORT, 'hook decisions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS hook_decisions_no_delete BEFORE DELETE ON hook_decisions
BEGIN SELECT RAISE(ABORT, 'hook decisions are append-only'); END;

-- A project's decisions, newest first, without sorting the table.
CREATE INDEX IF NOT EXISTS idx_advisories_project_ts ON advisories(project_path, ts);

-- The verdicts recorded before this migration, decided as hookrun's reply
-- table decided them then (an ask was not recorded before). Their tool is
-- the spine entry's of the same call (PostToolUse), else the one the
-- verdict's input names (a permission denial); their file is the first of
-- the verdict's evidence paths.
INSERT OR IGNORE INTO hook_decisions (advisory_id, kind, tool, file)
SELECT a.id,
       CASE
         WHEN a.result = 'PASS' THEN 'recorded'
         WHEN a.result IN ('BLOCK','HARD_BLOCK') AND a.event = 'PreToolUse' THEN 'deny'
         WHEN a.result IN ('BLOCK','HARD_BLOCK') AND a.event IN ('PostToolUse','PostToolUseFailure','Stop','SubagentStop') THEN 'block'
         ELSE 'warn'
       END,
       COALESCE(
         (SELECT s.tool_name FROM spine_entries s
          WHERE s.session_id = a.session_id AND s.tool_use_id = a.tool_use_id AND a.tool_use_id <> ''),
         CASE WHEN json_valid(a.input) THEN json_extract(a.input, '$.tool') END),
       CASE WHEN json_valid(a.evidence) THEN json_extract(a.evidence, '$.paths[0]') END
FROM advisories a;
