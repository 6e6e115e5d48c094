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
// Why it is safe to kill: items are never marked as taken. A batch is read,
// embedded, and then stored in one transaction that replaces the vector and
// marks the row done together, so a worker killed at any instant leaves each
// item pending (to be embedded again) or done with exactly one vector.
package worker
