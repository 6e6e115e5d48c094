package observer

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Alert is an observer alert as stored.
type Alert = record.Alert

// The levels.
const (
	Info = record.AlertInfo
	Warn = record.AlertWarn
	Halt = record.AlertHalt
)

// The checks, as recorded in observer_alerts.check_name.
const (
	CheckState      = "state-stale"
	CheckFindings   = "findings-json"
	CheckData       = "data-undocumented"
	CheckPhase      = "phase-drift"
	CheckLiterature = "literature-drought"
	CheckSeeds      = "seed-pending"
)

// DefaultEvery is how often the observer runs, in tool calls, when the
// setting is missing.
const DefaultEvery = 10

// Config holds the thresholds; a zero field takes its Default value.
type Config struct {
	StateWarnAfter   time.Duration // 24 h of work since the researcher last updated STATE.md
	StateHaltAfter   time.Duration // 72 h
	FindingsLag      time.Duration // FINDINGS.md newer than its JSON by more than 30 min
	MaxUndocumented  int           // WARN when more data files than this are undocumented (3)
	DriftWindow      int           // last N actions looked at for phase drift (20)
	DriftMin         int           // at least this many phase-bearing actions among them (8)
	LiteratureWindow int           // WARN with no literature search in the last N actions (30)
	SeedWarnSessions int           // a seed pending triage this many sessions: WARN (5)
	SeedHaltSessions int           // HALT (10)
	MaxDataEntries   int           // folder entries listed per run, over all 02-data folders (20000)
	// DesignDriftActions and DesignDriftAge: a dataset nothing has read
	// after this many recorded actions or this long since vibe first saw
	// it (30, 24 h; the domain config's observer block sets them).
	DesignDriftActions int
	DesignDriftAge     time.Duration
}

// Default is the configuration used for zero fields.
var Default = Config{
	StateWarnAfter:     24 * time.Hour,
	StateHaltAfter:     72 * time.Hour,
	FindingsLag:        30 * time.Minute,
	MaxUndocumented:    3,
	DriftWindow:        20,
	DriftMin:           8,
	LiteratureWindow:   30,
	SeedWarnSessions:   5,
	SeedHaltSessions:   10,
	MaxDataEntries:     20000,
	DesignDriftActions: 30,
	DesignDriftAge:     24 * time.Hour,
}

func (c Config) withDefaults() Config {
	d := Default
	if c.StateWarnAfter > 0 {
		d.StateWarnAfter = c.StateWarnAfter
	}
	if c.StateHaltAfter > 0 {
		d.StateHaltAfter = c.StateHaltAfter
	}
	if c.FindingsLag > 0 {
		d.FindingsLag = c.FindingsLag
	}
	if c.MaxUndocumented > 0 {
		d.MaxUndocumented = c.MaxUndocumented
	}
	if c.DriftWindow > 0 {
		d.DriftWindow = c.DriftWindow
	}
	if c.DriftMin > 0 {
		d.DriftMin = c.DriftMin
	}
	if c.LiteratureWindow > 0 {
		d.LiteratureWindow = c.LiteratureWindow
	}
	if c.SeedWarnSessions > 0 {
		d.SeedWarnSessions = c.SeedWarnSessions
	}
	if c.SeedHaltSessions > 0 {
		d.SeedHaltSessions = c.SeedHaltSessions
	}
	if c.MaxDataEntries > 0 {
		d.MaxDataEntries = c.MaxDataEntries
	}
	if c.DesignDriftActions > 0 {
		d.DesignDriftActions = c.DesignDriftActions
	}
	if c.DesignDriftAge > 0 {
		d.DesignDriftAge = c.DesignDriftAge
	}
	return d
}

// Due reports whether the observer runs after the toolCalls-th tool call of
// a session: on every multiple of every (DefaultEvery when every < 1), never
// before the first call.
func Due(toolCalls, every int) bool {
	if every < 1 {
		every = DefaultEvery
	}
	return toolCalls > 0 && toolCalls%every == 0
}

// finding is one alert a check wants open.
type finding struct {
	check, level, message, fingerprint string
}

