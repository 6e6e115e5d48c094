package worker

import (
	"context"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
)

// rescanSecrets runs once, beside the loop from Open, counted with the
// handlers (Close cancels it between two batches and waits): it loads the
// secret rules (gitleaks' rule set, tens of milliseconds) so that no hook
// waits for them, then scrubs what the database stored under older rules
// (store.RescanSecrets: once per rules version, marked in meta), in small
// transactions beside the hooks. A failure is logged and tried again at the
// next start; what is shown is scrubbed on its way out meanwhile.
func (w *Worker) rescanSecrets(ctx context.Context) {
	took, err := privacy.Load()
	if err != nil {
		w.logf("secret rules: %v; only vibe's own rules run", err)
	} else {
		w.logf("secret rules loaded in %s: %d gitleaks rules (%s)", took.Round(time.Millisecond), privacy.Rules(), privacy.Version())
	}
	st := w.store()
	if pending, err := st.RescanPending(ctx); err != nil || !pending {
		if err != nil {
			w.logf("rescan stored texts for secrets: %v", err)
		}
		return
	}
	start := time.Now()
	rep, err := st.RescanSecrets(ctx)
	if err != nil {
		w.logf("rescan stored texts for secrets: %v (after %d rows; tried again at the next start)", err, rep.Rows)
		return
	}
	w.logf("rescanned %d stored rows of %d tables for secrets in %s: %d rewritten (%d memories queued for a new vector)",
		rep.Rows, len(rep.Tables), time.Since(start).Round(time.Millisecond), rep.Changed, rep.Memories)
}
