// Package skill embeds the methodology the agent reads (skill/vibe/...), so
// the CLI and the gates can read the JSON schemas and the documented formats
// from the same files Claude Code loads. It only exposes files.
package skill

import "embed"

// FS holds the vibe skill folder.
//
//go:embed vibe
var FS embed.FS
