//go:build !unix

package store

// lockSpool has no flock here: replays are serialised only by the spool's
// rename, which is atomic, so two replayers may at worst apply the same
// records twice (spine entries and memories are deduplicated).
func lockSpool(string) (func(), error) { return func() {}, nil }
