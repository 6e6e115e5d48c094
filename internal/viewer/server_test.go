package viewer

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
)

// open starts a viewer over a filled project's database, opened read-only.
func open(t testing.TB, f *filled) *Server {
	t.Helper()
	st, err := store.Open(context.Background(), f.db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := f.clock
	srv, err := New(Config{Store: st, Project: f.proj, Token: "tok3n", Now: func() time.Time { return now },
		PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func get(t testing.TB, h http.Handler, target string, mod ...func(*http.Request)) (int, string, http.Header) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.RemoteAddr = "127.0.0.1:50000"
	r.Host = "127.0.0.1:8080"
	for _, m := range mod {
		m(r)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b), w.Result().Header
}

func TestPagesRender(t *testing.T) {
	f := fill(t)
	srv := open(t, f)
	cases := []struct {
		path string
		want []string
	}{
		{"/", []string{"2</span> sessions", "4</span> spine entries", "3</span> open claims of 5", "1</span> failing gates", "2</span> pending seeds",
			"2</span> evidence cycles", "12</span> claim outcomes",
			"RQ-001: off-target rate vs mismatches &lt;in progress&gt;", "No literature search in the last 40 actions",
			".vibe-science/05-reviewer2/R2-001.md → C-001 → .vibe-science/05-reviewer2/R2-001.md", "C-002 → C-003 → C-002"}},
		{"/sessions", []string{"372e7d5d-9e0", "5c1e7a00-000"}},
		{"/spine", []string{"&lt;script&gt;document.title=", "WebSearch", "notes.txt"}},
		{"/spine?tool=Bash", []string{"&lt;script&gt;"}},
		{"/spine?q=nothing-matches-this", []string{"No spine entry matches these filters."}},
		{"/session?id=" + researchSession, []string{"Narrative", "&lt;img src=x", "Session 5c1e7a00: 2 actions"}},
		{"/claims", []string{`id="claim-lifecycles"`, `<rect class="life s-disputed"`, `<circle class="life-event s-killed"`, "C-005 KILLED at", `id="evidence-graph"`, `class="edge depends-on cycle"`, "Circular support", "Seed-region mismatches matter most"}},
		{"/claim?id=C-001", []string{"R2-001", "DQ2", "CONFIDENCE_CHANGED", `id="claim-confidence"`, "This claim's support is circular", "data/offtarget.csv"}},
		{"/claim?id=c-004", []string{"VERIFIED", "DQ4", "No review cites C-004."}},
		{"/gates", []string{"DQ2", "DQ4", `class="run fail"`}},
		{"/gate?id=DQ2", []string{"min_auc: run 5", "6 runs, oldest first", `id="gate-timeline"`, "DQ2 WARN at 2026-11-20"}},
		{"/calibration", []string{`id="reliability"`, `id="confidence-outcome"`, `id="brier"`, "12 claim outcomes"}},
		{"/literature", []string{"seed region mismatch specificity", "pubmed", "10.1038/nbt.2647",
			`<h2 id="citations">Citations</h2>`, "1 retrieved, 0 unretrieved, 1 invalid",
			`<tr><td><span class="status c-invalid">invalid</span></td><td><code>doi:10.9999/fabricated.2021.001</code></td><td class="path">.vibe-science/RQ-001/04-results/FINDINGS.md:3</td>`,
			`<td><code>doi:10.1038/nbt.2647</code></td><td class="path">.vibe-science/RQ-001/04-results/FINDINGS.md:3</td><td>search 2 (MCP &#34;seed region mismatch specificity&#34;, session 5c1e7a00)</td>`}},
		{"/seeds", []string{"SEED-20261120-001", "Why do guides with &lt;3 mismatches cluster?"}},
		{"/", []string{"4</span> decisions: 2 denied or blocked, 1 asked, 1 warned", "7</span> memories: 1 superseded, 1 disputing, 2 disputed",
			"<h2>Recent decisions</h2>\n<table class=\"decisions\">", "pip install numpy"}},
		{"/decisions", []string{"<option value=\"deny\">deny (2)</option>", "<option value=\"ask\">ask (1)</option>",
			`<span class="status d-deny">deny</span><br><small>HARD_BLOCK</small>`, "<td>Write</td><td class=\"path\">.vibe-science/CLAIM-LEDGER.md</td>",
			`<span class="status d-ask">ask</span>`, "pip install numpy", `<span class="status d-warn">warn</span>`, "results/sample.csv",
			"Fix: Record it in DESIGN.md under Deviations."}},
		{"/decisions?kind=ask", []string{"pip install numpy"}},
		{"/decisions?check=nothing", []string{"No decision matches these filters."}},
		{"/session?id=" + researchSession, []string{`<section class="session-decisions"><h2>Decisions</h2>`, "pip install numpy", "results/sample.csv"}},
		{"/memories", []string{"M-", "Batch 3 failed QC on the GC-rich guides", `<span class="status m-superseded">superseded</span>`,
			`<span class="status m-disputed">disputed</span><br><small>by the less trusted <a href="#m`,
			`<span class="status m-disputing">disputing</span><br><small>disputes the better-sourced <a href="#m`, "Seed-region &lt;mismatches&gt; drive the off-target rate",
			"notes.jsonl:2", "<td>0.50</td>", "code 1.00, person 1.00, paper 0.85, blog 0.50, model 0.35"}},
		{"/memories?q=sequencer+failure", []string{"Best match first", "the failure was the sequencer"}},
		{"/memories?q=the", []string{"has no word recall can search for"}},
		{"/memories?state=forgotten", []string{"a note forgotten since"}},
		{"/memories?kind=hypothesis", []string{"Seed-region &lt;mismatches&gt;"}},
	}
	for _, c := range cases {
		sep := "?"
		if strings.Contains(c.path, "?") {
			sep = "&"
		}
		code, body, h := get(t, srv.Handler(), c.path+sep+"t=tok3n")
		if code != http.StatusOK {
			t.Errorf("GET %s: %d %s", c.path, code, body)
			continue
		}
		if h.Get("Content-Security-Policy") != ContentSecurityPolicy {
			t.Errorf("GET %s: CSP %q", c.path, h.Get("Content-Security-Policy"))
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: body lacks %q", c.path, w)
			}
		}
		if strings.Contains(body, injected) || strings.Contains(body, "<script>document") {
			t.Errorf("GET %s: injected HTML reached the page unescaped", c.path)
		}
		if strings.Contains(body, "<style") || strings.Contains(body, " style=") || strings.Contains(body, "<script>") {
			t.Errorf("GET %s: inline style or script, which the CSP forbids", c.path)
		}
	}
}

// TestDecisionsSayEachFixOnce: a decision whose reason already says its
// fix (a permission's) shows no "Fix:" line repeating it; one whose reason
// does not (DC0's) shows its fix.
func TestDecisionsSayEachFixOnce(t *testing.T) {
	f := fill(t)
	srv := open(t, f)
	_, body, _ := get(t, srv.Handler(), "/decisions?t=tok3n")
	if strings.Contains(body, "<small>Fix: installing packages") || !strings.Contains(body, "<small>Fix: Record it in DESIGN.md under Deviations.</small>") {
		t.Errorf("fixes on the decisions page:\n%s", body)
	}
}

func TestNotFound(t *testing.T) {
	f := fill(t)
	srv := open(t, f)
	for path, want := range map[string]string{
		"/claim?id=C-999&t=tok3n":  "claim C-999 has no recorded event and is not in the claim ledger",
		"/gate?id=NOPE&t=tok3n":    "gate NOPE has no recorded run in this project",
		"/session?id=nope&t=tok3n": "nope",
		"/nowhere?t=tok3n":         "404 page not found",
		"/assets/evil.js?t=tok3n":  "404 page not found",
	} {
		code, body, _ := get(t, srv.Handler(), path)
		if code != http.StatusNotFound || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %q, want 404 with %q", path, code, body, want)
		}
	}
}

func TestGuard(t *testing.T) {
	f := fill(t)
	srv := open(t, f)
	h := srv.Handler()
	cases := []struct {
		name   string
		target string
		mod    func(*http.Request)
		code   int
		want   string
	}{
		{"no token", "/", nil, 403, "missing or wrong token"},
		{"wrong token", "/?t=tok3", nil, 403, "missing or wrong token"},
		{"token of another run on an asset", "/assets/app.css?t=other", nil, 403, "missing or wrong token"},
		{"no token on the live stream", "/events", nil, 403, "missing or wrong token"},
		{"remote peer", "/?t=tok3n", func(r *http.Request) { r.RemoteAddr = "192.0.2.7:4000" }, 403, "only on this machine"},
		{"remote IPv6 peer", "/?t=tok3n", func(r *http.Request) { r.RemoteAddr = "[2001:db8::1]:4000" }, 403, "only on this machine"},
		{"rebinding host", "/?t=tok3n", func(r *http.Request) { r.Host = "evil.example:8080" }, 403, "only to http://127.0.0.1"},
		{"write method", "/?t=tok3n", func(r *http.Request) { r.Method = http.MethodPost }, 405, "read-only"},
		{"localhost host", "/?t=tok3n", func(r *http.Request) { r.Host = "localhost:8080" }, 200, "Overview"},
		{"ok", "/?t=tok3n", nil, 200, "Overview"},
	}
	for _, c := range cases {
		var mods []func(*http.Request)
		if c.mod != nil {
			mods = append(mods, c.mod)
		}
		code, body, hdr := get(t, h, c.target, mods...)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, code, body, c.code, c.want)
		}
		if hdr.Get("Content-Security-Policy") == "" || hdr.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: security headers missing: %v", c.name, hdr)
		}
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0", "[::1]:0", "127.0.0.1"} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded; only 127.0.0.1 is allowed", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := Listen(addr)
		if err != nil {
			t.Fatalf("Listen(%q): %v", addr, err)
		}
		tcp := ln.Addr().String()
		ln.Close()
		if !strings.HasPrefix(tcp, "127.0.0.1:") {
			t.Errorf("Listen(%q) listens on %s", addr, tcp)
		}
	}
}

