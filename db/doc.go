// Package db holds vibe's schema as numbered, embedded SQL migrations
// (migrations/NNNN_name.sql). It only exposes them in order; applying them is
// store's job. A migration that has landed is never edited, only followed by a
// new one.
package db
