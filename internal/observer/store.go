package observer

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Reads is what the observer reads of the database: recent actions and
// their texts, literature searches, downloads, pending seeds, alerts and
// its own cache. *store.Store has it.
type Reads interface {
	RecentActions(ctx context.Context, project string, n int) ([]record.ActionStamp, error)
	ActionTextsSince(ctx context.Context, project string, t time.Time, limit int) ([]record.ActionText, error)
	NthRecentAction(ctx context.Context, project string, n int) (time.Time, bool, error)
	FirstActionAfter(ctx context.Context, project string, t time.Time) (time.Time, bool, error)
	LiteratureSince(ctx context.Context, project string, t time.Time) (bool, error)
	Downloads(ctx context.Context, project string) ([]record.Download, error)
	PendingSeeds(ctx context.Context, project string, limit int) ([]record.PendingSeed, error)
	Alerts(ctx context.Context, f record.AlertFilter) ([]record.Alert, error)
	OpenHalts(ctx context.Context, project string) ([]record.Alert, error)
	ObserverCache(ctx context.Context, key string) (string, error)
}

// Writes is what the observer writes inside one transaction: alerts raised
// and resolved, its cache, downloads. *store.Tx has it.
type Writes interface {
	RaiseAlert(ctx context.Context, a record.NewAlert) (record.Alert, bool, error)
	ResolveAlert(ctx context.Context, id int64, by, note string, at time.Time) (record.Alert, error)
	SetObserverCache(ctx context.Context, key, value string) error
	AddDownload(ctx context.Context, d record.Download) (int64, error)
}

// Store is the database as the observer uses it: reads, and writes inside
// one transaction that Tx commits when fn returns nil. *store.Store is a
// Store[*store.Tx]; the type argument is inferred at every call.
type Store[W Writes] interface {
	Reads
	Tx(ctx context.Context, fn func(W) error) error
}
