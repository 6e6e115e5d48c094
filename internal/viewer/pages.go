package viewer

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/calibrate"
	"github.com/vibe-science/vibe/internal/citation"
	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

//go:embed templates/*.html assets/*
var files embed.FS

const timeLayout = "2006-01-02 15:04:05Z"

// spinePageSize is how many spine entries one page shows.
const spinePageSize = 100

// spineWindow is how many spine ids one page of the project's spine reads
// at most, whatever the filters.
const spineWindow = 20_000

// pages renders the viewer's pages.
type pages struct {
	s    *Server
	tmpl map[string]*template.Template
}

// page is what every template gets.
type page struct {
	Title   string
	Active  string
	Project string
	// Live pages reload when the newest spine entry is no longer Head.
	Live bool
	Head int64
	D    any
}

func newPages(s *Server) (*pages, error) {
	p := &pages{s: s, tmpl: map[string]*template.Template{}}
	funcs := template.FuncMap{
		"link": s.link,
		"ts": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format(timeLayout)
		},
		"age":   func(t time.Time) string { return age(s.cfg.Now().Sub(t)) },
		"conf":  confText,
		"lower": strings.ToLower,
		"short": func(h string) string { return h[:min(len(h), 12)] },
		"join":  strings.Join,
		"num":   intText,
		"trust": func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
		"fix":   verdict.AddedFix,
		// contradicts are the memories m contradicts besides those its
		// state names (the one that supersedes it, the one it disputes,
		// those that dispute it).
		"contradicts": func(m record.MemoryRecord) []int64 {
			var out []int64
			for _, c := range m.Conflicts {
				if (m.SupersededBy == nil || c != *m.SupersededBy) && (m.Disputes == nil || c != *m.Disputes) &&
					!slices.Contains(m.DisputedBy, c) {
					out = append(out, c)
				}
			}
			return out
		},
		"token": func() string { return s.cfg.Token },
		"ms": func(p *int64) string {
			if p == nil {
				return ""
			}
			return strconv.FormatInt(*p, 10) + " ms"
		},
	}
	entries, err := files.ReadDir("templates")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if name == "layout.html" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name)
		if err != nil {
			return nil, fmt.Errorf("viewer template %s: %w", name, err)
		}
		p.tmpl[strings.TrimSuffix(name, ".html")] = t
	}
	return p, nil
}

func (p *pages) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", p.handle("overview", p.overview))
	m.HandleFunc("GET /sessions", p.handle("sessions", p.sessions))
	m.HandleFunc("GET /session", p.handle("spine", p.session))
	m.HandleFunc("GET /spine", p.handle("spine", p.spine))
	m.HandleFunc("GET /claims", p.handle("claims", p.claims))
	m.HandleFunc("GET /claim", p.handle("claim", p.claim))
	m.HandleFunc("GET /gates", p.handle("gates", p.gates))
	m.HandleFunc("GET /gate", p.handle("gate", p.gate))
	m.HandleFunc("GET /calibration", p.handle("calibration", p.calibration))
	m.HandleFunc("GET /literature", p.handle("literature", p.literature))
	m.HandleFunc("GET /seeds", p.handle("seeds", p.seeds))
	m.HandleFunc("GET /decisions", p.handle("decisions", p.decisions))
	m.HandleFunc("GET /memories", p.handle("memories", p.memories))
	m.HandleFunc("GET /events", p.s.events)
	m.HandleFunc("GET /assets/{name}", p.asset)
	return m
}

// handle renders one template from what load returns; a failure is one
// short page saying what went wrong.
func (p *pages) handle(name string, load func(r *http.Request, pg *page) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pg := &page{Project: p.s.cfg.Project}
		head, err := p.s.cfg.Store.SpineHead(r.Context(), p.s.cfg.Project)
		if err == nil {
			pg.Head = head
			err = load(r, pg)
		}
		if err != nil {
			code := http.StatusInternalServerError
			if fault.KindOf(err) == fault.NotFound {
				code = http.StatusNotFound
			}
			http.Error(w, err.Error(), code)
			return
		}
		// Every page shows what it shows through this one scrub: a record
		// stored before a secret rule existed, or a project file the page
		// quotes, is scrubbed on its way out (privacy.ScrubAll copies).
		pg = privacy.ScrubAll(pg)
		var buf bytes.Buffer
		if err := p.tmpl[name].ExecuteTemplate(&buf, "layout", pg); err != nil {
			http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(buf.Bytes())
	}
}