// outcome is what one run of the checks found. ran lists the checks that
// were judged, so only their open alerts may be resolved: a check that did
// not run says nothing about its alerts.
type outcome struct {
	ran      map[string]bool
	findings []finding
	cache    fileCache
	dirty    bool
}

// cleared says, per check, why the observer resolves an alert whose
// condition is gone.
var cleared = map[string]string{
	CheckState:      "STATE.md was updated",
	CheckFindings:   "the findings file and its JSON are in step again",
	CheckData:       "the data files are documented (or the count changed)",
	CheckPhase:      "the recent actions fit the phase in STATE.md (or the phase changed)",
	CheckLiterature: "a literature search was recorded",
	CheckSeeds:      "the seed was triaged (or its level changed)",
	CheckDrift:      "the dataset was read, logged as a deviation, or is gone",
	CheckStale:      "the findings match their JSON again",
}

func cacheKey(proj project.Project) string { return "files:" + proj.Root }

// decoded keeps the last cache text read per project with its decoding, so
// a resident worker decodes it again only when the stored text changed (on
// a 10k-file project the decoding was a tenth of the check).
var decoded = struct {
	sync.Mutex
	last map[string]decodedCache
}{last: map[string]decodedCache{}}

type decodedCache struct {
	raw string
	c   fileCache
}

func loadCache(ctx context.Context, st Reads, proj project.Project) (fileCache, error) {
	key := cacheKey(proj)
	raw, err := st.ObserverCache(ctx, key)
	if err != nil || raw == "" {
		return fileCache{}, err
	}
	decoded.Lock()
	defer decoded.Unlock()
	d, ok := decoded.last[key]
	if !ok || d.raw != raw {
		d = decodedCache{raw: raw}
		if json.Unmarshal([]byte(raw), &d.c) != nil {
			return fileCache{}, nil // a damaged cache is rebuilt from the files
		}
		decoded.last[key] = d
	}
	// The run replaces entries of Data (never their contents): it gets its
	// own map, and the kept decoding stays what the text says.
	c := d.c
	c.Data = maps.Clone(d.c.Data)
	return c, nil
}

// Run runs every check for the project and records the result: alerts whose
// condition holds and that are not open yet are raised, open alerts of a
// check whose condition has cleared are resolved by the observer. It returns
// the alerts raised by this run, most severe first. A project without a
// .vibe-science folder is not a research project: nothing runs.
func Run[W Writes](ctx context.Context, st Store[W], proj project.Project, session string, now time.Time, cfg Config) ([]Alert, error) {
	if info, err := os.Stat(proj.VibeDir()); err != nil || !info.IsDir() {
		return nil, nil
	}
	cfg = fromDomain(cfg, proj).withDefaults()
	cache, err := loadCache(ctx, st, proj)
	if err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	o := outcome{ran: map[string]bool{}, cache: cache}
	if err := o.checkState(ctx, st, proj, now, cfg); err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	lay := scanLayout(proj.VibeDir())
	o.checkFindings(proj, lay, cfg)
	o.checkStale(proj, lay, now, cfg)
	o.checkData(proj, lay, cfg)
	window := cfg.LiteratureWindow
	if cfg.DriftWindow > window {
		window = cfg.DriftWindow
	}
	recent, err := st.RecentActions(ctx, proj.Root, window)
	if err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	o.checkPhase(recent, session, cfg)
	if err := o.checkLiterature(ctx, st, proj, recent, session, cfg); err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	if err := o.checkSeeds(ctx, st, proj, cfg); err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	if err := o.checkDrift(ctx, st, proj, lay, now, cfg); err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	raised, err := recordAlerts(ctx, &o, st, proj, session, now)
	if err != nil {
		return nil, fmt.Errorf("observer: %w", err)
	}
	return raised, nil
}

// fromDomain fills the design-drift thresholds cfg leaves at zero from the
// project's domain config; an unreadable config leaves the defaults (gate
// commands report it).
func fromDomain(cfg Config, proj project.Project) Config {
	if cfg.DesignDriftActions > 0 && cfg.DesignDriftAge > 0 {
		return cfg
	}
	d, err := gate.LoadDomain(proj.Root)
	if err != nil {
		return cfg
	}
	if cfg.DesignDriftActions == 0 {
		cfg.DesignDriftActions = d.Observer.DesignDriftActions
	}
	if cfg.DesignDriftAge == 0 && d.Observer.DesignDriftHours > 0 {
		cfg.DesignDriftAge = time.Duration(d.Observer.DesignDriftHours * float64(time.Hour))
	}
	return cfg
}

