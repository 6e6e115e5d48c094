-- One sign bit per dimension of every vec_memories vector (48 bytes for 384
-- dims, a 32nd of the float row): KNN scans this table by Hamming distance
-- and reranks a shortlist by the exact float distance, which keeps a query
-- over 100k vectors in milliseconds (issue 18). Rows follow vec_memories'
-- (written and deleted with them by the store; vec0 tables take no
-- triggers). Zero padding (a 256-dim model stored in 384 dims) sets no bit,
-- so it changes no Hamming distance.
--
-- The model is a second partition key, not a metadata column as in
-- vec_memories: vec0 keeps only 12 bytes of a text metadata value in its
-- chunk and looks longer ones up row by row ("potion-base-8M" is 14), which
-- made a 50k-vector scan ~15x slower; a partition key costs nothing per row.
CREATE VIRTUAL TABLE vec_memories_bits USING vec0(
    memory_id INTEGER PRIMARY KEY,
    project_path TEXT PARTITION KEY,
    model TEXT PARTITION KEY,
    embedding BIT[384],
    kind TEXT
);
INSERT INTO vec_memories_bits (memory_id, project_path, embedding, model, kind)
SELECT memory_id, project_path, vec_quantize_binary(embedding), model, kind FROM vec_memories;

-- The float vectors again, in an ordinary table, for the rerank: a point
-- lookup in vec0 costs ~0.1-1 ms (it opens its chunk), a B-tree row a few
-- microseconds, and a shortlist is 100+ rows. It duplicates vec_memories'
-- floats (1.5 KB a vector); vec_memories stays the exact reference.
CREATE TABLE vec_floats (
    memory_id INTEGER PRIMARY KEY,
    embedding BLOB NOT NULL
);
INSERT INTO vec_floats (memory_id, embedding) SELECT memory_id, embedding FROM vec_memories;
