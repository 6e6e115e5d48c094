package store_test

import (
	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/claimcheck"
	"github.com/vibe-science/vibe/internal/disclosure"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/mistake"
	"github.com/vibe-science/vibe/internal/observer"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/seeds"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/viewer"
)

// The interfaces consumers declare of the database, which *store.Store
// and *store.Tx must keep satisfying: a method renamed or changed here
// fails the build of this file, not of a consumer far away.
var (
	_ recall.Memories[*store.Tx] = (*store.Store)(nil)
	_ recall.Writes              = (*store.Tx)(nil)

	_ observer.Store[*store.Tx] = (*store.Store)(nil)

	_ seeds.Ledger[*store.Tx] = (*store.Store)(nil)
	_ seeds.Ticker            = (*store.Store)(nil)
	_ seeds.Triage            = (*store.Store)(nil)
	_ seeds.Salvaged          = (*store.Store)(nil)

	_ calibrate.ReviewLog[*store.Tx] = (*store.Store)(nil)
	_ calibrate.Reviews              = (*store.Store)(nil)
	_ calibrate.PatternCounts        = (*store.Store)(nil)
	_ calibrate.Entries              = (*store.Store)(nil)
	_ calibrate.OutcomeWriter        = (*store.Tx)(nil)

	_ resume.Store[*store.Tx] = (*store.Store)(nil)

	_ mistake.Writes = (*store.Tx)(nil)
	_ mistake.Reads  = (*store.Store)(nil)

	_ claimcheck.Writes     = (*store.Tx)(nil)
	_ claimcheck.StopWrites = (*store.Tx)(nil)

	_ disclosure.Reads = (*store.Store)(nil)

	_ viewer.Reads = (*store.Store)(nil)

	_ integritycheck.Store[*store.Tx] = (*store.Store)(nil)
)
