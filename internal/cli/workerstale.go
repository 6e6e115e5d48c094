package cli

import (
	"context"
	"path/filepath"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// InstalledWorker is the resident process binary of the install whose
// plugin root is root.
func InstalledWorker(root string) string { return filepath.Join(root, "bin", client.BinaryName) }

// AskWorker returns the running worker's health, or ok false when none
// answers within a moment.
func AskWorker(ctx context.Context, p config.Paths) (h client.Health, ok bool) {
	hctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	h, err := client.GetHealth(hctx, p.Socket)
	return h, err == nil
}

// ReplaceStale replaces a running worker that client.Stale finds is not
// this install's bin; it returns the step's sentence, or "" when no stale
// worker runs.
func ReplaceStale(ctx context.Context, p config.Paths, bin string) (detail string, ok bool) {
	h, up := AskWorker(ctx, p)
	if !up {
		return "", true
	}
	why := client.Stale(p, bin, h)
	if why == "" {
		return "", true
	}
	replaced, err := client.Replace(p, h.PID, bin, 5*time.Second)
	switch {
	case err != nil:
		return why + "; replacing it failed: " + err.Error(), false
	case !replaced:
		return why + "; it could not be replaced (it is not a " + client.BinaryName + " process this user can stop)", false
	}
	return why + "; replaced it with " + bin, true
}
