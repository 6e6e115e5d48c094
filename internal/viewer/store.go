package viewer

import (
	"context"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Reads is everything the viewer reads of the database; it writes nothing.
// *store.Store (opened read-only) has it.
type Reads interface {
	Alerts(ctx context.Context, f record.AlertFilter) ([]record.Alert, error)
	CalibrationEntries(ctx context.Context, project string) ([]record.CalibrationEntry, error)
	ClaimHistory(ctx context.Context, project, claimID string) ([]record.ClaimEventRecord, error)
	ClaimSummaries(ctx context.Context, project string) ([]record.ClaimSummary, error)
	DecisionCounts(ctx context.Context, project string) ([]record.NameCount, error)
	Decisions(ctx context.Context, f record.DecisionFilter) ([]record.Decision, error)
	FailingGates(ctx context.Context, project string, window int) ([]record.GateState, error)
	GateHistory(ctx context.Context, project, gateID, claimID string, limit int) ([]record.GateRecord, error)
	GateSummaries(ctx context.Context, project string) ([]record.GateSummary, error)
	ListSeeds(ctx context.Context, project, status string, limit int) ([]record.SeedRecord, error)
	LiteratureSearches(ctx context.Context, project, session string, limit int) ([]record.LiteratureSearch, error)
	MemoryPage(ctx context.Context, q record.MemoryQuery) ([]record.MemoryRecord, error)
	PaperSources(ctx context.Context, project string, ids []string) (map[string][]record.PaperSource, error)
	PendingSeeds(ctx context.Context, project string, limit int) ([]record.PendingSeed, error)
	ProjectMemoryCounts(ctx context.Context, project string) (record.MemoryCounts, error)
	ProjectSessionCount(ctx context.Context, project string) (int, error)
	RecentReviews(ctx context.Context, project string, limit int) ([]record.R2Review, error)
	SearchMemories(ctx context.Context, q record.TextQuery) ([]record.TextHit, error)
	SeedsSalvagedFrom(ctx context.Context, project, claimID string) ([]record.SeedRecord, error)
	Session(ctx context.Context, id string) (record.Session, error)
	Sessions(ctx context.Context, project string, limit int) ([]record.Session, error)
	SpineCounts(ctx context.Context, project, session string, afterID int64) ([]record.SpineCount, int64, error)
	SpineHead(ctx context.Context, project string) (int64, error)
	SpineMaxID(ctx context.Context) (int64, error)
	SpinePage(ctx context.Context, q record.SpineQuery) ([]record.SpineEntry, error)
}
