-- Trust settles a conflict (issue 34 item 5): superseded_by names the
-- linked memory that outranks a row, the more trusted one first and, of
-- two equally trusted, the newer (record.Outranks; store.Tx.resupersede is
-- the same statement). Links made before 0018 were settled by recency
-- alone, so a newer model-sourced memory could still supersede an older
-- paper's; this settles every linked memory once by the new rule.
-- Idempotent: the migration tests rewind user_version and replay it.
UPDATE memories SET superseded_by = COALESCE(
    (SELECT o.id FROM memory_links l JOIN memories o ON o.id = l.other_id
     WHERE l.memory_id = memories.id AND o.forgotten = 0 AND o.trust >= memories.trust
       AND (o.created_at > memories.created_at OR (o.created_at = memories.created_at AND o.id > memories.id))
     ORDER BY o.created_at DESC, o.id DESC LIMIT 1),
    (SELECT o.id FROM memory_links l JOIN memories o ON o.id = l.other_id
     WHERE l.memory_id = memories.id AND o.forgotten = 0 AND o.trust > memories.trust
       AND (o.created_at < memories.created_at OR (o.created_at = memories.created_at AND o.id < memories.id))
     ORDER BY o.created_at DESC, o.id DESC LIMIT 1))
WHERE id IN (SELECT memory_id FROM memory_links);
