-- Forgotten memories leave the FTS5 index (issue 6). memories_fts is an
-- external-content table: a 'delete' must name a row that is indexed, with
-- the values it was indexed with, or the index is corrupted. So the
-- triggers of 0001 are replaced by ones that know about `forgotten`: the
-- index holds exactly the memories that are not forgotten, whichever way a
-- row is updated or deleted.

DROP TRIGGER memories_ad;
DROP TRIGGER memories_au;

CREATE TRIGGER memories_ad AFTER DELETE ON memories WHEN old.forgotten = 0 BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text, kind) VALUES ('delete', old.id, old.text, old.kind);
END;

-- Text or kind changed on a memory that stays remembered.
CREATE TRIGGER memories_au AFTER UPDATE OF text, kind ON memories
WHEN old.forgotten = 0 AND new.forgotten = 0 BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text, kind) VALUES ('delete', old.id, old.text, old.kind);
    INSERT INTO memories_fts(rowid, text, kind) VALUES (new.id, new.text, new.kind);
END;

CREATE TRIGGER memories_forget AFTER UPDATE OF forgotten ON memories
WHEN old.forgotten = 0 AND new.forgotten <> 0 BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text, kind) VALUES ('delete', old.id, old.text, old.kind);
END;

CREATE TRIGGER memories_remember AFTER UPDATE OF forgotten ON memories
WHEN old.forgotten <> 0 AND new.forgotten = 0 BEGIN
    INSERT INTO memories_fts(rowid, text, kind) VALUES (new.id, new.text, new.kind);
END;
