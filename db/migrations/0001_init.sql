-- vibe schema, version 1: the blueprint's tables (section 5.1) keyed by
-- Claude Code's session_id, plus advisories (append-only verdicts),
-- provenance (one row per file a tool call touched) and memories with FTS5
-- and a vec0 table. Times are INTEGER unix milliseconds (UTC).

CREATE TABLE sessions (
    id                TEXT PRIMARY KEY,          -- Claude Code's session_id
    project_path      TEXT NOT NULL,
    started_at        INTEGER NOT NULL,
    last_seen_at      INTEGER NOT NULL,
    ended_at          INTEGER,
    end_reason        TEXT,
    start_count       INTEGER NOT NULL DEFAULT 0, -- SessionStart fires again on resume, clear, compact
    last_source       TEXT,
    transcript_path   TEXT,
    narrative_summary TEXT,
    narrative_turn    TEXT,                      -- prompt_id the checkpoint was made for (idempotent per turn)
    total_actions     INTEGER NOT NULL DEFAULT 0,
    claims_created    INTEGER NOT NULL DEFAULT 0,
    claims_killed     INTEGER NOT NULL DEFAULT 0,
    gates_passed      INTEGER NOT NULL DEFAULT 0,
    gates_failed      INTEGER NOT NULL DEFAULT 0,
    stop_blocks       INTEGER NOT NULL DEFAULT 0  -- consecutive Stop blocks in this session
);
CREATE INDEX idx_sessions_project ON sessions(project_path, started_at);

CREATE TABLE spine_entries (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    project_path   TEXT NOT NULL,
    ts             INTEGER NOT NULL,
    action_type    TEXT NOT NULL,
    tool_name      TEXT NOT NULL,
    tool_use_id    TEXT NOT NULL DEFAULT '',
    input_summary  TEXT NOT NULL DEFAULT '',
    output_summary TEXT NOT NULL DEFAULT '',
    input_sha256   TEXT NOT NULL DEFAULT '',
    output_sha256  TEXT NOT NULL DEFAULT '',
    duration_ms    INTEGER,
    agent_role     TEXT,
    agent_type     TEXT,
    gate_result    TEXT                          -- PASS/WARN/FAIL/NULL
);
CREATE INDEX idx_spine_session ON spine_entries(session_id, ts);
CREATE INDEX idx_spine_project ON spine_entries(project_path, ts);
CREATE INDEX idx_spine_action ON spine_entries(action_type);
CREATE UNIQUE INDEX idx_spine_tool_use ON spine_entries(session_id, tool_use_id) WHERE tool_use_id <> '';

CREATE TABLE provenance (
    id          INTEGER PRIMARY KEY,
    spine_id    INTEGER NOT NULL REFERENCES spine_entries(id),
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    path        TEXT NOT NULL,                   -- project-relative, or absolute outside the project
    op          TEXT NOT NULL,                   -- write, read, delete, exec
    sha256      TEXT,                            -- of the file after a write
    size        INTEGER,
    ts          INTEGER NOT NULL
);
CREATE INDEX idx_provenance_spine ON provenance(spine_id);
CREATE INDEX idx_provenance_path ON provenance(path);

CREATE TABLE claim_events (
    id           INTEGER PRIMARY KEY,
    claim_id     TEXT NOT NULL,
    session_id   TEXT NOT NULL REFERENCES sessions(id),
    project_path TEXT NOT NULL,
    event_type   TEXT NOT NULL,  -- CREATED, PROMOTED, KILLED, DISPUTED, VERIFIED, R2_REVIEWED,
                                 -- GATE_PASSED, GATE_FAILED, CONFIDENCE_UPDATED, CONFOUNDER_TESTED
    old_status   TEXT,
    new_status   TEXT,
    confidence   REAL,
    r2_verdict   TEXT,
    kill_reason  TEXT,
    gate_id      TEXT,
    narrative    TEXT,
    source_ref   TEXT,           -- file and tool_use_id that produced the event
    ts           INTEGER NOT NULL
);
CREATE INDEX idx_claims_id ON claim_events(project_path, claim_id);
CREATE INDEX idx_claims_session ON claim_events(session_id);

