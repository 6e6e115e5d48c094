package record

// Stats are the row counts `vibe status` shows.
type Stats struct {
	Sessions     int `json:"sessions"`
	Spine        int `json:"spine_entries"`
	Provenance   int `json:"provenance"`
	ClaimEvents  int `json:"claim_events"`
	GateChecks   int `json:"gate_checks"`
	Literature   int `json:"literature_searches"`
	OpenAlerts   int `json:"open_alerts"`
	Advisories   int `json:"advisories"` // every recorded verdict, passes included
	Decisions    int `json:"decisions"`  // what `vibe decisions` lists: denied, blocked, asked, warned
	Memories     int `json:"memories"`
	Vectors      int `json:"vectors"`
	QueuePending int `json:"queue_pending"`
	QueueFailed  int `json:"queue_failed"`
	QueueDone    int `json:"queue_done"`
}
