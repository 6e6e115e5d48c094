// Package store is the only package that speaks SQL. It opens vibe's one
// SQLite database with the pragmas hooks need under concurrency (WAL,
// busy_timeout, synchronous=NORMAL, foreign keys, immediate transactions),
// loads sqlite-vec, applies the embedded migrations once per schema version,
// and offers one file of methods per entity. It holds only SQL: the records
// it reads and writes are internal/store/record's, and it imports no policy
// package (gate, a hook handler, calibrate, observer, cobra, hugot …).
// Its vibe imports are db, fault, privacy (with its lazyre), record and
// verdict (the std-only decision envelope the advisory log stores);
// TestNoPolicyImports fails on any other. Consumers outside the CLI and the
// hook handlers take the small interface they declare, which *Store and
// *Tx satisfy (see the assertions in interfaces_test.go).
//
// Every text is scrubbed (internal/privacy) at this boundary, and the files
// are private (database, WAL and shared memory 0600). A Record is what one
// hook call writes; Spool keeps it in a JSON-lines file when the database
// refuses it, and ReplaySpool writes it later. Replaced tells a process
// holding the database open that its file was deleted or swapped.
//
// Statements run with their context's values but not its cancellation,
// and Tx is BEGIN IMMEDIATE … COMMIT on one connection rather than an
// sql.Tx (conn.go): under a cancellable context database/sql and the
// driver start a goroutine per transaction, per Rows and per Exec. A
// context already done is refused at the next statement.
//
// A long-lived handle may keep the memory records it read
// (Options.MemoryCache, memcache.go): MemoriesByID and a project's
// SearchMemories then read only the records they do not keep, after one
// read of the memory_changes log (migration 0013) drops those any process
// changed since. The answers are the queries' own (TestMemoryCache*).
package store
