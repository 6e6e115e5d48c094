package viewer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// benchRows is how many spine entries the page benchmark pre-fills, as
// bench/main.go does for the hooks.
const benchRows = 100_000

// prefillSpine adds rows spine entries to the project, 500 per session, in
// the shape bench/main.go writes.
func prefillSpine(b testing.TB, f *filled, rows int) {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, f.db, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	base := f.clock.Add(-30 * 24 * time.Hour)
	err = st.Tx(ctx, func(tx *store.Tx) error {
		const perSession = 500
		for i := 0; i < rows; i++ {
			sid := fmt.Sprintf("prefill-%d", i/perSession)
			at := base.Add(time.Duration(i) * time.Second)
			if i%perSession == 0 {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: sid, ProjectPath: f.proj, At: at, Start: true}); err != nil {
					return err
				}
			}
			d := int64(i % 900)
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: sid, ProjectPath: f.proj, At: at,
				ActionType: []string{"DATA_LOAD", "MODEL_TRAIN", "CODE_EDIT", "COMMAND", "FILE_READ"}[i%5],
				ToolName:   []string{"Bash", "Read", "Write", "Edit"}[i%4], ToolUseID: fmt.Sprintf("toolu_pre_%d", i),
				InputSummary: fmt.Sprintf("$ python step_%d.py --seed %d", i%97, i), OutputSummary: "ok",
				InputSHA256: "x", OutputSHA256: "y", DurationMS: &d}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPages times each page over a project with 100k spine entries
// (plus the replayed fixtures and the scripted research session), served
// in-process from the read-only store, and reports the p50 and p95 of the
// handler's time per page. Run: go test -run '^$' -bench Pages ./internal/viewer
func BenchmarkPages(b *testing.B) {
	f := fill(b)
	prefillSpine(b, f, benchRows)
	srv := open(b, f)
	h := srv.Handler()
	for _, p := range []struct{ name, path string }{
		{"overview", srv.link("/")},
		{"sessions", srv.link("/sessions")},
		{"session", srv.link("/session", "id", "prefill-100")},
		{"spine", srv.link("/spine")},
		{"spine-older", srv.link("/spine", "before", benchRows/2)},
		{"spine-tool", srv.link("/spine", "tool", "Edit")},
		{"spine-search-miss", srv.link("/spine", "q", "no such text anywhere")},
		{"claims", srv.link("/claims")},
		{"claim", srv.link("/claim", "id", "C-001")},
		{"gates", srv.link("/gates")},
		{"calibration", srv.link("/calibration")},
		{"literature", srv.link("/literature")},
		{"seeds", srv.link("/seeds")},
	} {
		b.Run(p.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				r := httptest.NewRequest(http.MethodGet, p.path, nil)
				r.RemoteAddr, r.Host = "127.0.0.1:50000", "127.0.0.1:8080"
				w := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(w, r)
				times = append(times, time.Since(start))
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", p.path, w.Code, w.Body.String())
				}
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkBrowserLoad loads each main page in headless chromium over a
// project with 100k spine entries and reports the p50 and p95 of the
// browser's own navigation timing (request sent to load event, stylesheet,
// script and icon included). Run: go test -run '^$' -bench BrowserLoad
// ./internal/viewer
func BenchmarkBrowserLoad(b *testing.B) {
	br := newBrowser(b)
	f := fill(b)
	prefillSpine(b, f, benchRows)
	srv := open(b, f)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()
	for _, p := range []struct{ name, path string }{
		{"overview", srv.link("/")},
		{"session", srv.link("/session", "id", "prefill-100")},
		{"spine", srv.link("/spine")},
		{"claims", srv.link("/claims")},
		{"claim", srv.link("/claim", "id", "C-001")},
		{"gates", srv.link("/gates")},
		{"calibration", srv.link("/calibration")},
	} {
		b.Run(p.name, func(b *testing.B) {
			times := make([]float64, 0, b.N)
			for i := 0; i < b.N; i++ {
				br.open(b, base+p.path)
				ms := eval[float64](b, br, `(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd > 0 ? n.loadEventEnd - n.startTime : -1 })()`)
				if ms < 0 {
					br.waitFor(b, `performance.getEntriesByType('navigation')[0].loadEventEnd > 0`)
					ms = eval[float64](b, br, `(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime })()`)
				}
				times = append(times, ms)
			}
			sort.Float64s(times)
			b.ReportMetric(times[len(times)/2], "p50-ms")
			b.ReportMetric(times[len(times)*95/100], "p95-ms")
		})
	}
	if errs := br.errors(); len(errs) > 0 {
		b.Errorf("console errors: %v", errs)
	}
}
