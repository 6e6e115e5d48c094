package resume

import (
	"context"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Reads is what Gather reads of the database for STATE.md and the pickup
// note. *store.Store has it.
type Reads interface {
	Session(ctx context.Context, id string) (record.Session, error)
	PreviousSession(ctx context.Context, project, exclude string) (record.Session, bool, error)
	PassedGatesFor(ctx context.Context, project string, claims []string) (map[string]map[string]bool, error)
	FailingGates(ctx context.Context, project string, window int) ([]record.GateState, error)
	Alerts(ctx context.Context, f record.AlertFilter) ([]record.Alert, error)
	OpenAlertCounts(ctx context.Context, project string) (record.AlertCounts, error)
	PendingSeeds(ctx context.Context, project string, limit int) ([]record.PendingSeed, error)
}

// SpineWrites is what AppendSpine reads and writes inside one transaction:
// the export mark and the entries after it. *store.Tx has it.
type SpineWrites interface {
	SpineMark(ctx context.Context, project string) (record.SpineMark, error)
	SpineAfter(ctx context.Context, project string, afterID int64, limit int) ([]record.SpineEntry, error)
	SetSpineMark(ctx context.Context, project string, m record.SpineMark) error
}

// Spine runs AppendSpine's transaction, committed when fn returns nil.
// *store.Store is a Spine[*store.Tx]; the type argument is inferred.
type Spine[W SpineWrites] interface {
	Tx(ctx context.Context, fn func(W) error) error
}

// Store is the database as Export uses it. *store.Store is a
// Store[*store.Tx].
type Store[W SpineWrites] interface {
	Reads
	Spine[W]
}
