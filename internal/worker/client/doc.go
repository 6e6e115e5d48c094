// Package client talks to the embed worker from hooks and the CLI: the wire
// types of the worker's socket protocol, calls with a deadline (KNN, Embed,
// Health), and EnsureRunning, which starts a detached worker when none
// runs. It imports only the standard library, config and flock, never
// hugot or the store, so linking it keeps a hook small and fast.
//
// # Protocol
//
// The worker listens on a Unix socket (config.Paths.Socket, mode 0600). A
// request is one JSON object on one line; the reply is one JSON object on
// one line; a connection may carry several requests in turn. Requests:
//
//	{"op":"health"}
//	{"op":"warm"}      (load the model in the background; answers at once)
//	{"op":"embed","texts":["…","…"]}
//	{"op":"knn","project":"/abs/root","text":"…","k":5,"kinds":["decision"]}
//
// Replies carry "ok"; on success the op's field (health, vectors, hits and
// model), on failure "error" (a sentence saying what is wrong and how to
// fix it) and "code" (no_model, invalid, unavailable, internal).
package client
