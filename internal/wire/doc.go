// Package wire is the protocol of the resident process's socket
// (VIBE_HOME/worker.sock, mode 0600, served by internal/worker): two
// framings on the one socket, told apart by a connection's first byte
// (FramingOf).
//
// # Query framing (recall, embedding, health)
//
// One JSON object per line each way; a connection may carry several
// requests in turn. The CLI and the handlers speak it through
// internal/worker/client:
//
//	{"op":"health"}
//	{"op":"warm","project":"/abs/root"}
//	                   (load the model, and the project's vector codes when
//	                   a project is given, in the background; answers at once)
//	{"op":"embed","texts":["…","…"]}
//	{"op":"knn","project":"/abs/root","text":"…","k":5,"kinds":["decision"]}
//
// Replies carry "ok"; on success the op's field (health, vectors, hits and
// model), on failure "error" (a sentence saying what is wrong and how to fix
// it) and "code" (no_model, invalid, unavailable, internal).
//
// # Hook relay framing (one hook event)
//
// A per-event hook binary (internal/relay) sends the raw event as a frame
// rather than a JSON line, so it links neither encoding/json nor reflection
// (each costs start-up time on every tool call) and the event's bytes go
// over unchanged:
//
//	request: "HOOK <hook> <version> <env bytes> <stdin bytes>\n" env stdin
//	reply:   "OK <exit> <stdout bytes> <stderr bytes>\n" stdout stderr
//	         "NO <code> <message>\n" when the worker will not run it
//
// env is the forwarded environment, each KEY=VALUE ended by a NUL byte;
// version is the client's buildinfo.Version (a worker of another build
// answers NO version, and the client runs the handler itself). A
// connection carries one frame each way.
//
// This package imports only errors and io, which package syscall links
// anyway: the hook binaries link it, and link nothing else (`make
// deps-check`; internal/relay says why). A client reads exactly the reply
// frame and then parses it (HookReplyLen, ParseHookReply); the worker
// reads requests from its connection (ReadHookRequest).
package wire
