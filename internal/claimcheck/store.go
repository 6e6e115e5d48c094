package claimcheck

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Writes is what Record, Baseline and RecordReview read and write inside
// the caller's transaction: the ledger snapshots, the claim events and
// the calibration outcomes they resolve. *store.Tx has it.
type Writes interface {
	calibrate.OutcomeWriter
	LedgerSnapshot(ctx context.Context, project, path string) ([]byte, bool, error)
	SaveLedgerSnapshot(ctx context.Context, project, path string, content []byte, now time.Time) error
	AddClaimEvents(ctx context.Context, session, project string, at time.Time, evs []record.ClaimEvent) error
}

// StopWrites is what StopCheck reads and writes inside the caller's
// transaction: the session, its unreviewed claims and its stop-block
// count. *store.Tx has it.
type StopWrites interface {
	Session(ctx context.Context, id string) (record.Session, error)
	UnreviewedClaims(ctx context.Context, session string) ([]string, error)
	SetStopBlocks(ctx context.Context, session string, n int) error
}
