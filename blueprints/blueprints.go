// Package blueprints embeds the configuration shipped with vibe: the default
// role and path permissions, the domain configs with their gate thresholds and
// literature sources, and the literature registry. It only exposes files; the
// packages that use a file parse it.
package blueprints

import "embed"

// FS holds every file of this folder.
//
//go:embed *
var FS embed.FS
