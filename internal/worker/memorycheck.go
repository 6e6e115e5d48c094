package worker

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/recall"
)

// CheckBatch is how many memories the hooks wrote one round of the embed
// loop checks for contradictions (recall.CheckPending, a few milliseconds
// each on a large store): a hook waits for the write lock at most one
// memory's links.
const CheckBatch = 100

// checkMemories links the memories hooks wrote since the last round with
// those they contradict, so that a newer fact supersedes an older one
// whatever wrote it, without the hook paying for the search. It says when
// the next round should come: after PollInterval when a whole batch was
// checked (more may wait), after dbRetry when the database refused, else
// rest.
func (w *Worker) checkMemories(ctx context.Context) time.Duration {
	n, links, err := recall.CheckPending(ctx, w.store(), CheckBatch)
	switch {
	case err != nil:
		w.fail("check new memories for contradictions: %v", err)
		return w.dbRetry()
	case links > 0:
		w.logf("checked %d new memories for contradictions: %d linked", n, links)
	}
	if n >= CheckBatch {
		return w.cfg.PollInterval
	}
	return rest
}