CREATE TABLE r2_reviews (
    id              INTEGER PRIMARY KEY,
    review_id       TEXT NOT NULL UNIQUE,
    session_id      TEXT NOT NULL REFERENCES sessions(id),
    project_path    TEXT NOT NULL,
    review_mode     TEXT NOT NULL,   -- INLINE/FORCED/BATCH/SHADOW/BRAINSTORM/...
    claims_reviewed TEXT NOT NULL,   -- JSON array of claim ids
    j0_score        INTEGER,
    j0_dimensions   TEXT,            -- JSON object
    sfi_injected    INTEGER NOT NULL DEFAULT 0,
    sfi_caught      INTEGER NOT NULL DEFAULT 0,
    sfi_missed      TEXT,            -- JSON array of missed fault ids/categories
    r2_weaknesses   TEXT,            -- JSON array
    source_path     TEXT,
    ts              INTEGER NOT NULL
);
CREATE INDEX idx_r2_session ON r2_reviews(session_id);
CREATE INDEX idx_r2_project ON r2_reviews(project_path, ts);

CREATE TABLE serendipity_seeds (
    id                    INTEGER PRIMARY KEY,
    seed_id               TEXT NOT NULL,
    project_path          TEXT NOT NULL,
    created_session       TEXT NOT NULL REFERENCES sessions(id),
    status                TEXT NOT NULL DEFAULT 'PENDING_TRIAGE',
    source                TEXT NOT NULL,
    score                 REAL,
    causal_question       TEXT,
    discriminating_test   TEXT,
    fallback_test         TEXT,
    salvaged_from         TEXT,      -- claim id, for SALVAGED_FROM_R2 seeds
    narrative             TEXT,
    last_reviewed_session TEXT,
    sessions_pending      INTEGER NOT NULL DEFAULT 0,
    escalated             INTEGER NOT NULL DEFAULT 0,
    resolution            TEXT,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    UNIQUE (project_path, seed_id)
);
CREATE INDEX idx_seeds_status ON serendipity_seeds(project_path, status);

CREATE TABLE gate_checks (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT REFERENCES sessions(id),   -- NULL when run from the CLI outside a session
    project_path   TEXT NOT NULL,
    gate_id        TEXT NOT NULL,
    claim_id       TEXT,
    status         TEXT NOT NULL,                  -- PASS/WARN/FAIL
    checks_passed  INTEGER NOT NULL DEFAULT 0,
    checks_warned  INTEGER NOT NULL DEFAULT 0,
    checks_failed  INTEGER NOT NULL DEFAULT 0,
    details        TEXT,                           -- JSON
    inputs         TEXT,                           -- JSON array of files read, with hashes
    decision_hash  TEXT,
    ts             INTEGER NOT NULL
);
CREATE INDEX idx_gates_session ON gate_checks(session_id);
CREATE INDEX idx_gates_claim ON gate_checks(project_path, claim_id, gate_id);

CREATE TABLE literature_searches (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    project_path   TEXT NOT NULL,
    query          TEXT NOT NULL,
    sources        TEXT NOT NULL,     -- JSON array
    results_count  INTEGER,
    relevant_count INTEGER,
    key_papers     TEXT,              -- JSON array of DOI/PMID/arXiv ids
    search_layer   TEXT NOT NULL,     -- MCP / SKILL / RAG / MANUAL / WEBSEARCH / WEBFETCH
    gate_context   TEXT,
    tool_use_id    TEXT,
    ts             INTEGER NOT NULL
);
CREATE INDEX idx_lit_session ON literature_searches(session_id);
CREATE INDEX idx_lit_project ON literature_searches(project_path, ts);

CREATE TABLE observer_alerts (
    id           INTEGER PRIMARY KEY,
    project_path TEXT NOT NULL,
    session_id   TEXT,
    check_name   TEXT NOT NULL,
    level        TEXT NOT NULL CHECK (level IN ('INFO','WARN','HALT')),
    message      TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,     -- same open alert is not raised twice
    resolved     INTEGER NOT NULL DEFAULT 0,
    resolved_at  INTEGER,
    resolution   TEXT,
    created_at   INTEGER NOT NULL
);
CREATE INDEX idx_observer_project ON observer_alerts(project_path, resolved);
CREATE UNIQUE INDEX idx_observer_open ON observer_alerts(project_path, fingerprint) WHERE resolved = 0;

CREATE TABLE calibration_log (
    id                   INTEGER PRIMARY KEY,
    claim_id             TEXT NOT NULL,
    project_path         TEXT NOT NULL,
    predicted_confidence REAL NOT NULL,
    actual_outcome       TEXT NOT NULL,   -- VERIFIED/REJECTED/ARTIFACT/CONFOUNDED/ROBUST
    r2_verdict           TEXT,
    stage_at_resolution  INTEGER,
    session_id           TEXT NOT NULL REFERENCES sessions(id),
    ts                   INTEGER NOT NULL
);
CREATE INDEX idx_calibration_claim ON calibration_log(project_path, claim_id);

