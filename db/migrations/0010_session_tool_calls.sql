-- A live count of each session's tool calls (issue 15). PostToolUse reads
-- it on every call to decide whether the observer is due; counting the
-- session's spine entries instead grew with the session (0.6 ms a call at
-- 20,000 calls). The trigger keeps it for every way an entry arrives (the
-- hooks, the spool's replay, imports); spine entries are never deleted.
ALTER TABLE sessions ADD COLUMN tool_calls INTEGER NOT NULL DEFAULT 0;

UPDATE sessions SET tool_calls = (SELECT count(*) FROM spine_entries WHERE spine_entries.session_id = sessions.id);

CREATE TRIGGER spine_entries_count AFTER INSERT ON spine_entries BEGIN
    UPDATE sessions SET tool_calls = tool_calls + 1 WHERE id = new.session_id;
END;
