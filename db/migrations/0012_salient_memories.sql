-- SalientCandidates (SessionStart's memory section, issue 15): the newest
-- memories of a project that are neither forgotten nor narratives, read
-- from this index alone, in its order (created_at, then id, newest first),
-- without touching a row: SessionStart ranks 200 of them by kind, age,
-- trust and superseded_by and reads the text of the few it keeps. Without
-- it the read walked idx_memories_project and read every row, narratives
-- included (one per session: in a project of many sessions most of the
-- rows read were thrown away). The query states the same WHERE in SQL,
-- since plans do not look at bound values (store.stablePlans).
-- IF NOT EXISTS: the migration tests rewind user_version and replay the
-- later migrations.
CREATE INDEX IF NOT EXISTS idx_memories_salient ON memories(project_path, created_at, id, kind, trust, superseded_by)
WHERE forgotten = 0 AND kind <> 'narrative';
