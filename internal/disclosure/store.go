package disclosure

import (
	"context"

	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/record"
)

// Reads is what the context builders read of the database: recall's
// search, the project's counts, the previous session and the recent
// memories. *store.Store has it.
type Reads interface {
	recall.Reads
	ProjectSessionCount(ctx context.Context, project string) (int, error)
	ClaimGateCounts(ctx context.Context, project string) (activeClaims, pendingGates int, err error)
	PreviousSession(ctx context.Context, project, exclude string) (record.Session, bool, error)
	RecentMemories(ctx context.Context, project string, limit int) ([]record.MemoryRecord, error)
}
