package claim

import (
	"slices"
	"sort"
	"strconv"
)

// The claim event types this package produces, matching claim_events.event_type.
// EventReopened is the one addition to the blueprint's list: a claim moved
// back to PROVISIONAL (a kill or dispute withdrawn) is a change a reviewer
// must see, and none of the other types describes it.
const (
	EventCreated           = "CREATED"
	EventPromoted          = "PROMOTED"
	EventVerified          = "VERIFIED"
	EventDisputed          = "DISPUTED"
	EventKilled            = "KILLED"
	EventReopened          = "REOPENED"
	EventConfidenceUpdated = "CONFIDENCE_UPDATED"
	EventR2Reviewed        = "R2_REVIEWED"
)

// eventOrder is the order of events for one claim in Diff's output: the claim
// exists, then its status moves, then its confidence.
var eventOrder = map[string]int{
	EventCreated: 0, EventPromoted: 1, EventVerified: 2, EventDisputed: 3,
	EventKilled: 4, EventReopened: 5, EventConfidenceUpdated: 6, EventR2Reviewed: 7,
}

// Event is one change to a claim, ready to be recorded as a claim_events row.
// Confidence is the claim's confidence after the change (HasConfidence false
// when the ledger gives none); Narrative is one sentence a person reads.
type Event struct {
	ClaimID, Type, OldStatus, NewStatus, KillReason, Narrative string
	Confidence                                                 float64
	HasConfidence                                              bool
}

// statusEvent maps the status a claim moved to onto its event type.
var statusEvent = map[string]string{
	StatusPromoted:    EventPromoted,
	StatusVerified:    EventVerified,
	StatusDisputed:    EventDisputed,
	StatusKilled:      EventKilled,
	StatusProvisional: EventReopened,
}

// Diff turns an edit of the ledger into claim events, ordered by claim id
// (numerically) and then by event type (CREATED, PROMOTED, VERIFIED,
// DISPUTED, KILLED, REOPENED, CONFIDENCE_UPDATED).
//
//   - A claim only in new is CREATED; when it is created with a status other
//     than PROVISIONAL, the matching status event follows, so a claim written
//     straight in as PROMOTED is gated like a promotion.
//   - A status change gives PROMOTED, VERIFIED, DISPUTED, KILLED (with the
//     kill reason) or REOPENED (back to PROVISIONAL). An unreadable status
//     ("" in either ledger) gives no status event.
//   - A confidence that appears, changes or disappears gives
//     CONFIDENCE_UPDATED; 0.60 and 0.6 are the same value.
//   - Moving claims around, retitling them or editing their evidence gives
//     nothing. A claim removed from the ledger gives nothing either: Removed
//     lists those, because a claim should be killed with a reason, not erased.
func Diff(old, new Ledger) []Event {
	before := make(map[string]*Claim, len(old.Claims))
	for i := range old.Claims {
		if _, dup := before[old.Claims[i].ID]; !dup {
			before[old.Claims[i].ID] = &old.Claims[i]
		}
	}
	var events []Event
	seen := make(map[string]bool, len(new.Claims))
	for i := range new.Claims {
		c := &new.Claims[i]
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		prev := before[c.ID]
		if prev == nil {
			events = append(events, event(c, EventCreated, "", "created as "+orUnknown(c.Status)+titleSuffix(c.Title)))
		}
		oldStatus := ""
		if prev != nil {
			oldStatus = prev.Status
		}
		typ, known := statusEvent[c.Status]
		switch {
		case !known, c.Status == oldStatus:
		case prev != nil && prev.Status == "":
			// The old status was unreadable, so what changed is unknown.
		case prev == nil && c.Status == StatusProvisional:
			// A plain creation: CREATED says it all.
		default:
			events = append(events, event(c, typ, oldStatus, transition(typ, c, oldStatus)))
		}
		if prev != nil && (prev.HasConfidence != c.HasConfidence || prev.Confidence != c.Confidence) {
			events = append(events, event(c, EventConfidenceUpdated, prev.Status, confidenceChange(prev, c)))
		}
	}
	sort.SliceStable(events, func(i, j int) bool {
		if c := compareIDs(events[i].ClaimID, events[j].ClaimID); c != 0 {
			return c < 0
		}
		return eventOrder[events[i].Type] < eventOrder[events[j].Type]
	})
	return events
}

// Removed lists, in id order, the claims of old that new no longer holds.
func Removed(old, new Ledger) []string {
	keep := make(map[string]bool, len(new.Claims))
	for _, c := range new.Claims {
		keep[c.ID] = true
	}
	var gone []string
	for _, c := range old.Claims {
		if !keep[c.ID] && !slices.Contains(gone, c.ID) {
			gone = append(gone, c.ID)
		}
	}
	sort.SliceStable(gone, func(i, j int) bool { return compareIDs(gone[i], gone[j]) < 0 })
	return gone
}

// Promotions returns, sorted by id and once each, the claims that events make
// PROMOTED or VERIFIED: the ones whose tier gates must have passed.
func Promotions(events []Event) []string {
	var ids []string
	for _, e := range events {
		if (e.Type == EventPromoted || e.Type == EventVerified) && !slices.Contains(ids, e.ClaimID) {
			ids = append(ids, e.ClaimID)
		}
	}
	sort.SliceStable(ids, func(i, j int) bool { return compareIDs(ids[i], ids[j]) < 0 })
	return ids
}

// ReviewEvents returns one R2_REVIEWED event per claim a review file cites,
// in id order; path is the review's project-relative path, for the narrative.
func ReviewEvents(path string, content []byte) []Event {
	ids := CitedClaims(content)
	events := make([]Event, 0, len(ids))
	for _, id := range ids {
		events = append(events, Event{ClaimID: id, Type: EventR2Reviewed, Narrative: id + " cited in review " + path})
	}
	return events
}

func event(c *Claim, typ, oldStatus, narrative string) Event {
	e := Event{
		ClaimID: c.ID, Type: typ, OldStatus: oldStatus, NewStatus: c.Status,
		Confidence: c.Confidence, HasConfidence: c.HasConfidence,
		Narrative: c.ID + " " + narrative,
	}
	if typ == EventKilled {
		e.KillReason = c.KillReason
	}
	return e
}

func transition(typ string, c *Claim, oldStatus string) string {
	verb := map[string]string{
		EventPromoted: "promoted", EventVerified: "verified", EventDisputed: "disputed",
		EventKilled: "killed", EventReopened: "reopened",
	}[typ]
	if typ == EventKilled {
		reason := c.KillReason
		if reason == "" {
			reason = "no reason given"
		}
		verb += " (" + reason + ")"
	}
	if oldStatus == "" {
		return verb + " at creation"
	}
	return verb + ": " + oldStatus + " → " + c.Status
}

func confidenceChange(prev, c *Claim) string {
	switch {
	case !prev.HasConfidence:
		return "confidence set to " + formatConfidence(c.Confidence)
	case !c.HasConfidence:
		return "confidence removed (was " + formatConfidence(prev.Confidence) + ")"
	}
	return "confidence " + formatConfidence(prev.Confidence) + " → " + formatConfidence(c.Confidence)
}

func formatConfidence(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func orUnknown(s string) string {
	if s == "" {
		return "an unreadable status"
	}
	return s
}

func titleSuffix(title string) string {
	if title == "" {
		return ""
	}
	return ": " + title
}
