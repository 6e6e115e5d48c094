// Package worker is vibe's resident process (the binary keeps its first
// name, vibe-embed-worker, for the installed plugins that start it): a
// struct with Open(ctx) and Close() that, for one VIBE_HOME, takes the
// worker lock, keeps the database open and does three jobs on one Unix
// socket (VIBE_HOME/worker.sock, 0600; both framings are documented in
// internal/wire, and socket.go tells them apart by a connection's first
// byte):
//
//   - hook host (hookhost.go): the per-event hook binaries (internal/relay)
//     send each event here, and it runs the hook's handler (internal/handler
//     through hookrun) on the database it holds open, which spares every
//     hook the open, the migrations check and the WAL checkpoint a last
//     connection pays on close. Each handler runs under the process's
//     cancel context and is counted: Close answers the hooks in flight,
//     cancels the handlers still running (one that overran its time budget
//     was answered for but may still be working) and waits for them before
//     it closes the database. What a handler leaves for after its reply
//     (hookrun.Env.AfterReply, afterreply.go) runs on the connection's
//     goroutine once the reply is written, so Close waits for it too.
//   - embed loop (embedloop.go): drains embed_queue in batches with retries
//     and backoff, yields the model to waiting queries between chunks, and
//     unloads the model when idle (model.go); it also replays what hooks
//     spooled while the database refused them, and links the memories
//     hooks wrote with those they contradict (recall.CheckPending, in
//     memorycheck.go), off the hook path.
//   - query service (query.go): health, warm, embed and knn for recall and
//     the CLI (internal/worker/client).
//
// It also writes daily logs with retention (log.go), reopens the database
// when its file was deleted or replaced under it (one stat per hook), and
// notices when its own executable was replaced by a new build (replaced.go):
// the new build's hook clients do not trust this process, so it steps aside
// and cmd/vibe-embed-worker starts the new file.
//
// # Connections
//
// One writer and a read pool. The writer is one connection (store.Open:
// WAL, _txlock=immediate, the hook path's busy timeout): every hook's
// handler reads and writes through it (one Env store), as do the embed
// loop's writes and the spool replay, so SQLite's single writer is never
// contended inside the process. Beside it, a read-only handle of
// DefaultReadConns connections (WAL readers block neither each other nor
// the writer) serves the query service (knn scans, health counts) and the
// embed loop's reads (the current model, the next batch). Before, all of it
// shared the one connection, and a KNN scan held up every hook behind it.
// Measured on 2 shared cores (BenchmarkHookReadsBesideKNN, 5000 vectors, a
// KNN every 2 ms and an 8-vector write every 2 ms): a hook-shaped read (FTS5
// search + session lookup) waited p50 5.5-6.1 ms with KNN on the writer,
// 178-183 µs with KNN on the pool. Hook reads themselves would gain from the
// pool too (BenchmarkHookReadsUnderEmbedWrites: p99 8-10 ms on one
// connection, 0.9-1.4 ms on a pool, p50 120 → 100 µs, writes/s unchanged),
// but a handler reads and writes through one store, so that needs the store
// to route its reads (left for the store's owners).
//
// # Resting
//
// A resting worker costs nothing: no goroutine of its own wakes up while no
// hook, query or work comes. The embed loop blocks until a connection
// ends (kickLoop) and then does one round of work PollInterval later (new
// items, spooled records, memories to check, a replaced database or
// executable); it arms a timer only for work it knows of: more items, a
// retry in backoff, a download's backoff, the model's idle unload, the
// idle exit. Go's own monitor thread sleeps deeply once every goroutine
// waits. What the hooks of another process queue (vibe-hook when the
// worker was absent, a CLI command) is seen at the next connection, or at
// start. After Config.IdleExit with no connection and no work (30 minutes
// by default: worker_idle_exit_sec, VIBE_WORKER_IDLE_EXIT) Idle is closed
// and the worker binary exits; the next hook's client starts it again
// (internal/relay) and runs that one event itself meanwhile. make bench
// reports the resting worker's wake-ups, CPU and memory (bench/idle.go).
//
// The worker runs Go as Go starts it. It once ran on one processor with
// the runtime's monitor on a 10 ms tick (GODEBUG schedtrace, set by
// re-executing itself): hooks a few hundredths of the empty binary's time
// faster, at about 100 wake-ups and 3-4 ms of CPU a second while resting.
//
// The writer keeps up to memoryCache memory records the hooks read
// (store.Options.MemoryCache): a prompt's recall reads the same fifty
// vector hits again and again, which cost ~250 µs a prompt after an idle
// pause; kept, they cost one read of the change log.
//
// It runs whatever embed.Loader its caller passes: this package must not
// import hugot (cmd/vibe-embed-worker passes hugotembed.Load), and hooks
// must import package client, not this one.
//
// Why it is safe to kill: items are never marked as taken. A batch is read,
// embedded, and then stored in one transaction that replaces the vector and
// marks the row done together, so a worker killed at any instant leaves each
// item pending (to be embedded again) or done with exactly one vector.
package worker
