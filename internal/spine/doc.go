// Package spine turns one tool call into a research-spine record: the action
// type (a deterministic classifier over tool, paths and command text), input
// and output summaries of at most 200 characters, SHA-256 digests of the raw
// input and output, and whether the action is significant enough to be
// remembered. It does no I/O (file checksums are taken by the caller) and
// imports only the standard library and internal/privacy.
package spine
