-- The agent client a session ran in (issue 19): 'codex' or 'gemini' when the
-- hook command named one with --client; NULL for Claude Code.
ALTER TABLE sessions ADD COLUMN client TEXT;
