package seeds

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Writes is what Sync writes inside one transaction. *store.Tx has it.
type Writes interface {
	UpsertSeed(ctx context.Context, s record.SeedRecord, session string, now time.Time) (bool, error)
	MarkSeedsRemoved(ctx context.Context, project string, present []string, session string, now time.Time) (int, error)
}

// Ledger is the database as Sync uses it: seeds written inside one
// transaction that Tx commits when fn returns nil. *store.Store is a
// Ledger[*store.Tx]; the type argument is inferred at the call.
type Ledger[W Writes] interface {
	Tx(ctx context.Context, fn func(W) error) error
}

// Ticker counts the cycles a seed waits for triage (Tick). *store.Store has it.
type Ticker interface {
	TickSeeds(ctx context.Context, project, session string, escalateAfter int) ([]string, error)
}

// Triage lists the seeds waiting for triage (Pending). *store.Store has it.
type Triage interface {
	SeedsToTriage(ctx context.Context, project string, limit int) ([]record.SeedRecord, error)
}

// Salvaged lists the seeds salvaged from a claim (SalvageVerdict).
// *store.Store has it.
type Salvaged interface {
	SeedsSalvagedFrom(ctx context.Context, project, claimID string) ([]record.SeedRecord, error)
}
