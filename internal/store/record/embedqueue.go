package record

// EmbedItem is a queued memory waiting for a vector.
type EmbedItem struct {
	QueueID     int64
	MemoryID    int64
	ProjectPath string
	Kind        string
	Text        string
	CreatedAt   int64 // the memory's unix milliseconds
	Attempts    int
}

// EmbedResult pairs a claimed item with its vector.
type EmbedResult struct {
	Item   EmbedItem
	Vector []float32
}

// EmbedCounts is the queue as `vibe worker status` shows it.
type EmbedCounts struct {
	// Backlog is what the model still has to embed: pending rows for it or
	// for whatever model is current.
	Backlog int `json:"backlog"`
	// Waiting is the part of Backlog in retry backoff.
	Waiting int `json:"waiting"`
	Failed  int `json:"failed"`
	Done    int `json:"done"`
}
