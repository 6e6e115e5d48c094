package record

import "time"

// Lineage is who wrote one version (its SHA-256) of a result file, and
// when: the row DQ4 and promotion look up by content. Detail is the full
// record of internal/lineage (JSON: command, script, inputs, seeds,
// environment, commit), nil until it was captured after the reply.
type Lineage struct {
	ID        int64
	Project   string
	Path      string // project-relative, forward slashes
	SHA256    string
	Writer    string // computation, hand, unknown
	By        string
	Tool      string
	Session   string
	ToolUseID string
	At        time.Time
	Detail    []byte
}
