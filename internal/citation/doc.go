// Package citation holds the citation audit: reading paper ids (DOI, PMID,
// PMCID, arXiv id, ISBN) out of text, judging them offline, and telling a
// cited paper that was retrieved from one that may have been invented. It
// imports the standard library, record (the sources of a retrieved paper)
// and verdict; it must not open the database, read the project's files or
// reach the network (the online check is the sub-package online, which
// only the CLI links), because Scan runs on every tool output and the
// audit in the hooks.
//
// # Ids
//
// Scan is one pass with no regular expressions. Ids are canonical, so a
// cited id and a retrieved one compare as strings: a DOI lower-cased
// without its doi: label or resolver URL (10.1038/nbt.3117), PMID:25513782,
// PMC4320685, arXiv:1706.03762 (version dropped) or arXiv:hep-th/9901001,
// ISBN:9780262033848 (an ISBN-10 with a valid check digit is its ISBN-13).
// An ISBN needs its label (ISBN, ISBN-13: …), or any long number would be
// one. Parse reads one id as a person types it.
//
// # Offline checks
//
// Check finds what makes an id impossible. By its form, which nothing
// overrules: a DOI registrant code that is not 4-9 digits, an ISBN check
// digit, an ISBN-13 outside 978/979, an arXiv month 13, a YYMM.NNNN id
// before April 2007 or with the number length of the other period, an old
// archive/YYMMNNN id outside August 1991 to March 2007, a PMID 0. By what
// vibe knows of the registries, which a search that retrieved the id
// overrules (vibe's knowledge may be out of date; the retrieval is not): a
// test or placeholder DOI prefix (10.5555, 10.5072, 10.9999) or one
// starting with 0, a PMID or PMCID above what PubMed could have assigned by
// the clock's year (with a wide margin), an arXiv month after the clock's,
// an unknown old-scheme archive.
//
// # The audit
//
// An id is retrieved when a recorded literature search, fetch or MCP call
// returned it (the store's literature_papers: ids in a search's results,
// a fetched page's URL and text, a literature tool's output, never in the
// query the agent wrote) or the researcher added it (vibe citations add);
// unretrieved otherwise; invalid when Check finds a problem (StatusOf).
// The hooks warn once per id, file and session when a findings file, the
// claim ledger, a review or a direction is written citing an id that is not
// retrieved (WrittenVerdict), and block the promotion of a claim whose own
// entry in the ledger cites one (PromotionVerdict). Audit lists a
// project's citations for vibe citations, the viewer and RECORD.md.
package citation
