package calibrate

import (
	"context"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Reviews reads the project's recorded R2 reviews (Hint). *store.Store has it.
type Reviews interface {
	RecentReviews(ctx context.Context, project string, limit int) ([]record.R2Review, error)
}

// PatternCounts reads the repeated fixes and gate failures (Patterns).
// *store.Store has it.
type PatternCounts interface {
	RepeatedFixes(ctx context.Context, project string, min, limit int) ([]record.PatternCount, error)
	GateFailureCounts(ctx context.Context, project string, min, limit int) ([]record.PatternCount, error)
}

// Entries reads the calibration log (ProjectCalibration). *store.Store has it.
type Entries interface {
	CalibrationEntries(ctx context.Context, project string) ([]record.CalibrationEntry, error)
}

// ReviewWriter records one review row inside a transaction. *store.Tx has it.
type ReviewWriter interface {
	UpsertReview(ctx context.Context, r record.R2Review) (string, error)
}

// ReviewLog is the database as RecordReport uses it: a review written
// inside one transaction that Tx commits when fn returns nil. *store.Store
// is a ReviewLog[*store.Tx]; the type argument is inferred at the call.
type ReviewLog[W ReviewWriter] interface {
	Tx(ctx context.Context, fn func(W) error) error
}

// OutcomeWriter is what RecordOutcome reads and writes inside the caller's
// transaction. *store.Tx has it.
type OutcomeWriter interface {
	LastClaimConfidence(ctx context.Context, project, claimID string) (float64, bool, error)
	AddCalibration(ctx context.Context, e record.CalibrationEntry) (bool, error)
}
