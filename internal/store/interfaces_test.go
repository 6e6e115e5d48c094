package store_test

import (
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
)

// The interfaces consumers declare of the database, which *store.Store
// and *store.Tx must keep satisfying: a method renamed or changed here
// fails the build of this file, not of a consumer far away.
var (
	_ recall.Memories[*store.Tx] = (*store.Store)(nil)
	_ recall.Writes              = (*store.Tx)(nil)
)
