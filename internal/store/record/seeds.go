package record

import "time"

// SeedRemoved is the status of a seed that was in the database but is no
// longer in SERENDIPITY.md; it is kept (not deleted) so its history stays,
// and it comes back with its file status if the entry reappears.
const SeedRemoved = "REMOVED"

// SeedRecord is one serendipity seed as stored. Title lands in the
// blueprint's narrative column.
type SeedRecord struct {
	SeedID              string
	ProjectPath         string
	CreatedSession      string
	Status              string
	Source              string
	Score               *float64
	Title               string
	CausalQuestion      string
	DiscriminatingTest  string
	FallbackTest        string
	SalvagedFrom        string
	Resolution          string
	LastReviewedSession string
	SessionsPending     int
	Escalated           bool
	CreatedAt           time.Time
	UpdatedAt           time.Time
}
