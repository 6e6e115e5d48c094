package wire

// The query protocol: one JSON object per line each way. The types carry
// their JSON tags here; internal/worker/client encodes them (this package
// must not import encoding/json, see doc.go).

// Request is one line a client sends.
type Request struct {
	Op      string   `json:"op"`
	Texts   []string `json:"texts,omitempty"`
	Project string   `json:"project,omitempty"`
	Text    string   `json:"text,omitempty"`
	K       int      `json:"k,omitempty"`
	Kinds   []string `json:"kinds,omitempty"`
}

// Response is one line the worker answers.
type Response struct {
	OK      bool        `json:"ok"`
	Error   string      `json:"error,omitempty"`
	Code    string      `json:"code,omitempty"`
	Model   string      `json:"model,omitempty"`
	Vectors [][]float32 `json:"vectors,omitempty"`
	Hits    []Hit       `json:"hits,omitempty"`
	Health  *Health     `json:"health,omitempty"`
}

// Ops and error codes of the protocol.
const (
	OpHealth = "health"
	OpEmbed  = "embed"
	OpKNN    = "knn"
	OpWarm   = "warm"

	CodeNoModel     = "no_model"
	CodeVersion     = "version"
	CodeInvalid     = "invalid"
	CodeUnavailable = "unavailable"
	CodeInternal    = "internal"
)

// Hit is one nearest memory; Distance is L2 between unit vectors (cosine
// similarity = 1 - Distance²/2).
type Hit struct {
	MemoryID int64   `json:"memory_id"`
	Distance float64 `json:"distance"`
}

// Health is the worker's state, for `vibe worker status` and `vibe status`.
type Health struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Model is the current model's name; State says what the worker does
	// with it: "starting", "loaded", "loading", "unloaded (idle)",
	// "error: …", or, while it is not installed, "not installed: …": the
	// worker embeds with the fallback hashed-token embedder (Fallback; and
	// downloads the model, Pulling), or with VIBE_EMBED_FALLBACK=off recall
	// stays lexical until the model is installed (worker.StateNoModel,
	// StateFallback, StatePulling).
	Model  string `json:"model"`
	Loaded bool   `json:"loaded"`
	State  string `json:"state"`
	// Fallback says the current model is not installed and the worker
	// embeds with the fallback hashed-token embedder meanwhile (its
	// vectors are labelled embed.FallbackModel and replaced once the model
	// arrives); Pulling says the model is being downloaded.
	Fallback bool `json:"fallback,omitempty"`
	Pulling  bool `json:"pulling,omitempty"`
	// Backlog is how many memories wait for the current model; Waiting are
	// those in retry backoff; Failed gave up after repeated errors.
	Backlog int `json:"backlog"`
	Waiting int `json:"waiting"`
	Failed  int `json:"failed"`
	Done    int `json:"done"`
	// Throughput is texts embedded per second over the last minute;
	// EmbedRate is texts per second of embedding time in that minute (the
	// model's speed, whether or not there was work).
	Throughput float64 `json:"throughput"`
	EmbedRate  float64 `json:"embed_rate"`
	RSSBytes   int64   `json:"rss_bytes"`
	StartedAt  int64   `json:"started_at"` // unix milliseconds
	LastError  string  `json:"last_error,omitempty"`
}
