package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

func addMem(t *testing.T, s *Store, project, kind, text string, at time.Time) int64 {
	t.Helper()
	var id int64
	err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		id, _, err = tx.AddMemory(context.Background(), record.NewMemory{ProjectPath: project, Kind: kind, Text: text, Ref: "r:" + text, At: at})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func ids(hs []record.TextHit) []int64 {
	out := []int64{}
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

func TestSearchMemoriesFastAndSlowPath(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	// Project /a owns 300 strong matches; /b has 3 weak ones, which the
	// global top 200 does not reach, so the slow path must find them.
	for i := 0; i < 300; i++ {
		addMem(t, s, "/a", record.KindNote, fmt.Sprintf("gate gate gate %d", i), t0)
	}
	var b []int64
	for i := 0; i < 3; i++ {
		b = append(b, addMem(t, s, "/b", record.KindNote, fmt.Sprintf("the gate of building %d was locked early in the morning today", i), t0))
	}
	got, err := s.SearchMemories(ctx, record.TextQuery{Project: "/b", Match: `"gate"`, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids(got), b) {
		t.Errorf("slow path: %v, want %v", ids(got), b)
	}
	for i, h := range got {
		if h.Rank != i+1 || h.BM25 <= 0 || h.Ref == "" {
			t.Errorf("hit %d: rank %d bm25 %v ref %q", i, h.Rank, h.BM25, h.Ref)
		}
	}
	// Fast path: /a's best 10 are exactly its first 10 by BM25, then id.
	got, _ = s.SearchMemories(ctx, record.TextQuery{Project: "/a", Match: `"gate"`, Limit: 10})
	if want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !reflect.DeepEqual(ids(got), want) {
		t.Errorf("fast path: %v, want %v", ids(got), want)
	}
	// Kinds, the newest window and an empty match.
	d := addMem(t, s, "/b", record.KindDecision, "gate policy decided", t0)
	got, _ = s.SearchMemories(ctx, record.TextQuery{Project: "/b", Match: `"gate"`, Kinds: []string{record.KindDecision}, Limit: 10})
	if !reflect.DeepEqual(ids(got), []int64{d}) {
		t.Errorf("kinds: %v, want [%d]", ids(got), d)
	}
	got, _ = s.SearchMemories(ctx, record.TextQuery{Project: "/b", Match: `"gate"`, MinID: b[2], Limit: 10})
	if !reflect.DeepEqual(ids(got), []int64{d, b[2]}) {
		t.Errorf("window: %v, want %v", ids(got), []int64{d, b[2]})
	}
	if got, err := s.SearchMemories(ctx, record.TextQuery{Project: "/b", Limit: 10}); got != nil || err != nil {
		t.Errorf("empty match: %v %v", got, err)
	}
}

func TestTermCountsAndCounts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for i := 0; i < 12; i++ {
		addMem(t, s, "/a", record.KindNote, fmt.Sprintf("calibration run %d", i), t0)
	}
	addMem(t, s, "/b", record.KindNote, "rare word zyxt", t0)
	got, err := s.TermCounts(ctx, []string{`"calibration"`, `"zyxt"`, `"absent"`, `("run" OR "zyxt")`}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{10, 1, 0, 10}; !reflect.DeepEqual(got, want) {
		t.Errorf("TermCounts = %v, want %v", got, want)
	}
	if n, _ := s.MemoryCount(ctx, "/a"); n != 12 {
		t.Errorf("MemoryCount = %d, want 12", n)
	}
	if id, _ := s.MaxMemoryID(ctx); id != 13 {
		t.Errorf("MaxMemoryID = %d, want 13", id)
	}
}

func ftsCount(t *testing.T, s *Store, word string) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRow("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", word).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestForgetAndRemember(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	id := addMem(t, s, "/a", record.KindNote, "mycoplasma test passed", t0)
	keep := addMem(t, s, "/a", record.KindNote, "mycoplasma stock thawed", t0)
	emb := make([]byte, 384*4)
	if _, err := s.DB().Exec("INSERT INTO vec_memories(memory_id, project_path, embedding, model, kind, created_at) VALUES (?, '/a', ?, 'm', 'note', 0)", id, emb); err != nil {
		t.Fatal(err)
	}
	forget := func() {
		if err := s.Tx(ctx, func(tx *Tx) error { return tx.ForgetMemory(ctx, id) }); err != nil {
			t.Fatal(err)
		}
	}
	forget()
	forget() // a second time changes nothing
	m, _ := s.Memory(ctx, id)
	var vecs, queued int
	s.DB().QueryRow("SELECT count(*) FROM vec_memories WHERE memory_id = ?", id).Scan(&vecs)
	s.DB().QueryRow("SELECT count(*) FROM embed_queue WHERE memory_id = ? AND status = 'pending'", id).Scan(&queued)
	if !m.Forgotten || ftsCount(t, s, "mycoplasma") != 1 || ftsCount(t, s, "passed") != 0 || vecs != 0 || queued != 0 {
		t.Errorf("after forget: forgotten %v fts %d/%d vecs %d queued %d", m.Forgotten, ftsCount(t, s, "mycoplasma"), ftsCount(t, s, "passed"), vecs, queued)
	}
	if got, _ := s.MemoriesByID(ctx, "/a", []int64{id, keep}); len(got) != 1 || got[0].ID != keep {
		t.Errorf("MemoriesByID returned a forgotten memory: %+v", got)
	}
	if err := s.Tx(ctx, func(tx *Tx) error { return tx.RememberMemory(ctx, id, t0) }); err != nil {
		t.Fatal(err)
	}
	s.DB().QueryRow("SELECT count(*) FROM embed_queue WHERE memory_id = ? AND status = 'pending'", id).Scan(&queued)
	if ftsCount(t, s, "passed") != 1 || queued != 1 {
		t.Errorf("after remember: fts %d queued %d", ftsCount(t, s, "passed"), queued)
	}
	// The FTS5 index still agrees with its content table.
	if _, err := s.DB().Exec("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')"); err != nil {
		t.Errorf("FTS5 integrity check: %v", err)
	}
	err := s.Tx(ctx, func(tx *Tx) error { return tx.ForgetMemory(ctx, 999) })
	if fault.KindOf(err) != fault.NotFound {
		t.Errorf("forget of a missing memory: %v", err)
	}
}

func TestLinkConflictAndReads(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := addMem(t, s, "/a", record.KindNote, "one", t0)
	b := addMem(t, s, "/a", record.KindNote, "two", t0.Add(time.Hour))
	c := addMem(t, s, "/a", record.KindNote, "three", t0.Add(2*time.Hour))
	o := addMem(t, s, "/o", record.KindNote, "other", t0)
	link := func(x, y int64) {
		t.Helper()
		var added bool
		if err := s.Tx(ctx, func(tx *Tx) (err error) { added, err = tx.LinkConflict(ctx, x, y, t0); return err }); err != nil {
			t.Fatal(err)
		}
		if !added {
			t.Errorf("link M-%d M-%d: not added", x, y)
		}
	}
	link(b, a)
	link(c, a) // many to many: a holds both links
	// Linking twice adds nothing.
	for _, p := range [][2]int64{{c, a}, {a, b}} {
		if err := s.Tx(ctx, func(tx *Tx) error {
			if added, err := tx.LinkConflict(ctx, p[0], p[1], t0); added || err != nil {
				t.Errorf("link M-%d M-%d again: added %v, %v", p[0], p[1], added, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, want map[int64][]int64, superseded map[int64]int64) {
		t.Helper()
		for id, w := range want {
			m, _ := s.Memory(ctx, id)
			if !slices.Equal(m.Conflicts, w) {
				t.Errorf("%s: M-%d conflicts with %v, want %v", when, id, m.Conflicts, w)
			}
			switch sup, ok := superseded[id]; {
			case !ok && m.SupersededBy != nil:
				t.Errorf("%s: M-%d superseded by M-%d, want not superseded", when, id, *m.SupersededBy)
			case ok && (m.SupersededBy == nil || *m.SupersededBy != sup):
				t.Errorf("%s: M-%d superseded by %v, want M-%d", when, id, m.SupersededBy, sup)
			}
		}
	}
	// a is oldest, c newest: a points to the newest that contradicts it.
	check("linked", map[int64][]int64{a: {b, c}, b: {a}, c: {a}}, map[int64]int64{a: c})
	// Forgetting c hands a to the next newer contradiction, b; bringing
	// c back restores it.
	if err := s.Tx(ctx, func(tx *Tx) error { return tx.ForgetMemory(ctx, c) }); err != nil {
		t.Fatal(err)
	}
	check("c forgotten", map[int64][]int64{a: {b, c}}, map[int64]int64{a: b})
	if err := s.Tx(ctx, func(tx *Tx) error { return tx.RememberMemory(ctx, c, t0) }); err != nil {
		t.Fatal(err)
	}
	check("c remembered", map[int64][]int64{a: {b, c}}, map[int64]int64{a: c})
	got, _ := s.MemoriesByID(ctx, "/a", []int64{c, o, a, c, 777})
	if len(got) != 2 || got[0].ID != c || got[1].ID != a {
		t.Errorf("MemoriesByID = %+v, want M-%d, M-%d", got, c, a)
	}
	rec, _ := s.RecentMemories(ctx, "/a", 2)
	if len(rec) != 2 || rec[0].ID != c || rec[1].ID != b {
		t.Errorf("RecentMemories = %+v", rec)
	}
	var all []int64
	s.ExportMemories(ctx, "", func(m record.MemoryRecord) error { all = append(all, m.ID); return nil })
	if !reflect.DeepEqual(all, []int64{a, o, b, c}) {
		t.Errorf("export all = %v, want %v", all, []int64{a, o, b, c})
	}
	if _, err := s.Memory(ctx, 12345); fault.KindOf(err) != fault.NotFound {
		t.Errorf("missing memory: %v", err)
	}
}

// TestLinkConflictByTrust: of two memories that contradict, the more
// trusted stands, and of two equally trusted the newer (record.Outranks).
// A newer, less trusted memory disputes the older one, which stays
// current; the row's superseded_by (what SessionStart ranks by) names the
// memory that outranks it either way, as the record's links do.
func TestLinkConflictByTrust(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	add := func(text string, trust float64, at time.Time) int64 {
		t.Helper()
		var id int64
		if err := s.Tx(ctx, func(tx *Tx) (err error) {
			id, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/a", Kind: record.KindNote, Text: text, Source: "cli",
				Trust: record.Trust(trust), At: at})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	link := func(x, y int64) {
		t.Helper()
		if err := s.Tx(ctx, func(tx *Tx) error { _, err := tx.LinkConflict(ctx, x, y, t0); return err }); err != nil {
			t.Fatal(err)
		}
	}
	forget := func(id int64) {
		t.Helper()
		if err := s.Tx(ctx, func(tx *Tx) error { return tx.ForgetMemory(ctx, id) }); err != nil {
			t.Fatal(err)
		}
	}
	p := add("guide length 20 nt (doi:10.1038/nbt.3437)", 0.85, t0)
	m := add("guide length 17 nt", 0.35, t0.Add(time.Hour))
	m2 := add("guide length 18 nt", 0.35, t0.Add(90*time.Minute))
	q := add("guide length 21 nt, measured", 1, t0.Add(2*time.Hour))
	type where struct {
		state              string
		superseded, disput int64 // 0: none
		disputedBy         []int64
	}
	check := func(when string, want map[int64]where) {
		t.Helper()
		heads, err := s.SalientCandidates(ctx, "/a", 10)
		if err != nil {
			t.Fatal(err)
		}
		column := map[int64]*int64{}
		for _, h := range heads {
			column[h.ID] = h.OutrankedBy
		}
		for id, w := range want {
			r, err := s.Memory(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got := where{r.State(), deref(r.SupersededBy), deref(r.Disputes), r.DisputedBy}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: M-%d stands %+v, want %+v", when, id, got, w)
			}
			if c, ok := column[id]; ok && deref(c) != deref(r.OutrankedBy()) {
				t.Errorf("%s: M-%d superseded_by %d, its links say %d", when, id, deref(c), deref(r.OutrankedBy()))
			}
		}
	}
	link(m, p)
	check("model disputes paper", map[int64]where{
		p: {record.MemoryDisputed, 0, 0, []int64{m}},
		m: {record.MemoryDisputing, 0, p, nil},
	})
	link(m2, m)
	link(m2, p)
	check("newer model output", map[int64]where{
		p:  {record.MemoryDisputed, 0, 0, []int64{m2, m}},
		m:  {record.MemorySuperseded, m2, p, nil}, // equal trust: the newer supersedes
		m2: {record.MemoryDisputing, 0, p, nil},
	})
	link(q, p)
	check("a person's note", map[int64]where{
		p: {record.MemorySuperseded, q, 0, []int64{m2, m}},
		q: {record.MemoryDisputed, 0, 0, nil},
	})
	forget(q)
	forget(m2)
	check("person and newer model output forgotten", map[int64]where{
		p: {record.MemoryDisputed, 0, 0, []int64{m}},
		m: {record.MemoryDisputing, 0, p, nil},
	})
	forget(p)
	check("paper forgotten", map[int64]where{m: {record.MemoryDisputed, 0, 0, nil}})
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func TestSessionCountsOfClaimsAndGates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.Tx(ctx, func(tx *Tx) error {
		return tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/a", At: t0, Start: true})
	}); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		if _, err := s.DB().Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(id, event, status string) {
		exec("INSERT INTO claim_events (claim_id, session_id, project_path, event_type, new_status, ts) VALUES (?, 's1', '/a', ?, NULLIF(?, ''), 0)", id, event, status)
	}
	gate := func(g, c, status string) {
		exec("INSERT INTO gate_checks (session_id, project_path, gate_id, claim_id, status, ts) VALUES ('s1', '/a', ?, NULLIF(?, ''), ?, 0)", g, c, status)
	}
	claim("C-1", "CREATED", "PROVISIONAL")
	claim("C-1", "R2_REVIEWED", "") // no status change: still provisional
	claim("C-2", "CREATED", "PROVISIONAL")
	claim("C-2", "KILLED", "KILLED")
	claim("C-3", "CREATED", "PROVISIONAL")
	claim("C-3", "VERIFIED", "VERIFIED")
	claim("C-4", "CREATED", "PROVISIONAL")
	claim("C-4", "DISPUTED", "DISPUTED")
	gate("DQ1", "C-1", "FAIL")
	gate("DQ1", "C-1", "PASS") // fixed
	gate("DQ2", "C-1", "FAIL") // pending
	gate("L-1", "", "FAIL")    // pending, no claim
	gate("DQ2", "C-4", "PASS")
	exec("INSERT INTO gate_checks (project_path, gate_id, status, ts) VALUES ('/b', 'DQ3', 'FAIL', 0)")
	_, claims, gates, err := s.SessionCounts(ctx, "/a", "")
	if err != nil || claims != 2 || gates != 2 {
		t.Errorf("SessionCounts = %d claims, %d gates, %v; want 2, 2", claims, gates, err)
	}
	_, claims, gates, _ = s.SessionCounts(ctx, "/empty", "")
	if claims != 0 || gates != 0 {
		t.Errorf("empty project: %d, %d", claims, gates)
	}
}

// TestForgottenRowsKeepFTSConsistent drives every write the 0003 triggers
// cover and checks the FTS5 index after each: forgetting, remembering,
// editing a forgotten or a remembered memory, and deleting either.
func TestForgottenRowsKeepFTSConsistent(t *testing.T) {
	s := openTest(t)
	a := addMem(t, s, "/a", record.KindNote, "alpha resonance", t0)
	b := addMem(t, s, "/a", record.KindNote, "beta resonance", t0)
	check := func(step string, alpha, beta, gamma int) {
		t.Helper()
		if _, err := s.DB().Exec("INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check')"); err != nil {
			t.Fatalf("%s: FTS5 integrity check: %v", step, err)
		}
		if got := [3]int{ftsCount(t, s, "alpha"), ftsCount(t, s, "beta"), ftsCount(t, s, "gamma")}; got != [3]int{alpha, beta, gamma} {
			t.Errorf("%s: alpha/beta/gamma matches %v, want %v", step, got, [3]int{alpha, beta, gamma})
		}
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.DB().Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	check("start", 1, 1, 0)
	exec("UPDATE memories SET forgotten = 1 WHERE id = ?", a)
	check("forget a", 0, 1, 0)
	exec("UPDATE memories SET text = 'gamma resonance' WHERE id = ?", a)
	check("edit forgotten a", 0, 1, 0)
	exec("UPDATE memories SET forgotten = 0 WHERE id = ?", a)
	check("remember a", 0, 1, 1)
	exec("UPDATE memories SET text = 'alpha again', forgotten = 1 WHERE id = ?", a)
	check("edit and forget a", 0, 1, 0)
	exec("DELETE FROM memories WHERE id = ?", a)
	check("delete forgotten a", 0, 1, 0)
	exec("UPDATE memories SET text = 'gamma now' WHERE id = ?", b)
	check("edit b", 0, 0, 1)
	exec("DELETE FROM memories WHERE id = ?", b)
	check("delete b", 0, 0, 0)
}

// TestMigrationMovesConflictLinks takes a database back to schema 8 (one
// conflicts_with column, set on both memories, each keeping its first),
// and checks that 0009 turns those into links both ways, supersedes the
// older of each pair and leaves the old memories checked.
func TestMigrationMovesConflictLinks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := addMem(t, s, "/a", record.KindNote, "one", t0)
	b := addMem(t, s, "/a", record.KindNote, "two", t0.Add(time.Hour))
	c := addMem(t, s, "/a", record.KindNote, "three", t0.Add(2*time.Hour))
	for _, q := range []string{
		"DROP INDEX idx_memories_salient", // 0012 indexes superseded_by
		"DROP INDEX idx_memories_unchecked", "ALTER TABLE memories DROP COLUMN unchecked",
		"ALTER TABLE memories DROP COLUMN superseded_by", "DROP TABLE memory_links",
		"DROP TRIGGER spine_entries_count", "ALTER TABLE sessions DROP COLUMN tool_calls",
		// b contradicted a first, then c contradicted a: a kept b.
		fmt.Sprintf("UPDATE memories SET conflicts_with = %d WHERE id IN (%d, %d)", a, b, c),
		fmt.Sprintf("UPDATE memories SET conflicts_with = %d WHERE id = %d", b, a),
		"PRAGMA user_version = 8",
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(ctx); v != db.Latest() {
		t.Fatalf("version %d, want %d", v, db.Latest())
	}
	want := map[int64]struct {
		conflicts  []int64
		superseded int64 // 0: none
	}{a: {[]int64{b, c}, c}, b: {[]int64{a}, 0}, c: {[]int64{a}, 0}}
	for id, w := range want {
		m, err := s.Memory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got := int64(0)
		if m.SupersededBy != nil {
			got = *m.SupersededBy
		}
		if !slices.Equal(m.Conflicts, w.conflicts) || got != w.superseded {
			t.Errorf("M-%d: conflicts %v superseded by %d, want %v and %d", id, m.Conflicts, got, w.conflicts, w.superseded)
		}
	}
	if un, err := s.UncheckedMemories(ctx, 10); err != nil || len(un) != 0 {
		t.Errorf("unchecked after migration: %v %v", un, err)
	}
}

// TestTrustSettlesLinksMadeBefore: a link settled by recency alone before
// migration 0018 (the newer model-sourced memory superseding the older
// paper's) is settled by trust when the database is opened again: the
// paper's stays current and the model's is outranked by it.
func TestTrustSettlesLinksMadeBefore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var paper, model int64
	if err := s.Tx(ctx, func(tx *Tx) (err error) {
		if paper, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/a", Kind: record.KindNote, Text: "guide length 20 nt (doi:10.1038/nbt.3437)",
			Source: "cli", Trust: record.Trust(0.85), At: t0}); err != nil {
			return err
		}
		if model, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/a", Kind: record.KindNote, Text: "guide length 17 nt",
			Source: "cli", Trust: record.Trust(0.35), At: t0.Add(time.Hour)}); err != nil {
			return err
		}
		_, err = tx.LinkConflict(ctx, paper, model, t0.Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	version := 0
	ms, _ := db.Migrations()
	for _, m := range ms {
		if m.Name == "trust_settles" {
			version = m.Version
		}
	}
	if version == 0 {
		t.Fatal("no migration named trust_settles")
	}
	// The state the old rule left: the newer one supersedes the older.
	for _, q := range []string{
		fmt.Sprintf("UPDATE memories SET superseded_by = %d WHERE id = %d", model, paper),
		fmt.Sprintf("UPDATE memories SET superseded_by = NULL WHERE id = %d", model),
		fmt.Sprintf("PRAGMA user_version = %d", version-1),
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pSup, mSup sql.NullInt64
	if err := s.DB().QueryRowContext(ctx, "SELECT (SELECT superseded_by FROM memories WHERE id = ?), (SELECT superseded_by FROM memories WHERE id = ?)", paper, model).Scan(&pSup, &mSup); err != nil {
		t.Fatal(err)
	}
	if pSup.Valid || !mSup.Valid || mSup.Int64 != paper {
		t.Errorf("after 0018: the paper's superseded_by %v, the model's %v; want the paper current and the model outranked by it (%d)", pSup, mSup, paper)
	}
}
