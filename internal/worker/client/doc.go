// Package client talks to the resident process (internal/worker) from
// handlers and the CLI: the query framing's calls with a deadline (KNN,
// Embed, Health), and EnsureRunning, which starts a detached worker when none
// runs. It imports only the standard library, config, buildinfo, wire and flock, never
// hugot or the store, so linking it keeps a hook small and fast.
//
// The protocol (both framings of the socket) is documented in package
// internal/wire.
package client