// recordAlerts raises o's new findings, resolves what cleared and saves
// the cache, in one transaction, and only when there is something to write.
func recordAlerts[W Writes](ctx context.Context, o *outcome, st Store[W], proj project.Project, session string, now time.Time) ([]Alert, error) {
	open, err := st.Alerts(ctx, record.AlertFilter{Project: proj.Root, Limit: 1000})
	if err != nil {
		return nil, err
	}
	isOpen := map[string]bool{}
	for _, a := range open {
		isOpen[a.Fingerprint] = true
	}
	want := map[string]bool{}
	var raise []finding
	for _, f := range o.findings {
		want[f.fingerprint] = true
		if !isOpen[f.fingerprint] {
			raise = append(raise, f)
		}
	}
	var resolve []Alert
	for _, a := range open {
		if o.ran[a.Check] && !want[a.Fingerprint] {
			resolve = append(resolve, a)
		}
	}
	if len(raise) == 0 && len(resolve) == 0 && !o.dirty {
		return nil, nil
	}
	var raised []Alert
	err = st.Tx(ctx, func(tx W) error {
		raised = raised[:0]
		for _, a := range resolve {
			if _, err := tx.ResolveAlert(ctx, a.ID, record.ResolvedByObserver, cleared[a.Check], now); err != nil && !alreadyResolved(err) {
				return err
			}
		}
		for _, f := range raise {
			a, ok, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: proj.Root, SessionID: session, Check: f.check,
				Level: f.level, Message: f.message, Fingerprint: f.fingerprint, At: now})
			if err != nil {
				return err
			}
			if ok {
				raised = append(raised, a)
			}
		}
		if o.dirty {
			raw, err := json.Marshal(o.cache)
			if err != nil {
				return err
			}
			return tx.SetObserverCache(ctx, cacheKey(proj), string(raw))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	Sort(raised)
	return raised, nil
}

// alreadyResolved tells a concurrent resolution (another hook process got
// there first) from a real failure.
func alreadyResolved(err error) bool {
	return err != nil && strings.Contains(err.Error(), "already resolved")
}

func levelRank(level string) int {
	switch level {
	case Halt:
		return 0
	case Warn:
		return 1
	}
	return 2
}

// Sort orders alerts most severe first (HALT, WARN, INFO), then newest, then
// by id, newest first.
func Sort(as []Alert) {
	sort.SliceStable(as, func(i, j int) bool {
		if ri, rj := levelRank(as[i].Level), levelRank(as[j].Level); ri != rj {
			return ri < rj
		}
		if !as[i].CreatedAt.Equal(as[j].CreatedAt) {
			return as[i].CreatedAt.After(as[j].CreatedAt)
		}
		return as[i].ID > as[j].ID
	})
}

func (o *outcome) add(check, level, fingerprint, format string, args ...any) {
	o.findings = append(o.findings, finding{check: check, level: level, message: fmt.Sprintf(format, args...),
		fingerprint: check + ":" + fingerprint})
}

func hours(d time.Duration) string {
	h := int(d.Hours())
	if h >= 48 {
		return fmt.Sprintf("%d h (%d days)", h, h/24)
	}
	return fmt.Sprintf("%d h", h)
}

// checkState: LAW 7 staleness. The clock is the researcher's part of
// STATE.md (vibe rewriting its own section does not count) and it runs only
// while work is recorded: the age is measured from the first action after
// the last update, so a project left alone over a holiday is not stale on
// the first tool call back.
func (o *outcome) checkState(ctx context.Context, st Reads, proj project.Project, now time.Time, cfg Config) error {
	o.ran[CheckState] = true
	exists, changed, err := readState(proj.Path(resume.StateFile), &o.cache.State)
	if err != nil {
		return fmt.Errorf("read STATE.md: %w", err)
	}
	o.dirty = o.dirty || changed
	if !exists {
		o.dirty = o.dirty || o.cache.State != (stateCache{})
		o.cache.State = stateCache{}
		o.add(CheckState, Warn, "missing",
			"STATE.md is missing (LAW 7: the project must be resumable from its files): run `vibe init`, which creates only missing files, then write in .vibe-science/STATE.md where the work stands and the next step.")
		return nil
	}
	since := time.UnixMilli(o.cache.State.ChangedMS)
	first, ok, err := st.FirstActionAfter(ctx, proj.Root, since)
	if err != nil || !ok {
		return err
	}
	age := now.Sub(first)
	fp := fmt.Sprint(o.cache.State.ChangedMS)
	switch {
	case age >= cfg.StateHaltAfter:
		o.add(CheckState, Halt, "HALT:"+fp,
			"Work has gone on for %s since STATE.md was last updated (LAW 7: the project must be resumable from its files); writes are denied until .vibe-science/STATE.md says where the work stands and what comes next: edit it outside vibe's markers, and this alert resolves itself.",
			hours(age))
	case age >= cfg.StateWarnAfter:
		o.add(CheckState, Warn, "WARN:"+fp,
			"Work has gone on for %s since STATE.md was last updated (LAW 7: the project must be resumable from its files): write where the work stands and the next step in .vibe-science/STATE.md, outside vibe's markers; at %s this becomes a HALT.",
			hours(age), hours(cfg.StateHaltAfter))
	}
	return nil
}

func (o *outcome) checkFindings(proj project.Project, lay layout, cfg Config) {
	o.ran[CheckFindings] = true
	for _, s := range checkFindings(lay.findings, cfg.FindingsLag) {
		md, js := proj.Rel(s.md), filepath.Base(s.json)
		o.add(CheckFindings, Warn, fmt.Sprintf("%s:%d", md, s.jsonMtime.UnixMilli()),
			"%s is %s newer than %s (single source of truth, gate DQ4): rerun the script that writes %s so the numbers come from it, or correct FINDINGS from the JSON; DQ4 checks every number at the next write.",
			md, roundLag(s.lag), js, js)
	}
}

func roundLag(d time.Duration) string {
	if d >= 2*time.Hour {
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d min", int(d.Minutes()))
}

func (o *outcome) checkData(proj project.Project, lay layout, cfg Config) {
	o.ran[CheckData] = true
	if o.cache.Data == nil {
		o.cache.Data = map[string]dataCache{}
	}
	budget := cfg.MaxDataEntries
	seen := map[string]bool{}
	for _, dir := range lay.dataDirs {
		rel := proj.Rel(dir)
		seen[rel] = true
		c, ok := o.cache.Data[rel]
		if !ok || !c.valid(dir) {
			c = listData(dir, &budget)
			o.cache.Data[rel] = c
			o.dirty = true
		}
		if c.Count <= cfg.MaxUndocumented {
			continue
		}
		count := fmt.Sprint(c.Count)
		if c.Truncated {
			count = "at least " + count
		}
		sample := strings.Join(c.Sample, ", ")
		if c.Count > len(c.Sample) {
			sample += ", …"
		}
		fix := "add a `## <path>` section (a glob such as `raw/*.csv` covers many files) with its | column | type | unit | description | table for each"
		if !c.HasDict {
			fix = "create " + rel + "/DATA-DICTIONARY.md with a `## <path>` section (a glob such as `raw/*.csv` covers many files) and its | column | type | unit | description | table for each"
		}
		o.add(CheckData, Warn, fmt.Sprintf("%s:%d", rel, c.Count),
			"%s data files under %s are not in its data dictionary (gate DD0, skill/vibe/formats/data-dictionary.md): %s; %s.",
			count, rel, sample, fix)
	}
	for rel := range o.cache.Data {
		if !seen[rel] {
			delete(o.cache.Data, rel)
			o.dirty = true
		}
	}
}

// checkPhase: the phase STATE.md names against the recent research
// actions. A phase vibe does not know gets an INFO saying which names it
// knows; no phase line means no check.
func (o *outcome) checkPhase(recent []record.ActionStamp, session string, cfg Config) {
	o.ran[CheckPhase] = true
	value := o.cache.State.Phase
	if value == "" {
		return
	}
	p, ok := lookupPhase(value)
	if !ok {
		o.add(CheckPhase, Info, "unknown:"+strings.ToLower(value),
			"STATE.md line %d says %s %q, which vibe does not recognise, so phase drift is not checked: name one of %s, or a stage number 0–5.",
			o.cache.State.PhaseLine, o.cache.State.PhaseKey, value, strings.Join(PhaseNames(), ", "))
		return
	}
	n := cfg.DriftWindow
	if n > len(recent) {
		n = len(recent)
	}
	counted, outside := 0, map[string]int{}
	for _, a := range recent[:n] {
		if neutral[a.ActionType] {
			continue
		}
		counted++
		if !p.expected[a.ActionType] {
			outside[a.ActionType]++
		}
	}
	total := 0
	for _, k := range outside {
		total += k
	}
	if counted < cfg.DriftMin || total*2 <= counted {
		return
	}
	types := make([]string, 0, len(outside))
	for t := range outside {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool {
		if outside[types[i]] != outside[types[j]] {
			return outside[types[i]] > outside[types[j]]
		}
		return types[i] < types[j]
	})
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s %d", t, outside[t])
	}
	o.add(CheckPhase, Warn, p.name+":"+session,
		"STATE.md says %s %q, but %d of the last %d research actions lie outside that phase (%s): if the work has moved on, update the %s line in STATE.md; if not, return to the phase's work or log the deviation in DESIGN.md (design compliance, DC0).",
		o.cache.State.PhaseKey, value, total, counted, strings.Join(parts, ", "), o.cache.State.PhaseKey)
}

// checkLiterature: no literature search recorded during the project's last
// N actions. A search is a row of literature_searches that counts for gate
// L-1, so the observer and L-1 agree on what a search is (a web search for
// the weather is in the spine as LITERATURE but does not count). A project
// with fewer than N actions is not judged.
func (o *outcome) checkLiterature(ctx context.Context, st Reads, proj project.Project, recent []record.ActionStamp, session string, cfg Config) error {
	o.ran[CheckLiterature] = true
	if len(recent) < cfg.LiteratureWindow {
		return nil
	}
	window := recent[:cfg.LiteratureWindow]
	found, err := st.LiteratureSince(ctx, proj.Root, window[len(window)-1].At)
	if err != nil || found {
		return err
	}
	o.add(CheckLiterature, Warn, session,
		"No literature search in the last %d recorded actions of this project (stale knowledge; gate L-1 needs one before a new direction): search before the next direction or claim (/vibe:search, WebSearch or a literature MCP tool); vibe records the search by itself.",
		cfg.LiteratureWindow)
	return nil
}

// checkSeeds: LAW 5, a seed waiting for triage too many sessions.
func (o *outcome) checkSeeds(ctx context.Context, st Reads, proj project.Project, cfg Config) error {
	o.ran[CheckSeeds] = true
	seeds, err := st.PendingSeeds(ctx, proj.Root, 100)
	if err != nil {
		return err
	}
	for _, s := range seeds {
		if s.Status != "PENDING_TRIAGE" {
			continue
		}
		switch {
		case s.SessionsPending >= cfg.SeedHaltSessions:
			o.add(CheckSeeds, Halt, s.SeedID+":HALT",
				"Seed %s has waited for triage for %d sessions (LAW 5: triage seeds within 5); writes are denied until it is triaged: set its status in .vibe-science/SERENDIPITY.md to QUEUED, TESTING, KILLED or PROMOTED_TO_CLAIM (with a resolution when you close it), and this alert resolves itself.",
				s.SeedID, s.SessionsPending)
		case s.SessionsPending >= cfg.SeedWarnSessions:
			o.add(CheckSeeds, Warn, s.SeedID+":WARN",
				"Seed %s has waited for triage for %d sessions (LAW 5: triage seeds within 5): set its status in .vibe-science/SERENDIPITY.md to QUEUED, TESTING, KILLED or PROMOTED_TO_CLAIM; at %d sessions this becomes a HALT.",
				s.SeedID, s.SessionsPending, cfg.SeedHaltSessions)
		}
	}
	return nil
}
