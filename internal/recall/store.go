package recall

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Reads is what recall reads of the database: the FTS5 side (searcher)
// and memories by id and in bulk. *store.Store has it.
type Reads interface {
	searcher
	MemoriesByID(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error)
	ExportMemories(ctx context.Context, project string, fn func(record.MemoryRecord) error) error
	// NewestMatches and UncheckedMemories serve the contradiction check.
	NewestMatches(ctx context.Context, project, match string, limit int) ([]record.MemoryRecord, error)
	UncheckedMemories(ctx context.Context, limit int) ([]record.MemoryRecord, error)
}

// Writes is what recall writes inside one transaction. *store.Tx has it.
type Writes interface {
	AddMemory(ctx context.Context, m record.NewMemory) (id int64, added bool, err error)
	LinkConflict(ctx context.Context, id, other int64, at time.Time) (bool, error)
	MarkChecked(ctx context.Context, id int64) error
	Memory(ctx context.Context, id int64) (record.MemoryRecord, error)
	RememberMemory(ctx context.Context, id int64, now time.Time) error
	RaiseTrust(ctx context.Context, id int64, trust float64) error
}

// Memories is the database as recall uses it: reads, and writes inside one
// transaction that Tx commits when fn returns nil. *store.Store is a
// Memories[*store.Tx]; the type argument is inferred at every call.
type Memories[W Writes] interface {
	Reads
	Tx(ctx context.Context, fn func(W) error) error
}