CREATE TABLE prompt_log (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id),
    prompt_id     TEXT,
    agent_role    TEXT,
    prompt_sha256 TEXT NOT NULL,    -- never the prompt text
    prompt_chars  INTEGER NOT NULL,
    ts            INTEGER NOT NULL
);
CREATE INDEX idx_prompt_session ON prompt_log(session_id);

-- Verdicts, appended and never updated (the integrity seed's advisory log).
CREATE TABLE advisories (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT,
    project_path   TEXT NOT NULL,
    event          TEXT NOT NULL,
    tool_use_id    TEXT,
    check_name     TEXT NOT NULL,
    result         TEXT NOT NULL CHECK (result IN ('PASS','WARN','BLOCK','HARD_BLOCK')),
    severity       TEXT NOT NULL,
    reason         TEXT NOT NULL,
    evidence       TEXT,            -- JSON
    recommendation TEXT,
    input          TEXT,            -- canonical JSON
    decision_hash  TEXT NOT NULL,
    ts             INTEGER NOT NULL
);
CREATE INDEX idx_advisories_session ON advisories(session_id, ts);
CREATE INDEX idx_advisories_hash ON advisories(decision_hash);
CREATE TRIGGER advisories_no_update BEFORE UPDATE ON advisories
BEGIN SELECT RAISE(ABORT, 'advisories are append-only'); END;
CREATE TRIGGER advisories_no_delete BEFORE DELETE ON advisories
BEGIN SELECT RAISE(ABORT, 'advisories are append-only'); END;

-- What recall can return: narrative summaries, decisions, gate failures,
-- claim events, seeds, actions and notes a person adds.
CREATE TABLE memories (
    id           INTEGER PRIMARY KEY,
    project_path TEXT NOT NULL,
    session_id   TEXT,
    kind         TEXT NOT NULL,
    text         TEXT NOT NULL,
    ref          TEXT,             -- source reference: file, tool_use_id, claim id, import ref
    source       TEXT NOT NULL,    -- hook, cli, import
    trust        REAL NOT NULL DEFAULT 1.0,
    content_hash TEXT NOT NULL,
    forgotten    INTEGER NOT NULL DEFAULT 0,
    conflicts_with INTEGER,
    created_at   INTEGER NOT NULL
);
CREATE INDEX idx_memories_project ON memories(project_path, created_at);
CREATE UNIQUE INDEX idx_memories_dedup ON memories(project_path, content_hash);

CREATE VIRTUAL TABLE memories_fts USING fts5(
    text, kind UNINDEXED, content='memories', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, text, kind) VALUES (new.id, new.text, new.kind);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text, kind) VALUES ('delete', old.id, old.text, old.kind);
END;
CREATE TRIGGER memories_au AFTER UPDATE OF text, kind ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text, kind) VALUES ('delete', old.id, old.text, old.kind);
    INSERT INTO memories_fts(rowid, text, kind) VALUES (new.id, new.text, new.kind);
END;

-- Text waiting for a vector. One row per memory and model; the worker turns
-- it into exactly one vec_memories row and marks it done in one transaction.
CREATE TABLE embed_queue (
    id              INTEGER PRIMARY KEY,
    memory_id       INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    model           TEXT NOT NULL DEFAULT '',   -- '' = whatever model is current when it is embedded
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','done','failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX idx_embed_pending ON embed_queue(next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX idx_embed_memory ON embed_queue(memory_id);

-- Vectors: all-MiniLM-L6-v2 shaped (384 dims, L2-normalised, so L2 ranks like
-- cosine). The project is the partition key; each row records its model, and
-- KNN always filters on the current model so two models never mix.
CREATE VIRTUAL TABLE vec_memories USING vec0(
    memory_id INTEGER PRIMARY KEY,
    project_path TEXT PARTITION KEY,
    embedding FLOAT[384],
    model TEXT,
    kind TEXT,
    created_at INTEGER
);

-- Key/value facts about this database (current model, worker heartbeats).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The last ledger content vibe saw per project and path, so PostToolUse can
-- turn any change (by Write, Edit or Bash) into claim events.
CREATE TABLE ledger_snapshots (
    project_path TEXT NOT NULL,
    path         TEXT NOT NULL,     -- project-relative
    content      BLOB NOT NULL,
    sha256       TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (project_path, path)
);