func (p *pages) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	types := map[string]string{"app.css": "text/css; charset=utf-8", "live.js": "text/javascript; charset=utf-8",
		"icon.svg": "image/svg+xml"}
	ct, ok := types[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, err := files.ReadFile("assets/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Write(b)
}

// link is a URL on this server carrying the token and the given query
// pairs (key, value, key, value...; empty values are left out).
func (s *Server) link(path string, kv ...any) string {
	q := url.Values{}
	q.Set("t", s.cfg.Token)
	for i := 0; i+1 < len(kv); i += 2 {
		v := fmt.Sprint(kv[i+1])
		if v != "" && v != "0" {
			q.Set(fmt.Sprint(kv[i]), v)
		}
	}
	return path + "?" + q.Encode()
}

// readCapped is the start of a file as text ("" when it cannot be read),
// marked when cut.
func readCapped(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n+1))
	if err != nil {
		return ""
	}
	if int64(len(b)) > n {
		return string(b[:n]) + "\n… (cut at " + strconv.FormatInt(n>>10, 10) + " KiB)"
	}
	return string(b)
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
}

func confText(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

func intText(p *int) string {
	if p == nil {
		return "—"
	}
	return strconv.Itoa(*p)
}

// closedStatuses are the claim statuses that end a claim's open life.
var closedStatuses = []string{claim.StatusKilled, claim.StatusVerified}

type overviewData struct {
	Sessions     int
	Spine        int
	Claims       []record.ClaimSummary
	OpenClaims   []record.ClaimSummary
	ByStatus     []record.NameCount
	Failing      []record.GateState
	Seeds        []record.PendingSeed
	Alerts       []record.Alert
	Recent       []record.Session
	Cycles       []string
	EvidenceErr  string
	CalibrationN int
	Decisions    decisionCounts
	// RecentDecisions are the newest of them.
	RecentDecisions []record.Decision
	// MemoryN counts the memories recall searches; Superseded, Disputing
	// and Disputed those a contradiction marks.
	MemoryN, Superseded, Disputing, Disputed int
	// State is .vibe-science/STATE.md (the researcher's and vibe's state
	// note), cut at maxStateBytes.
	State string
}

// maxStateBytes bounds how much of STATE.md the overview shows.
const maxStateBytes = 64 << 10

func (p *pages) overview(r *http.Request, pg *page) error {
	ctx, st, root := r.Context(), p.s.cfg.Store, p.s.cfg.Project
	pg.Title, pg.Active, pg.Live = "Overview", "overview", true
	var d overviewData
	var err error
	if d.Sessions, err = st.ProjectSessionCount(ctx, root); err != nil {
		return err
	}
	tools, _, err := p.s.facets(ctx, "")
	if err != nil {
		return err
	}
	for _, t := range tools {
		d.Spine += t.Count
	}
	if d.Claims, err = st.ClaimSummaries(ctx, root); err != nil {
		return err
	}
	counts := map[string]int{}
	for _, c := range d.Claims {
		counts[c.Status]++
		if !slices.Contains(closedStatuses, c.Status) {
			d.OpenClaims = append(d.OpenClaims, c)
		}
	}
	for k, n := range counts {
		d.ByStatus = append(d.ByStatus, record.NameCount{Name: k, Count: n})
	}
	sort.Slice(d.ByStatus, func(i, j int) bool { return d.ByStatus[i].Name < d.ByStatus[j].Name })
	if d.Failing, err = st.FailingGates(ctx, root, 0); err != nil {
		return err
	}
	if d.Seeds, err = st.PendingSeeds(ctx, root, 20); err != nil {
		return err
	}
	if d.Alerts, err = st.Alerts(ctx, record.AlertFilter{Project: root, Limit: 50}); err != nil {
		return err
	}
	if d.Recent, err = st.Sessions(ctx, root, 8); err != nil {
		return err
	}
	if ev, err := readEvidence(root); err != nil {
		d.EvidenceErr = err.Error()
	} else {
		d.Cycles = cycleText(ev.graph.Cycles())
	}
	entries, err := st.CalibrationEntries(ctx, root)
	if err != nil {
		return err
	}
	d.CalibrationN = len(calibrate.Points(entries))
	if d.Decisions, err = p.decisionCounts(r); err != nil {
		return err
	}
	if d.RecentDecisions, err = st.Decisions(ctx, record.DecisionFilter{Project: root, Limit: 8}); err != nil {
		return err
	}
	mc, err := st.ProjectMemoryCounts(ctx, root)
	if err != nil {
		return err
	}
	for _, c := range mc.Kinds {
		d.MemoryN += c.Count
	}
	for _, c := range mc.States {
		switch c.Name {
		case record.MemorySuperseded:
			d.Superseded = c.Count
		case record.MemoryDisputing:
			d.Disputing = c.Count
		case record.MemoryDisputed:
			d.Disputed = c.Count
		}
	}
	d.State = readCapped(filepath.Join(root, project.Dir, "STATE.md"), maxStateBytes)
	pg.D = d
	return nil
}

func (p *pages) sessions(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Sessions", "sessions", true
	ss, err := p.s.cfg.Store.Sessions(r.Context(), p.s.cfg.Project, 500)
	pg.D = ss
	return err
}

type spineData struct {
	Session  *record.Session
	Query    record.SpineQuery
	Entries  []record.SpineEntry
	Tools    []record.NameCount
	Actions  []record.NameCount
	Older    int64
	Filtered bool
	// Window says the page stopped at the bottom of its id range, not
	// because it was full.
	Window bool
	// Top is the largest id the page could show.
	Top int64
	// Decisions are what vibe denied, blocked, asked and warned in the
	// session (a session's page only).
	Decisions []record.Decision
}

func (p *pages) session(r *http.Request, pg *page) error {
	id := r.URL.Query().Get("id")
	if id == "" {
		return fault.Errorf(fault.NotFound, "show session", "no session id given (?id=...)")
	}
	ss, err := p.s.cfg.Store.Session(r.Context(), id)
	if err != nil {
		return err
	}
	return p.spineFor(r, pg, &ss)
}

func (p *pages) spine(r *http.Request, pg *page) error { return p.spineFor(r, pg, nil) }

func (p *pages) spineFor(r *http.Request, pg *page, ss *record.Session) error {
	q := r.URL.Query()
	d := spineData{Session: ss}
	d.Query = record.SpineQuery{Project: p.s.cfg.Project, Tool: q.Get("tool"), ActionType: q.Get("action"),
		Search: strings.TrimSpace(q.Get("q")), Limit: spinePageSize}
	d.Query.BeforeID, _ = strconv.ParseInt(q.Get("before"), 10, 64)
	pg.Title, pg.Active = "Spine", "spine"
	if ss != nil {
		d.Query.Session = ss.ID
		pg.Title, pg.Active = "Session "+ss.ID, "sessions"
	}
	d.Filtered = d.Query.Tool != "" || d.Query.ActionType != "" || d.Query.Search != ""
	// Only the newest page reloads by itself: an older page would jump away.
	pg.Live = d.Query.BeforeID == 0
	if ss == nil {
		// Read at most spineWindow ids per page: a filter or search that
		// matches little then costs the same as one that matches much, and
		// the page offers to go on from where it stopped.
		if d.Query.BeforeID <= 0 {
			top, err := p.s.cfg.Store.SpineMaxID(r.Context())
			if err != nil {
				return err
			}
			d.Query.BeforeID = top + 1
		}
		d.Query.AfterID = max(0, d.Query.BeforeID-1-spineWindow)
	}
	var err error
	if d.Entries, err = p.s.cfg.Store.SpinePage(r.Context(), d.Query); err != nil {
		return err
	}
	switch {
	case len(d.Entries) == spinePageSize:
		d.Older = d.Entries[len(d.Entries)-1].ID
	case d.Query.AfterID > 0:
		d.Older = d.Query.AfterID + 1
		d.Window = true
	}
	d.Top = d.Query.BeforeID - 1
	if d.Tools, d.Actions, err = p.s.facets(r.Context(), d.Query.Session); err != nil {
		return err
	}
	if ss != nil {
		if d.Decisions, err = p.s.cfg.Store.Decisions(r.Context(), record.DecisionFilter{Project: p.s.cfg.Project, Session: ss.ID,
			Limit: decisionsPageSize}); err != nil {
			return err
		}
	}
	pg.D = d
	return nil
}

type claimRow struct {
	record.ClaimSummary
	Title string
	Type  string
}

// maxLifecycles is how many claims the lifecycle plot draws (the most
// recently changed).
const maxLifecycles = 60

type claimsData struct {
	Claims      []claimRow
	Lifecycles  template.HTML
	Graph       template.HTML
	Cycles      []string
	EvidenceErr string
}

func (p *pages) claims(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Claims", "claims", true
	sums, err := p.s.cfg.Store.ClaimSummaries(r.Context(), p.s.cfg.Project)
	if err != nil {
		return err
	}
	var d claimsData
	ev, evErr := readEvidence(p.s.cfg.Project)
	if evErr != nil {
		d.EvidenceErr = evErr.Error()
	}
	seen := map[string]bool{}
	for _, c := range sums {
		seen[c.ClaimID] = true
		row := claimRow{ClaimSummary: c}
		if lc, ok := ev.ledger.Find(c.ClaimID); ok {
			row.Title, row.Type = lc.Title, lc.Type
		}
		d.Claims = append(d.Claims, row)
	}
	// Claims in the ledger with no recorded event yet (written before vibe
	// watched the project) are listed from the ledger.
	for _, lc := range ev.ledger.Claims {
		if !seen[lc.ID] {
			row := claimRow{ClaimSummary: record.ClaimSummary{ClaimID: lc.ID, Status: lc.Status}, Title: lc.Title, Type: lc.Type}
			if lc.HasConfidence {
				c := lc.Confidence
				row.Confidence = &c
			}
			d.Claims = append(d.Claims, row)
		}
	}
	hist := map[string][]record.ClaimEventRecord{}
	var order []string
	for i := len(sums) - 1; i >= 0; i-- { // oldest change first, newest at the bottom
		if len(sums)-i > maxLifecycles {
			break
		}
		id := sums[i].ClaimID
		if hist[id], err = p.s.cfg.Store.ClaimHistory(r.Context(), p.s.cfg.Project, id); err != nil {
			return err
		}
		order = append(order, id)
	}
	d.Lifecycles = p.s.claimLifecycles(hist, order)
	if ev.graph != nil {
		v := ev.whole()
		d.Graph = p.s.evidenceGraph(ev, v, "")
		d.Cycles = cycleText(v.cycles)
	}
	pg.D = d
	return nil
}

type claimData struct {
	ID          string
	Ledger      *claim.Claim
	Events      []record.ClaimEventRecord
	Timeline    template.HTML
	Reviews     []record.R2Review
	Gates       []record.GateRecord
	Seeds       []record.SeedRecord
	Calibration []record.CalibrationEntry
	Graph       template.HTML
	Cycles      []string
	EvidenceErr string
}

func (p *pages) claim(r *http.Request, pg *page) error {
	ctx, st, root := r.Context(), p.s.cfg.Store, p.s.cfg.Project
	id := r.URL.Query().Get("id")
	if n, ok := claim.NormaliseID(id); ok {
		id = n
	}
	if id == "" {
		return fault.Errorf(fault.NotFound, "show claim", "no claim id given (?id=C-001)")
	}
	pg.Title, pg.Active, pg.Live = "Claim "+id, "claims", true
	d := claimData{ID: id}
	var err error
	if d.Events, err = st.ClaimHistory(ctx, root, id); err != nil {
		return err
	}
	ev, evErr := readEvidence(root)
	if evErr != nil {
		d.EvidenceErr = evErr.Error()
	} else if lc, ok := ev.ledger.Find(id); ok {
		d.Ledger = &lc
	}
	if len(d.Events) == 0 && d.Ledger == nil {
		return fault.Errorf(fault.NotFound, "show claim", "claim %s has no recorded event and is not in the claim ledger", id)
	}
	d.Timeline = ConfidenceTimeline(d.Events)
	reviews, err := st.RecentReviews(ctx, root, 1000)
	if err != nil {
		return err
	}
	for _, rv := range reviews {
		if slices.Contains(rv.Claims, id) {
			d.Reviews = append(d.Reviews, rv)
		}
	}
	if d.Gates, err = st.GateHistory(ctx, root, "", id, 200); err != nil {
		return err
	}
	if d.Seeds, err = st.SeedsSalvagedFrom(ctx, root, id); err != nil {
		return err
	}
	entries, err := st.CalibrationEntries(ctx, root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.ClaimID == id {
			d.Calibration = append(d.Calibration, e)
		}
	}
	if ev.graph != nil {
		v := ev.around(id)
		d.Graph = p.s.evidenceGraph(ev, v, id)
		d.Cycles = cycleText(v.cycles)
	}
	pg.D = d
	return nil
}

type gateRow struct {
	record.GateSummary
	Strip template.HTML
}

func (p *pages) gates(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Gates", "gates", true
	sums, err := p.s.cfg.Store.GateSummaries(r.Context(), p.s.cfg.Project)
	if err != nil {
		return err
	}
	rows := make([]gateRow, 0, len(sums))
	for _, g := range sums {
		runs, err := p.s.cfg.Store.GateHistory(r.Context(), p.s.cfg.Project, g.GateID, "", 60)
		if err != nil {
			return err
		}
		rows = append(rows, gateRow{GateSummary: g, Strip: GateStrip(g.GateID, runs)})
	}
	pg.D = rows
	return nil
}

type gateData struct {
	ID       string
	Runs     []record.GateRecord
	Strip    template.HTML
	Timeline template.HTML
}

func (p *pages) gate(r *http.Request, pg *page) error {
	id := r.URL.Query().Get("id")
	if id == "" {
		return fault.Errorf(fault.NotFound, "show gate", "no gate id given (?id=DQ1)")
	}
	pg.Title, pg.Active, pg.Live = "Gate "+id, "gates", true
	runs, err := p.s.cfg.Store.GateHistory(r.Context(), p.s.cfg.Project, id, "", 500)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fault.Errorf(fault.NotFound, "show gate", "gate %s has no recorded run in this project", id)
	}
	pg.D = gateData{ID: id, Runs: runs, Strip: GateStrip(id, runs), Timeline: GateTimeline(id, runs)}
	return nil
}

