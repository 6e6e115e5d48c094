// Package store is the only package that speaks SQL. It opens vibe's one
// SQLite database with the pragmas hooks need under concurrency (WAL,
// busy_timeout, synchronous=NORMAL, foreign keys, immediate transactions),
// loads sqlite-vec, applies the embedded migrations once per schema version,
// and offers one file of methods per entity. It must not import cobra, hugot
// or any hook handler.
package store
