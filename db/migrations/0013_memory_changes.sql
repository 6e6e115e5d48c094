-- The change log of what the resident process keeps of memories (issue
-- 15: store.Options.MemoryCache). A hook reads the same memories again and
-- again (a prompt's fifty vector hits, the last narrative's matches), and
-- reading fifty rows costs a hook ~250 µs after an idle pause. The worker
-- keeps the rows it read and, before it uses them, reads the changes
-- logged since (one indexed range, empty almost always) and drops the
-- memories they name. Logged: any update of a column a memory record
-- holds (the FTS5 bookkeeping column `unchecked` is not one), a deleted
-- memory, and a link added, changed or removed on either side (a record
-- lists its links). A new memory needs no entry: no one kept it.
-- AUTOINCREMENT: positions are never reused, so a reader's position stays
-- meaningful after the log is trimmed; a reader that finds its next entry
-- trimmed away drops everything it kept.
-- IF NOT EXISTS: the migration tests rewind user_version and replay the
-- later migrations.
CREATE TABLE IF NOT EXISTS memory_changes (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL
);

CREATE TRIGGER IF NOT EXISTS memory_changes_update
AFTER UPDATE OF id, project_path, session_id, kind, text, ref, source, trust, forgotten, superseded_by, created_at ON memories BEGIN
    INSERT INTO memory_changes (memory_id) VALUES (old.id);
    INSERT INTO memory_changes (memory_id) SELECT new.id WHERE new.id <> old.id;
END;

CREATE TRIGGER IF NOT EXISTS memory_changes_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memory_changes (memory_id) VALUES (old.id);
END;

CREATE TRIGGER IF NOT EXISTS memory_changes_link_insert AFTER INSERT ON memory_links BEGIN
    INSERT INTO memory_changes (memory_id) VALUES (new.memory_id);
END;

CREATE TRIGGER IF NOT EXISTS memory_changes_link_update AFTER UPDATE ON memory_links BEGIN
    INSERT INTO memory_changes (memory_id) VALUES (old.memory_id);
    INSERT INTO memory_changes (memory_id) SELECT new.memory_id WHERE new.memory_id <> old.memory_id;
END;

CREATE TRIGGER IF NOT EXISTS memory_changes_link_delete AFTER DELETE ON memory_links BEGIN
    INSERT INTO memory_changes (memory_id) VALUES (old.memory_id);
END;

-- The log keeps its last 10,000 entries, trimmed every 1,000.
CREATE TRIGGER IF NOT EXISTS memory_changes_trim AFTER INSERT ON memory_changes WHEN new.seq % 1000 = 0 BEGIN
    DELETE FROM memory_changes WHERE seq <= new.seq - 10000;
END;
