// Package viewer holds `vibe ui`: a local, read-only web viewer of what vibe
// recorded for one project (overview, sessions with their spine and
// decisions, claims with their history and evidence graph, gate history,
// calibration, literature with the citation audit, seeds, what the hooks
// denied, blocked, asked and warned, and the memories recall searches, with
// their kind, trust, source and state), with its plots drawn as SVG on the server. It must not write: it
// reads the database through the Reads interface it declares (store.go; a
// store opened read-only is passed in, and the package never imports store)
// and the project's ledger, review, findings and direction files, and it has
// no handler for any method but GET and HEAD.
//
// Safety is part of the shape, not an option: the server listens on
// 127.0.0.1 only (Listen refuses any other address), answers only requests
// from a loopback peer with a loopback Host header (no DNS rebinding), and
// only those carrying the per-run random token. Every page is rendered by
// html/template (spine summaries hold text from tool calls, so nothing is
// trusted), served with a Content-Security-Policy that allows nothing but
// this server's own stylesheet and script, and works without JavaScript; the
// one script only reloads a live page when the Server-Sent Events stream says
// new spine entries landed. The stream polls the newest spine id, a single
// b-tree seek on the read-only connection, so it never holds a lock a hook
// would wait for.
//
// Pages stay fast on a long project: the spine is read newest first by id
// within at most 20,000 ids per page (a search that matches nothing offers to
// go on rather than read everything), and the spine's filter counts are kept
// and topped up with the entries that landed since.
//
// The viewer must not import cobra (the CLI owns flags) nor any hook
// handler.
package viewer
