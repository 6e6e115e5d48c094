// Package worker is the embed daemon: a struct with Open(ctx) and Close()
// that, for one VIBE_HOME, takes the worker lock, keeps the database open
// (which also spares every hook the WAL checkpoint a last connection pays on
// close), drains embed_queue in batches with retries and backoff, serves
// the socket protocol described in package client (embed, knn, health),
// writes daily logs with retention, and unloads the model when idle. It
// runs whatever embed.Loader its caller passes: this package must not
// import hugot (cmd/vibe-embed-worker passes hugotembed.Load), and hooks
// must import package client, not this one.
//
// It hosts the hooks: a per-event client (internal/relay) sends the event
// over the socket, which lives in VIBE_HOME (0700), and trusts only this
// program as the socket's peer. Before each hook it checks, with one stat,
// that the database file is still the one it opened, and reopens it (and
// tells the next hook's user) when it was deleted or replaced; each poll
// also replays what hooks spooled while the database refused them and
// links the memories hooks wrote with those they contradict
// (recall.CheckPending), off the hook path.
//
// Why it is safe to kill: items are never marked as taken. A batch is read,
// embedded, and then stored in one transaction that replaces the vector and
// marks the row done together, so a worker killed at any instant leaves each
// item pending (to be embedded again) or done with exactly one vector.
package worker
