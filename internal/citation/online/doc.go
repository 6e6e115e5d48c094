// Package online confirms cited paper ids against the registries' public
// APIs: Crossref for DOIs, PubMed's E-utilities for PMIDs and PMCIDs,
// arXiv's API for arXiv ids and Open Library for ISBNs. It answers whether
// the id exists and the title the registry gives. Each request has a
// timeout; the base URLs come from the environment (VIBE_CROSSREF_URL,
// VIBE_PUBMED_URL, VIBE_ARXIV_URL, VIBE_OPENLIBRARY_URL), so tests point
// them at a loopback server. It imports the standard library, citation
// and record; only the CLI links it (`vibe citations --online`): no hook
// ever reaches the network. Caching the answers is the caller's (the
// store's citation_checks).
package online
