package record

import "time"

// Download is one dataset fetched into a project: the source URL, where it
// landed (project-relative, forward slashes) and the SHA-256 of the file.
type Download struct {
	ID          int64
	ProjectPath string
	SessionID   string
	URL         string
	Path        string
	SHA256      string
	Size        int64 // -1 when unknown
	At          time.Time
}

// ActionText is the input summary of one spine entry ("read PATH",
// "$ COMMAND", ...) and its time.
type ActionText struct {
	At      time.Time
	Summary string
	// Wrote are the files the action wrote (its provenance), so a command
	// that produced a dataset is not taken for one that read it.
	Wrote []string
}
