package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestSpoolReplaysWhatTheDatabaseRefused: records spooled while the
// database is locked stay spooled through a failed replay and land, once,
// when it is free; a torn line is skipped; the spool file is 0600 and holds
// no secret.
func TestSpoolReplaysWhatTheDatabaseRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "vibe.db")
	s, err := Open(ctx, dbPath, Options{BusyTimeoutMS: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spool := filepath.Join(dir, "home", "spool.jsonl")
	seen := record.SessionSeen{ID: "sp-1", ProjectPath: "/p", At: t0}
	v := verdict.New("permission", verdict.HardBlock, verdict.High, "reviewer2 may not write CLAIM-LEDGER.md", nil)
	recs := []Record{
		{Session: &seen},
		{Session: &seen, Spine: &record.SpineEntry{SessionID: "sp-1", ProjectPath: "/p", At: t0, ActionType: "COMMAND", ToolName: "Bash",
			ToolUseID: "tu-1", InputSummary: "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123'"},
			Files: []record.Touched{{Path: "out.csv", Op: "write", SHA256: "ab", Size: 2}}},
		{Session: &seen, Verdicts: []verdict.Verdict{v}, Advisory: &record.AdvisoryContext{SessionID: "sp-1", ProjectPath: "/p", Event: "PreToolUse", At: t0}},
	}
	for _, r := range recs {
		if err := Spool(spool, r); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(spool, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"session":{"ID":"torn`) // a write cut short
	f.Close()
	raw, _ := os.ReadFile(spool)
	if strings.Contains(string(raw), "abcdefghijklmnopqrstuvwxyz0123") {
		t.Fatalf("the spool holds a secret: %s", raw)
	}
	if st, _ := os.Stat(spool); st.Mode().Perm() != 0o600 {
		t.Fatalf("spool mode %v", st.Mode().Perm())
	}
	if !Spooled(spool) {
		t.Fatal("Spooled: false")
	}

	// Locked: the replay fails and keeps every record.
	other, err := sql.Open("sqlite3", "file:"+dbPath+"?_txlock=exclusive")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ReplaySpool(ctx, spool); err == nil {
		t.Fatal("replay under a lock reported success")
	}
	if !Spooled(spool) {
		t.Fatal("a failed replay lost the spool")
	}
	// A hook appends while the replay file waits.
	late := record.SessionSeen{ID: "sp-2", ProjectPath: "/p", At: t0}
	if err := Spool(spool, Record{Session: &late}); err != nil {
		t.Fatal(err)
	}
	lock.Rollback()

	// The interrupted replay first, then what was spooled meanwhile.
	n, skipped, err := s.ReplaySpool(ctx, spool)
	if err != nil || n != 4 || skipped != 1 || Spooled(spool) {
		t.Fatalf("replay: %d applied, %d skipped, %v, spooled %v; want 4, 1, none left", n, skipped, err, Spooled(spool))
	}
	var sessions, spine, prov, adv int
	s.db.QueryRow("SELECT count(*) FROM sessions").Scan(&sessions)
	s.db.QueryRow("SELECT count(*) FROM spine_entries WHERE tool_use_id = 'tu-1' AND input_summary LIKE '%[REDACTED]%'").Scan(&spine)
	s.db.QueryRow("SELECT count(*) FROM provenance").Scan(&prov)
	s.db.QueryRow("SELECT count(*) FROM advisories WHERE check_name = 'permission'").Scan(&adv)
	if sessions != 2 || spine != 1 || prov != 1 || adv != 1 {
		t.Fatalf("after replay: %d sessions, %d spine, %d provenance, %d advisories; want 2 1 1 1", sessions, spine, prov, adv)
	}
}

// TestReplacedDetectsADeletedOrSwappedFile.
func TestReplacedDetectsADeletedOrSwappedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Replaced() {
		t.Fatal("a fresh store reports Replaced")
	}
	os.Rename(path, path+".moved")
	if !s.Replaced() {
		t.Fatal("deleted: Replaced is false")
	}
	os.WriteFile(path, nil, 0o600)
	if !s.Replaced() {
		t.Fatal("swapped: Replaced is false")
	}
	os.Remove(path)
	os.Rename(path+".moved", path)
	if s.Replaced() {
		t.Fatal("restored: Replaced is true")
	}
}