func TestStoreIsReadOnly(t *testing.T) {
	f := fill(t)
	st, err := store.Open(context.Background(), f.db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.DB().Exec(`DELETE FROM spine_entries`)
	if err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("a write through the viewer's connection: %v, want a read-only refusal", err)
	}
}

func TestLiveStream(t *testing.T) {
	f := fill(t)
	srv := open(t, f)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	head, err := srv.cfg.Store.SpineHead(context.Background(), f.proj)
	if err != nil || head == 0 {
		t.Fatalf("spine head %d, %v", head, err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+srv.link("/events", "since", head), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	got := make(chan string, 1)
	go func() {
		var all strings.Builder
		buf := make([]byte, 512)
		for {
			n, err := resp.Body.Read(buf)
			all.Write(buf[:n])
			if strings.Contains(all.String(), "event: spine") || err != nil {
				got <- all.String()
				return
			}
		}
	}()
	// Nothing new: no event for a few polls.
	select {
	case s := <-got:
		t.Fatalf("event before any new entry: %q", s)
	case <-time.After(300 * time.Millisecond):
	}
	f.runHook(t, "PostToolUse", []byte(`{"session_id":"`+researchSession+`","cwd":"`+f.proj+
		`","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"`+f.proj+
		`/data/gc.csv"},"tool_response":{},"tool_use_id":"toolu_live"}`))
	select {
	case s := <-got:
		if !strings.Contains(s, "event: spine\ndata: ") {
			t.Fatalf("stream: %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no spine event after a new entry landed")
	}
}

// TestEmptyProject renders every page of a project vibe has recorded
// nothing for: each says so instead of failing.
func TestEmptyProject(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "vibe.db")
	w, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	st, err := store.Open(ctx, db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := New(Config{Store: st, Project: t.TempDir(), Token: "tok3n", Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/":            "No session recorded for this project yet.",
		"/sessions":    "No session recorded for this project yet.",
		"/spine":       "No spine entry.",
		"/claims":      "No evidence graph: the claim ledger is empty or missing.",
		"/gates":       "No gate has run in this project.",
		"/calibration": "0 claim outcomes recorded; the Brier score, ECE and reliability diagram need at least 10.",
		"/literature":  "No literature search recorded for this project.</p>\n<h2 id=\"citations\">Citations</h2>\n<p class=\"empty\">No findings, claim ledger, review or direction cites a paper id.</p>",
		"/seeds":       "No serendipity seed recorded for this project.",
	} {
		code, body, _ := get(t, srv.Handler(), path+"?t=tok3n")
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d, want 200 with %q:\n%s", path, code, want, body)
		}
	}
}

// wildcardListener claims to listen on every interface.
type wildcardListener struct{ net.Listener }

func (wildcardListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4zero, Port: 8080} }

func TestServeRefusesNonLoopbackListener(t *testing.T) {
	f := fill(t)
	srv := open(t, f)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = srv.Serve(wildcardListener{ln})
	if err == nil || !strings.Contains(err.Error(), "refusing to serve on 0.0.0.0:8080: not a loopback address") {
		t.Fatalf("Serve on a wildcard listener: %v", err)
	}
}

// TestSpineWindow: a project-wide spine page reads a bounded id range and
// offers to go on from where it stopped.
func TestSpineWindow(t *testing.T) {
	f := fill(t)
	prefillSpine(t, f, spineWindow+500)
	srv := open(t, f)
	top, err := srv.cfg.Store.SpineMaxID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The research session's Bash call is older than the whole window.
	code, body, _ := get(t, srv.Handler(), srv.link("/spine", "q", "document.title"))
	low := top - spineWindow
	want := fmt.Sprintf("No spine entry matches these filters among entries #%d to #%d.", low+1, top)
	if code != 200 || !strings.Contains(body, want) {
		t.Fatalf("first window: %d, want %q in\n%s", code, want, body)
	}
	next := fmt.Sprintf(`before=%d`, low+1)
	if !strings.Contains(body, next) || !strings.Contains(body, "search older entries") {
		t.Fatalf("first window offers no way on (%s)", next)
	}
	code, body, _ = get(t, srv.Handler(), srv.link("/spine", "q", "document.title", "before", low+1))
	if code != 200 || !strings.Contains(body, "&lt;script&gt;document.title=") {
		t.Fatalf("second window: %d, the old Bash call is not found:\n%s", code, body)
	}
	// An unfiltered page is full long before the window's bottom.
	_, body, _ = get(t, srv.Handler(), srv.link("/spine"))
	if strings.Count(body, `<tr id="e`) != spinePageSize || !strings.Contains(body, fmt.Sprintf("before=%d", top-spinePageSize+1)) {
		t.Errorf("unfiltered first page: %d rows", strings.Count(body, `<tr id="e`))
	}
}
