package record

import "time"

// ArtifactState is what the PostToolUse gates last saw of one research
// artifact: its size and modification time (the change key), its hash, the
// status of the last gate run on it and, for a features table, DQ1's
// column profile as JSON.
type ArtifactState struct {
	Project string
	Path    string // project-relative, forward slashes
	Kind    string
	Size    int64
	MtimeNS int64
	SHA256  string
	Status  string
	Profile []byte
	At      time.Time
}
