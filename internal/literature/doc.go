// Package literature holds the literature engine's code side: the registry
// of scientific sources (blueprints/literature-registry.json), the
// detection of literature searches in finished tool calls, the domain's
// recommended sources and gate L-1 (no research direction before a search,
// a warning after cycles without one). It reads embedded files only and
// imports record for the row type Search.Record builds (not store) and
// citation for the paper ids (one scanner for the detector and the
// citation audit); it must not open the database, touch the project's
// files, exec programs or reach the network, because Detect runs on every
// PostToolUse. Recording a search and deciding a hook's reply belong to
// the callers.
//
// # What counts as a search
//
// Detect follows skill/vibe/protocols/literature-precheck.md: web searches,
// fetches of scholarly pages, literature MCP tools and K-Dense skills, and
// paper ids (DOI, PMID, PMCID, arXiv) in the output of Read, Grep and
// Bash. A search also records the ids it retrieved (Search.Retrieved: in
// what the tool returned, never in the query or command the agent wrote),
// which the citation audit counts as read. Every WebSearch is recorded, but one with nothing scholarly about it
// (no scholarly term or source in the query, no scholarly host or paper id
// in its results) is stored as uncounted and does not satisfy L-1, so
// "pandas read_csv dtype" is not prior-art research. Reading the project's
// own research files is never a search: their citations are the
// researcher's own.
//
// # Registry
//
// The registry lists each source under an id (the ids domain configs use)
// with its name, categories, access (free, subscription, mixed), API and
// API type, coverage, URL, hosts, MCP server and K-Dense skill, plus
// publisher hosts outside the catalogue (doi.org, nature.com, …). The host
// list Detect recognises is derived from it; its "total" equals the number
// of databases (a test holds it). The JavaScript reference claimed 108 and
// shipped 102 with an undeclared category; here every category an entry
// uses is declared.
//
// # Direction writes and cycles
//
// A direction write is a document whose name contains "direction", a
// "## Research direction" section, or a tree node of node_type
// "direction" (IsDirection; IsDirectionChange compares with the old
// content). A cycle, for the drought warning, is CycleActions recorded
// actions, since hooks cannot see the agent's OTAE cycle boundaries.
package literature