type calibrationData struct {
	C           calibrate.Calibration
	Points      []calibrate.Point
	Ready       bool
	Min         int
	Reliability template.HTML
	Outcome     template.HTML
	Entries     []record.CalibrationEntry
}

func (p *pages) calibration(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Calibration", "calibration", true
	c, pts, err := calibrate.ProjectCalibration(r.Context(), p.s.cfg.Store, p.s.cfg.Project, calibrate.DefaultBins)
	if err != nil {
		return err
	}
	entries, err := p.s.cfg.Store.CalibrationEntries(r.Context(), p.s.cfg.Project)
	if err != nil {
		return err
	}
	d := calibrationData{C: c, Points: pts, Ready: c.N >= calibrate.MinOutcomes, Min: calibrate.MinOutcomes, Entries: entries}
	if d.Ready {
		d.Reliability = ReliabilityDiagram(c)
	}
	if len(pts) > 0 {
		d.Outcome = ConfidenceOutcome(pts)
	}
	pg.D = d
	return nil
}

type literatureData struct {
	Searches []record.LiteratureSearch
	Sources  []record.NameCount
	Papers   []record.NameCount
	// Citations are the paper ids the research files cite, audited as
	// `vibe citations` audits them; Counts by status.
	Citations []citationRow
	Counts    map[string]int
}

