package disclosure

import (
	"context"

	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Reads is what the context builders read of the database: recall's
// search (and its MemoriesByID), the project's counts, the previous
// session and the heads of the recent memories. *store.Store has it.
type Reads interface {
	recall.Reads
	// SessionCounts is the session's number in the project (counting it
	// when it is not recorded yet), the claims in play and the gates whose
	// latest run failed.
	SessionCounts(ctx context.Context, project, session string) (sessions, activeClaims, pendingGates int, err error)
	PreviousSession(ctx context.Context, project, exclude string) (record.Session, bool, error)
	// SalientCandidates lists the heads of the project's newest memories
	// that are neither forgotten nor narratives, newest first (ties by
	// id, larger first), at most limit.
	SalientCandidates(ctx context.Context, project string, limit int) ([]record.MemoryHead, error)
}
