package mistake

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Writes is what Record and Resolve write inside the caller's transaction:
// the mistake rows and their failure memories. *store.Tx has it.
type Writes interface {
	AddMemory(ctx context.Context, m record.NewMemory) (id int64, added bool, err error)
	ForgetMemory(ctx context.Context, id int64) error
	AddMistake(ctx context.Context, m record.Mistake) (int64, error)
	FixMistakes(ctx context.Context, project, target, fixedBy string, at time.Time) ([]record.Mistake, error)
	SetMistakeMemory(ctx context.Context, id, memoryID int64) error
}

// Reads lists the recorded mistakes on a target (Context). *store.Store
// has it.
type Reads interface {
	Mistakes(ctx context.Context, project, target string, limit int) ([]record.Mistake, error)
}