// citationRow is one cited id as the literature page shows it.
type citationRow struct {
	Status, ID, Cited, Source string
}

func (p *pages) literature(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Literature", "literature", true
	ls, err := p.s.cfg.Store.LiteratureSearches(r.Context(), p.s.cfg.Project, "", 500)
	if err != nil {
		return err
	}
	d := literatureData{Searches: ls, Sources: tally(ls, func(l record.LiteratureSearch) []string { return l.Sources }),
		Papers: tally(ls, func(l record.LiteratureSearch) []string { return l.KeyPapers }), Counts: map[string]int{}}
	root := p.s.cfg.Project
	dom, err := gate.LoadDomain(root)
	if err != nil {
		dom, _ = gate.ShippedDomain(gate.GenericDomain)
	}
	files, err := gatecheck.CitingFiles(root, dom)
	if err != nil {
		return err
	}
	entries, err := citation.AuditWith(files, func(ids []string) (map[string][]record.PaperSource, error) {
		return p.s.cfg.Store.PaperSources(r.Context(), root, ids)
	}, p.s.cfg.Now())
	if err != nil {
		return err
	}
	for _, e := range entries {
		d.Counts[e.Status]++
		d.Citations = append(d.Citations, citationRow{Status: e.Status, ID: citation.Display(e.ID), Cited: citation.Places(e.Cited), Source: e.Source()})
	}
	pg.D = d
	return nil
}

