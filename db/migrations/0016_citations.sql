-- The citation audit (issue 34 item 1): a paper id cited in findings, the
-- claim ledger, a review or a direction is checked against what the project
-- actually retrieved.
--
-- literature_papers: every paper id a recorded literature search retrieved
-- (its results, a fetched page's URL and text, a literature tool's output;
-- never the query the agent wrote), one row each, so a cited id is looked
-- up by index and a search returning a hundred papers is not cut to the
-- twenty of key_papers.
CREATE TABLE IF NOT EXISTS literature_papers (
    search_id    INTEGER NOT NULL REFERENCES literature_searches(id),
    project_path TEXT NOT NULL,
    paper_id     TEXT NOT NULL,
    PRIMARY KEY (search_id, paper_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_literature_papers_id ON literature_papers(project_path, paper_id);

-- The searches recorded before: their key papers, from the layers whose
-- ids came from what the tool returned (a web search's results, a fetched
-- page, a literature tool). A MANUAL search's ids may have been on the
-- command line, so they are not taken.
INSERT OR IGNORE INTO literature_papers (search_id, project_path, paper_id)
SELECT s.id, s.project_path, j.value
FROM literature_searches s, json_each(s.key_papers) j
WHERE s.key_papers IS NOT NULL AND json_valid(s.key_papers)
  AND s.search_layer IN ('WEBSEARCH', 'WEBFETCH', 'MCP', 'RAG');

-- Papers the researcher holds and added by hand (vibe citations add; the
-- permission policy asks the user before an agent runs it).
CREATE TABLE IF NOT EXISTS added_papers (
    project_path TEXT NOT NULL,
    paper_id     TEXT NOT NULL,
    title        TEXT,
    note         TEXT,
    ts           INTEGER NOT NULL,
    PRIMARY KEY (project_path, paper_id)
) WITHOUT ROWID;

-- The online check's cache (vibe citations --online): what Crossref,
-- PubMed or arXiv answered for an id. Ids are global, not per project.
CREATE TABLE IF NOT EXISTS citation_checks (
    paper_id TEXT PRIMARY KEY,
    found    INTEGER NOT NULL CHECK (found IN (0, 1)),
    title    TEXT,
    source   TEXT NOT NULL,
    ts       INTEGER NOT NULL
) WITHOUT ROWID;
