package record

import "time"

// Mistake is a tool call that failed: what it tried, the error, and what
// fixed it once a later call on the same target succeeded.
type Mistake struct {
	ID       int64
	Project  string
	Session  string
	Target   string
	Tool     string
	Tried    string
	Error    string
	MemoryID int64
	FailedAt time.Time
	FixedBy  string
	FixedAt  time.Time // zero while not fixed
}
