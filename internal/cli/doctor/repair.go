package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// repairReport is what `vibe doctor --repair` did.
type repairReport struct {
	Repaired    bool                  `json:"repaired"`
	Problem     string                `json:"problem,omitempty"`
	Quarantined string                `json:"quarantined,omitempty"`
	Tables      []store.SalvagedTable `json:"tables,omitempty"`
	Kept        int                   `json:"rows_kept"`
	Lost        int                   `json:"rows_lost"`
	Spooled     int                   `json:"spooled_records_replayed"`
}

// runRepair checks the database and, when it is damaged, stops the
// worker, moves the file (and its WAL) aside, makes a fresh database,
// copies every row it can read from the damaged one (store.Salvage),
// replays the spool the hooks wrote meanwhile, and says what was lost. A
// database that passes its check is left alone.
func runRepair(ctx context.Context, o *DoctorOptions) error {
	p := o.Paths()
	rep := repairReport{}
	problem := ""
	if st, err := store.Open(ctx, p.DB, store.Options{}); err != nil {
		problem = err.Error()
	} else {
		if _, err := st.Check(ctx); err != nil {
			problem = err.Error()
		}
		st.Close()
	}
	if problem == "" {
		if o.JSON {
			return cli.WriteJSON(o.IO.Out, rep)
		}
		fmt.Fprintf(o.IO.Out, "%s passes its integrity check: nothing to repair\n", p.DB)
		return nil
	}
	if strings.Contains(problem, "locked") || strings.Contains(problem, "busy") {
		return fault.Errorf(fault.Unavailable, "doctor --repair", "%s is locked (%s), not damaged; close what holds it and try again", p.DB, problem)
	}
	rep.Problem = problem
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := worker.Stop(stopCtx, p, 50*time.Millisecond); err != nil && !errors.Is(err, client.ErrNotRunning) {
		return fault.Errorf(fault.Unavailable, "doctor --repair", "stop the worker first (`vibe worker stop`): %v", err)
	}
	aside := fmt.Sprintf("%s.corrupt-%s", p.DB, time.Now().UTC().Format("20060102T150405Z"))
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(p.DB+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fault.Errorf(fault.Unavailable, "doctor --repair", "move %s aside: %v", p.DB+suffix, err)
		}
	}
	rep.Quarantined = aside
	fmt.Fprintf(o.IO.ErrOut, "moved the damaged database to %s; salvaging its rows into a fresh one…\n", aside)
	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		return fault.Errorf(fault.Unavailable, "doctor --repair", "create a fresh database at %s: %v (the damaged one is at %s)", p.DB, err, aside)
	}
	defer st.Close()
	salvaged, err := st.Salvage(ctx, aside)
	if err != nil {
		return fault.Errorf(fault.Unavailable, "doctor --repair", "%v (the damaged file stays at %s)", err, aside)
	}
	rep.Tables = salvaged.Tables
	rep.Kept, rep.Lost = salvaged.Kept()
	if applied, _, err := st.ReplaySpool(ctx, p.Spool); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "replay the spool %s: %v (the next hook tries again)\n", p.Spool, err)
	} else {
		rep.Spooled = applied
	}
	rep.Repaired = true
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, rep)
	}
	fmt.Fprintf(o.IO.Out, "repaired %s: %d rows kept, %d lost; %d spooled records replayed\n", p.DB, rep.Kept, rep.Lost, rep.Spooled)
	for _, t := range rep.Tables {
		switch {
		case t.Unreadable != "":
			fmt.Fprintf(o.IO.Out, "  %-22s lost: %s\n", t.Name, t.Unreadable)
		case t.Lost > 0:
			fmt.Fprintf(o.IO.Out, "  %-22s %d kept, %d unreadable rows lost\n", t.Name, t.Kept, t.Lost)
		}
	}
	fmt.Fprintf(o.IO.Out, "the full-text index was rebuilt and every memory queued to be embedded again; the damaged file stays at %s until you delete it\n", aside)
	if copies, _ := store.Backups(store.BackupDir(p.DB)); len(copies) > 0 {
		fmt.Fprintf(o.IO.Out, "a whole copy from the end of an earlier session is at %s, if you would rather go back to it (stop the worker, then copy it over %s)\n", copies[0], p.DB)
	}
	return nil
}
