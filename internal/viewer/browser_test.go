package viewer

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium. Outside CI a machine without it
// skips the browser tests; in CI (.ci/run installs it) they must run.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); skipping the browser tests")
	return ""
}

// browser starts a headless chromium with a fresh profile and no network
// services of its own, and collects every console message of its tab.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
}

func newBrowser(t testing.TB) *browser {
	t.Helper()
	path := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	tctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b := &browser{ctx: tctx}
	if err := chromedp.Do(b.ctx); err != nil { // start the browser and its tab
		t.Fatalf("start chromium: %v", err)
	}
	msgs := chromedp.Console(b.ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.msgs = append(b.msgs, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// errors returns the console errors and exceptions seen since the last call.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.msgs {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			out = append(out, m.String()+" ("+m.URL+")")
		}
	}
	b.msgs = nil
	return out
}

func eval[T any](t testing.TB, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitFor evaluates js until it is true, across navigations (which fail an
// evaluation under way), for at most ten seconds.
func (b *browser) waitFor(t testing.TB, js string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
		if err == nil && got {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s (last: %v, %v)", js, got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *browser) open(t testing.TB, url string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// TestBrowser drives the viewer in a real headless chromium over a database
// filled by the recorded hook fixtures and a scripted research session.
func TestBrowser(t *testing.T) {
	b := newBrowser(t)
	f := fill(t)
	srv := open(t, f)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if a := ln.Addr().String(); !strings.HasPrefix(a, "127.0.0.1:") {
		t.Fatalf("listening on %s, not loopback", a)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()
	shots := os.Getenv("VIBE_SCREENSHOTS") // a folder: write the README's screenshots there
	screenshot := map[string]bool{"overview-light": true, "session-light": true, "claims-light": true, "claim-light": true,
		"gates-light": true, "gate-light": true, "calibration-light": true, "literature-light": true, "seeds-light": true, "decisions-light": true, "memories-light": true,
		"overview-dark": true, "claim-dark": true, "calibration-dark": true}

	pages := []struct{ name, path string }{
		{"overview", srv.link("/")},
		{"sessions", srv.link("/sessions")},
		{"session", srv.link("/session", "id", researchSession)},
		{"spine", srv.link("/spine")},
		{"claims", srv.link("/claims")},
		{"claim", srv.link("/claim", "id", "C-001")},
		{"gates", srv.link("/gates")},
		{"gate", srv.link("/gate", "id", "DQ2")},
		{"calibration", srv.link("/calibration")},
		{"literature", srv.link("/literature")},
		{"seeds", srv.link("/seeds")},
		{"decisions", srv.link("/decisions")},
		{"memories", srv.link("/memories")},
		{"memory search", srv.link("/memories", "q", "batch QC")},
	}
	t.Run("every page loads without a console error or a remote fetch", func(t *testing.T) {
		for _, p := range pages {
			b.open(t, base+p.path)
			time.Sleep(150 * time.Millisecond) // let the icon, the stylesheet and the stream settle
			if errs := b.errors(); len(errs) > 0 {
				t.Errorf("%s: console errors: %v", p.name, errs)
			}
			h1 := eval[string](t, b, `document.querySelector('h1').textContent`)
			if h1 == "" {
				t.Errorf("%s: no heading", p.name)
			}
			remote := eval[[]string](t, b, fmt.Sprintf(
				`performance.getEntriesByType('resource').map(e => e.name).filter(u => !u.startsWith(%q))`, base+"/"))
			if len(remote) > 0 {
				t.Errorf("%s: fetched from elsewhere: %v", p.name, remote)
			}
			styled := eval[bool](t, b, `getComputedStyle(document.querySelector('header')).display === 'flex'`)
			if !styled {
				t.Errorf("%s: the stylesheet did not apply (CSP or token?)", p.name)
			}
		}
	})

	t.Run("no overview card is left alone on its row", func(t *testing.T) {
		defer chromedp.Call(b.ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		for _, width := range []int64{1400, 1280, 1000, 800, 761, 760, 600, 390} {
			if _, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride,
				emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 900, DeviceScaleFactor: 1}); err != nil {
				t.Fatal(err)
			}
			b.open(t, base+srv.link("/"))
			// Cards per row, rows top to bottom.
			rows := eval[[]int](t, b, `(() => {
				const tops = new Map();
				for (const c of document.querySelectorAll('.cards .card')) {
					const y = Math.round(c.getBoundingClientRect().top);
					tops.set(y, (tops.get(y) || 0) + 1);
				}
				return [...tops.entries()].sort((a, b) => a[0] - b[0]).map(e => e[1]);
			})()`)
			if len(rows) == 0 {
				t.Fatalf("width %d: no cards", width)
			}
			for _, n := range rows {
				if n != rows[0] || (len(rows) > 1 && n == 1) {
					t.Errorf("width %d: cards per row %v, want every row as full as the first and none alone", width, rows)
					break
				}
			}
		}
	})

	t.Run("reliability diagram renders", func(t *testing.T) {
		b.open(t, base+srv.link("/calibration"))
		w := eval[float64](t, b, `document.querySelector('#reliability').getBBox().width`)
		dots := eval[int](t, b, `document.querySelectorAll('#reliability .bin-dot').length`)
		bars := eval[int](t, b, `document.querySelectorAll('#reliability rect.bin').length`)
		if w < 100 || dots < 3 || dots != bars {
			t.Errorf("reliability diagram: width %.0f, %d dots, %d bars", w, dots, bars)
		}
		brier := eval[string](t, b, `document.getElementById('brier').textContent`)
		if brier == "" || brier == "0.000" {
			t.Errorf("Brier score shown as %q", brier)
		}
		if n := eval[int](t, b, `document.querySelectorAll('#confidence-outcome .claim-dot').length`); n != 12 {
			t.Errorf("confidence vs outcome: %d dots, want 12", n)
		}
	})

	t.Run("evidence graph renders with the cycle highlighted", func(t *testing.T) {
		b.open(t, base+srv.link("/claims"))
		nodes := eval[int](t, b, `document.querySelectorAll('#evidence-graph g.node').length`)
		if nodes < 6 {
			t.Errorf("evidence graph has %d nodes", nodes)
		}
		cyc := eval[[]string](t, b, `[...document.querySelectorAll('#evidence-graph g.node.cycle title')].map(e => e.textContent).sort()`)
		want := []string{".vibe-science/05-reviewer2/R2-001.md (review)", "C-001 (claim)", "C-002 (claim)", "C-003 (claim)"}
		if fmt.Sprint(cyc) != fmt.Sprint(want) {
			t.Errorf("nodes drawn on a cycle: %v, want %v", cyc, want)
		}
		// Highlighted means drawn differently: a cycle edge's stroke is not a
		// plain edge's.
		cycStroke := eval[string](t, b, `getComputedStyle(document.querySelector('#evidence-graph path.edge.cycle')).stroke`)
		plainStroke := eval[string](t, b, `getComputedStyle(document.querySelector('#evidence-graph path.edge:not(.cycle)')).stroke`)
		if cycStroke == plainStroke || cycStroke == "" {
			t.Errorf("cycle edge stroke %q, plain edge stroke %q: the cycle is not highlighted", cycStroke, plainStroke)
		}
		if n := eval[int](t, b, `document.querySelectorAll('#cycles li').length`); n != 2 {
			t.Errorf("%d cycles listed, want 2", n)
		}
	})

	t.Run("HTML from a tool call is shown as text", func(t *testing.T) {
		b.open(t, base+srv.link("/spine", "tool", "Bash"))
		time.Sleep(100 * time.Millisecond)
		if got := eval[bool](t, b, `document.getElementById('injected') === null`); !got {
			t.Error("the injected <b id=injected> became an element")
		}
		if title := eval[string](t, b, `document.title`); title == "pwned" {
			t.Error("the injected script ran")
		}
		if n := eval[int](t, b, `document.querySelectorAll('main script, main img').length`); n != 0 {
			t.Errorf("%d script or img elements in the page's content", n)
		}
		text := eval[string](t, b, `document.querySelector('table.spine').innerText`)
		if !strings.Contains(text, `<b id="injected">bold</b>`) {
			t.Errorf("the tool call's text is not shown as text: %q", text)
		}
		if errs := b.errors(); len(errs) > 0 {
			t.Errorf("console errors: %v", errs)
		}
	})

	t.Run("usable without JavaScript", func(t *testing.T) {
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		b.open(t, base+srv.link("/spine"))
		if err := chromedp.Do(b.ctx,
			chromedp.SetValue(`select[name=tool]`, "WebSearch"),
			chromedp.Click(`form.filters button`)); err != nil {
			t.Fatal(err)
		}
		b.waitFor(t, `location.search.includes('tool=WebSearch') && document.readyState === 'complete' && !!document.querySelector('table.spine')`)
		tools, err := chromedp.Run(b.ctx, chromedp.Text(`table.spine tbody`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(tools, "Bash") || !strings.Contains(tools, "WebSearch") {
			t.Errorf("filtered spine shows %q", tools)
		}
		b.open(t, base+srv.link("/claims"))
		if n, _ := chromedp.Run(b.ctx, chromedp.Evaluate[int](`1`)); n == 1 {
			// Evaluate goes through the protocol, not the page's scripts, so it
			// still works: use it to read the server-drawn graph.
			if c := eval[int](t, b, `document.querySelectorAll('#evidence-graph [data-cycle=true]').length`); c == 0 {
				t.Error("no cycle drawn without JavaScript")
			}
		}
	})

	t.Run("dark and light themes", func(t *testing.T) {
		bg := map[string]string{}
		for _, scheme := range []string{"light", "dark"} {
			if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
				t.Fatal(err)
			}
			b.open(t, base+srv.link("/claims"))
			bg[scheme] = eval[string](t, b, `getComputedStyle(document.body).backgroundColor`)
			if shots != "" {
				for _, p := range pages {
					if !screenshot[p.name+"-"+scheme] {
						continue
					}
					b.open(t, base+p.path)
					png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					name := filepath.Join(shots, p.name+"-"+scheme+".png")
					if err := os.WriteFile(name, png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if bg["light"] == bg["dark"] {
			t.Errorf("light and dark backgrounds are both %s", bg["light"])
		}
		chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
	})

	t.Run("a page refreshes when a spine entry lands", func(t *testing.T) {
		b.open(t, base+srv.link("/spine"))
		eval[bool](t, b, `window.vibeOldPage = true`)
		b.waitFor(t, `!document.getElementById('live').hidden`) // the stream is open
		f.runHook(t, "PostToolUse", []byte(`{"session_id":"`+researchSession+`","cwd":"`+f.proj+
			`","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"`+f.proj+
			`/data/live-marker.csv"},"tool_response":{},"tool_use_id":"toolu_live_browser"}`))
		// The reload replaces the page under the evaluation; waitFor retries.
		b.waitFor(t, `window.vibeOldPage === undefined && !!document.querySelector('table.spine') && document.querySelector('table.spine').innerText.includes('live-marker.csv')`)
		if errs := b.errors(); len(errs) > 0 {
			t.Errorf("console errors: %v", errs)
		}
	})

	t.Run("a request without the token is refused", func(t *testing.T) {
		resp, err := chromedp.RunResponse(b.ctx, chromedp.Navigate(base+"/claims"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 403 {
			t.Errorf("status %d, want 403", resp.Status)
		}
		body := eval[string](t, b, `document.body.innerText`)
		if !strings.Contains(body, "missing or wrong token") || strings.Contains(body, "Evidence graph") {
			t.Errorf("page without token: %q", body)
		}
		// The browser reports the refusal in its console: proof that the
		// console checks above would have seen an error.
		var errs []string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if errs = append(errs, b.errors()...); strings.Contains(strings.Join(errs, " "), "403") {
				break
			}
		}
		if !strings.Contains(strings.Join(errs, " "), "403") {
			t.Errorf("console after a refused request: %v, want the 403", errs)
		}
	})
}
