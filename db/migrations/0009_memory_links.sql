-- Superseding and many-to-many conflicts (issue 18). A memory may
-- contradict several others, so conflicts move from the one-column
-- memories.conflicts_with (0001; no longer written) to a link table that
-- holds each link in both directions, so the links of a memory are one
-- primary-key range whichever side it was added on.
CREATE TABLE memory_links (
    memory_id  INTEGER NOT NULL,
    other_id   INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (memory_id, other_id)
) WITHOUT ROWID;

INSERT OR IGNORE INTO memory_links (memory_id, other_id, created_at)
SELECT id, conflicts_with, created_at FROM memories WHERE conflicts_with IS NOT NULL;
INSERT OR IGNORE INTO memory_links (memory_id, other_id, created_at)
SELECT conflicts_with, id, created_at FROM memories WHERE conflicts_with IS NOT NULL;

-- superseded_by is the newest memory, not forgotten, that contradicts this
-- one and is newer than it (created_at, then id): recall ranks a
-- superseded memory down and points to it. It is derived from the links
-- and kept on the row so that ranking needs no join.
ALTER TABLE memories ADD COLUMN superseded_by INTEGER;

UPDATE memories SET superseded_by = (
    SELECT o.id FROM memory_links l JOIN memories o ON o.id = l.other_id
    WHERE l.memory_id = memories.id AND o.forgotten = 0
      AND (o.created_at > memories.created_at OR (o.created_at = memories.created_at AND o.id > memories.id))
    ORDER BY o.created_at DESC, o.id DESC LIMIT 1)
WHERE id IN (SELECT memory_id FROM memory_links);

-- The contradiction check of a memory a hook wrote runs in the worker, off
-- the hook path (it costs milliseconds on a large store): such memories
-- are stored unchecked, and the worker links them and clears the mark.
-- What was stored before this migration counts as checked.
ALTER TABLE memories ADD COLUMN unchecked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_memories_unchecked ON memories(id) WHERE unchecked = 1;
