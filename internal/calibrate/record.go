package calibrate

import (
	"context"
	"fmt"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// RecordReport parses a file written under 05-reviewer2/ and records what
// it says about its review in r2_reviews (keyed by review id: the R2 report,
// its judge report and its V0 record complete one row, and recording a file
// twice changes nothing). The review's time is the one the file gives, else
// now.
func RecordReport[W ReviewWriter](ctx context.Context, st ReviewLog[W], project, session, relPath string, content []byte, now time.Time) (Review, error) {
	r, err := ParseReport(relPath, content)
	if err != nil {
		return r, err
	}
	at := r.At
	if at.IsZero() {
		at = now
	}
	row := record.R2Review{ReviewID: r.ReviewID, SessionID: session, ProjectPath: project, Mode: r.Mode,
		Claims: r.Claims, ClaimsWeak: r.ClaimsWeak, J0Score: r.J0Score, SFIKnown: r.SFIKnown,
		SFIInjected: r.SFIInjected, SFICaught: r.SFICaught, SFIMissed: r.SFIMissed, SourcePath: relPath, At: at}
	if r.Kind == KindJudge {
		row.J0Dimensions, row.Weaknesses = r.J0Dimensions, r.Weaknesses
	}
	err = st.Tx(ctx, func(tx W) error {
		key, err := tx.UpsertReview(ctx, row)
		r.ReviewID = key
		return err
	})
	if err != nil {
		return r, fmt.Errorf("record review %s: %w", relPath, err)
	}
	return r, nil
}
