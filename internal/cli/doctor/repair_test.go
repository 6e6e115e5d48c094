package doctor

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// TestRepairSalvagesAndReplaysTheSpool: a database damaged in the middle
// of its sessions is moved aside by `vibe doctor --repair`; the fresh one
// holds every session that could be read, the record a hook spooled while
// the file was damaged is replayed, and a second run finds nothing to do.
func TestRepairSalvagesAndReplaysTheSpool(t *testing.T) {
	ctx := context.Background()
	o, out := fakeDoctor(t)
	p := o.Paths()
	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	raw, err := sql.Open("sqlite3", p.DB)
	if err != nil {
		t.Fatal(err)
	}
	const n = 6000
	for i := 0; i < n; i++ {
		if _, err := raw.Exec(`INSERT INTO sessions (id, project_path, started_at, last_seen_at, narrative_summary) VALUES (?, '/p', 1, 1, ?)`,
			fmt.Sprintf("s-%06d", i), strings.Repeat("z", 200)); err != nil {
			t.Fatal(err)
		}
	}
	raw.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	raw.Close()
	f, _ := os.OpenFile(p.DB, os.O_RDWR, 0)
	info, _ := f.Stat()
	f.WriteAt([]byte(strings.Repeat("\xde\xad", 6000)), info.Size()*3/4/4096*4096)
	f.Close()
	// A hook that met the damaged file spooled its record.
	if err := store.Spool(p.Spool, store.Record{Session: &record.SessionSeen{ID: "s-spooled", ProjectPath: "/p", At: time.Unix(100, 0)}}); err != nil {
		t.Fatal(err)
	}

	o.Repair, o.JSON = true, true
	if err := runDoctor(ctx, o); err != nil {
		t.Fatal(err)
	}
	var rep repairReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !rep.Repaired || rep.Quarantined == "" || rep.Spooled != 1 || rep.Lost == 0 {
		t.Fatalf("report %+v", rep)
	}
	if _, err := os.Stat(rep.Quarantined); err != nil {
		t.Errorf("the damaged file is not kept aside: %v", err)
	}
	fresh, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Check(ctx); err != nil {
		t.Errorf("the repaired database fails its check: %v", err)
	}
	var sessions, kept int
	for _, tb := range rep.Tables {
		if tb.Name == "sessions" {
			kept = tb.Kept
			if tb.Kept+tb.Lost != n+1 && tb.Kept+tb.Lost != n {
				t.Errorf("sessions: %+v, want the %d rows kept or counted lost", tb, n)
			}
		}
	}
	st2, _ := sql.Open("sqlite3", p.DB)
	defer st2.Close()
	st2.QueryRow("SELECT count(*) FROM sessions").Scan(&sessions)
	if sessions != kept+1 {
		t.Errorf("%d sessions in the repaired database, want the %d kept and the spooled one", sessions, kept)
	}

	out.Reset()
	o.JSON = false
	if err := runDoctor(ctx, o); err != nil || !strings.Contains(out.String(), "nothing to repair") {
		t.Errorf("a second repair: %v, %q", err, out)
	}
}
