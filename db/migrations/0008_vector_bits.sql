-- One sign bit per dimension of every vec_memories vector (48 bytes for 384
-- dims, a 32nd of the float row): KNN scans this table by Hamming distance
-- and reranks a shortlist by the exact float distance, which keeps a query
-- over 100k vectors in milliseconds (issue 18). Rows follow vec_memories'
-- (written and deleted with them by the store; vec0 tables take no
-- triggers). Zero padding (a 256-dim model stored in 384 dims) sets no bit,
-- so it changes no Hamming distance.
CREATE VIRTUAL TABLE vec_memories_bits USING vec0(
    memory_id INTEGER PRIMARY KEY,
    project_path TEXT PARTITION KEY,
    embedding BIT[384],
    model TEXT,
    kind TEXT
);
INSERT INTO vec_memories_bits (memory_id, project_path, embedding, model, kind)
SELECT memory_id, project_path, vec_quantize_binary(embedding), model, kind FROM vec_memories;
