package integritycheck

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Reads is what the integrity checks read of the database: the pinned
// brief, the advisories already shown, the threshold history and the gate
// failures it is judged against, and where the database lives (the brief's
// copy sits beside it). *store.Store has it.
type Reads interface {
	Path() string
	CurrentBrief(ctx context.Context, project string) (record.BriefVersion, bool, error)
	SeenDecisionHashes(ctx context.Context, project string, hashes []string) (map[string]bool, error)
	ThresholdDomains(ctx context.Context, project string, since time.Time) ([]string, error)
	ThresholdChanges(ctx context.Context, project, domain string, since, until time.Time) ([]record.ThresholdChange, error)
	GateFailures(ctx context.Context, project string, gates []string, since, until time.Time) ([]record.GateFailure, error)
}

// Writes is what they write inside one transaction: briefs, config
// snapshots and threshold changes. *store.Tx has it.
type Writes interface {
	AddBrief(ctx context.Context, b record.BriefVersion) (int64, error)
	ConfigSnapshot(ctx context.Context, project, path string) ([]byte, bool, error)
	SaveConfigSnapshot(ctx context.Context, project, path string, content []byte, at time.Time) error
	AddThresholdChanges(ctx context.Context, cs []record.ThresholdChange) error
}

// Store is the database as the writing functions use it: reads, and
// writes inside one transaction that Tx commits when fn returns nil.
// *store.Store is a Store[*store.Tx]. Where a function says st may be nil,
// pass a nil interface, not a nil *store.Store.
type Store[W Writes] interface {
	Reads
	Tx(ctx context.Context, fn func(W) error) error
}
