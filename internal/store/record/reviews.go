package record

import "time"

// ReviewModeUnknown is the mode stored for a review known only from its
// judge report; the R2 report, once parsed, replaces it.
const ReviewModeUnknown = "UNKNOWN"

// R2Review is one Reviewer 2 review as calibration records it. Several files
// describe the same review (the R2 report, the judge's report on it, the V0
// seeded-fault record), so every part is optional: a zero or nil part means
// "this file does not say", and UpsertReview keeps what an earlier file said.
type R2Review struct {
	ReviewID    string
	SessionID   string
	ProjectPath string
	// Mode is INLINE, FORCED, BATCH, …; "" when the file does not say.
	Mode string
	// Claims are the claim ids reviewed; nil when the file does not say.
	// ClaimsWeak marks a list that only fills an empty one (the judge's copy).
	Claims     []string
	ClaimsWeak bool
	// J0Score is the judge's total (nil before a judge report).
	J0Score      *int
	J0Dimensions map[string]int
	// SFIKnown says the file carried a seeded-fault tally.
	SFIKnown    bool
	SFIInjected int
	SFICaught   int
	SFIMissed   []string
	// Weaknesses are what the review lacked (judge dimensions scored low);
	// nil when the file does not say.
	Weaknesses []string
	SourcePath string
	At         time.Time
}