func tally(ls []record.LiteratureSearch, of func(record.LiteratureSearch) []string) []record.NameCount {
	n := map[string]int{}
	for _, l := range ls {
		for _, s := range of(l) {
			n[s]++
		}
	}
	out := make([]record.NameCount, 0, len(n))
	for k, v := range n {
		out = append(out, record.NameCount{Name: k, Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (p *pages) seeds(r *http.Request, pg *page) error {
	pg.Title, pg.Active, pg.Live = "Seeds", "seeds", true
	ss, err := p.s.cfg.Store.ListSeeds(r.Context(), p.s.cfg.Project, "", 500)
	pg.D = ss
	return err
}

// events is the live stream: it polls the newest spine id and sends a
// "spine" event when it differs from since (the id the page was rendered at). It
// reads through the read-only store, so a hook never waits for it.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	fmt.Fprintf(w, "retry: %d\n\n", (2 * s.cfg.PollInterval).Milliseconds())
	fl.Flush()
	tick := time.NewTicker(s.cfg.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.PollInterval)
		head, err := s.cfg.Store.SpineHead(ctx, s.cfg.Project)
		cancel()
		if err != nil {
			continue
		}
		if head != since {
			fmt.Fprintf(w, "event: spine\ndata: %d\n\n", head)
			fl.Flush()
			since = head
		}
	}
}

// spineFacets keeps the project's spine counts by tool and action, so the
// filter choices cost a scan of the new entries only, not of the whole spine.
type spineFacets struct {
	mu     sync.Mutex
	top    int64
	counts map[record.SpineCount]int // keyed by tool and action, Count zero
}

// facets are the filter choices of the spine: tools and action types with
// their counts, most used first. A session's come from its index; the
// project's from the cache plus what landed since.
func (s *Server) facets(ctx context.Context, session string) (tools, actions []record.NameCount, err error) {
	var counts map[record.SpineCount]int
	if session != "" {
		cs, _, err := s.cfg.Store.SpineCounts(ctx, s.cfg.Project, session, 0)
		if err != nil {
			return nil, nil, err
		}
		counts = map[record.SpineCount]int{}
		for _, c := range cs {
			counts[record.SpineCount{Tool: c.Tool, Action: c.Action}] += c.Count
		}
	} else {
		f := &s.spine
		f.mu.Lock()
		defer f.mu.Unlock()
		cs, top, err := s.cfg.Store.SpineCounts(ctx, s.cfg.Project, "", f.top)
		if err != nil {
			return nil, nil, err
		}
		if f.counts == nil {
			f.counts = map[record.SpineCount]int{}
		}
		for _, c := range cs {
			f.counts[record.SpineCount{Tool: c.Tool, Action: c.Action}] += c.Count
		}
		f.top = top
		counts = f.counts
	}
	byTool, byAction := map[string]int{}, map[string]int{}
	for k, n := range counts {
		byTool[k.Tool] += n
		byAction[k.Action] += n
	}
	return ranked(byTool), ranked(byAction), nil
}

func ranked(m map[string]int) []record.NameCount {
	out := make([]record.NameCount, 0, len(m))
	for k, v := range m {
		out = append(out, record.NameCount{Name: k, Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}
