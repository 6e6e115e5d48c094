package worker

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/filememo"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Model states as health reports them. The three for a current model that
// is not installed say it in the terms of cli.MissingModel, which says what
// a worker not running would do.
const (
	// StateNoModel is reported only with the fallback embedder off
	// (Health turns it into StateFallback otherwise).
	StateNoModel  = "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) until the model is installed"
	StateLoading  = "loading"
	StateLoaded   = "loaded"
	StateUnloaded = "unloaded (idle)"
	StateStarting = "starting"
	// StateFallback is StateNoModel when the fallback embedder stands in.
	StateFallback = "not installed: the worker embeds with the fallback hashed-token embedder (degraded vectors) until the model is installed"
	// StatePulling is StateFallback while the model downloads.
	StatePulling = "not installed, downloading it: the worker embeds with the fallback hashed-token embedder (degraded vectors) meanwhile"
)

// errNoModel says the current model is not installed. It reaches a caller
// only with the fallback embedder off (embedNow answers with it otherwise),
// so recall is then lexical only.
var errNoModel = errors.New("no embedding model installed: recall is lexical only (run `vibe model pull`)")

// handle is one loaded model and the callers using it. A retired handle
// (idle, or replaced by `vibe model use`) is closed when its last user
// releases it, so an unload never pulls the model from under an Embed call.
type handle struct {
	emb     embed.Embedder
	refs    int
	retired bool
}

// models loads, shares and unloads the current model. Loading takes
// seconds on the Go backend; loadMu makes concurrent callers (the drain loop
// and a knn request) wait for one load instead of starting two, while mu is
// never held across a load so health answers at once.
type models struct {
	load    embed.Loader
	now     func() time.Time
	dir     func(name string) string
	retry   time.Duration
	logf    func(string, ...any)
	onClose func() // after a model is closed (tests; frees memory)
	onLoad  func() // after a model is loaded; nil: nothing

	loadMu sync.Mutex

	mu       sync.Mutex
	name     string
	cur      *handle
	lastUse  time.Time
	state    string
	lastErr  string
	failedAt time.Time // a failed load is not retried before failedAt+retry
	failName string
	// absent is the last "not installed" verdict (absentVerdict).
	absent absentVerdict
	// ready checks a model folder (embed.Ready; tests count the calls).
	ready func(dir string) error
}

// absentVerdict remembers that a model's folder lacked its files, and the
// folder's version then (filememo.StatVersion). A hook that asks for
// vectors with no model installed (UserPromptSubmit, SessionStart twice)
// would otherwise stat three files on every call; while the folder keeps
// that version, one stat of the folder says the files are still missing.
// Adding a file (`vibe model pull`, a copy by hand, an archive unpacked
// with old times: the status change time moves anyway), or creating or
// replacing the folder, gives it a new version, and the next call looks
// again; so does the embed loop's tick when it finds the model (note).
type absentVerdict struct {
	name    string
	folder  filememo.Version
	settled bool
}

// stillAbsent reports whether name's folder, now at version v, is as it
// was when its files were found missing.
func (m *models) stillAbsent(name string, v filememo.Version, settled bool) bool {
	m.mu.Lock()
	a := m.absent
	m.mu.Unlock()
	return a.name == name && a.settled && settled && a.folder == v
}

func (m *models) status() (name, state, lastErr string, loaded bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.name, m.state, m.lastErr, m.cur != nil
}

// note records the current model name and whether it is installed, without
// loading it.
func (m *models) note(name string, installed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if name != m.name {
		m.switchLocked(name)
	}
	if installed {
		m.absent = absentVerdict{} // whatever acquire last saw, the files are there now
	}
	switch {
	case !installed:
		m.state = StateNoModel
	case m.state == StateNoModel || m.state == "":
		m.state = StateUnloaded
	}
}

// switchLocked makes name the current model (`vibe model use` ran);
// m.mu is held.
func (m *models) switchLocked(name string) {
	m.name = name
	if m.cur != nil {
		m.retireLocked()
	}
	m.state, m.lastErr, m.failName = "", "", ""
}

// acquire returns the loaded model called name, loading it if needed; the
// caller must call release.
func (m *models) acquire(name string, now time.Time) (embed.Embedder, func(), error) {
	if h := m.tryShare(name, now); h != nil {
		return h.emb, m.releaser(h), nil
	}
	m.loadMu.Lock()
	defer m.loadMu.Unlock()
	if h := m.tryShare(name, now); h != nil {
		return h.emb, m.releaser(h), nil
	}
	m.mu.Lock()
	if m.name != name { // the caller read the current model more recently
		m.switchLocked(name)
	}
	if m.failName == name && now.Before(m.failedAt.Add(m.retry)) {
		err := errors.New(m.lastErr)
		m.mu.Unlock()
		return nil, nil, err
	}
	m.state = StateLoading
	m.mu.Unlock()

	dir := m.dir(name)
	// Before the check: a file added during it changes the folder after this.
	folder, settled, statErr := filememo.StatVersion(dir)
	settled = settled && statErr == nil
	if m.stillAbsent(name, folder, settled) {
		m.mu.Lock()
		m.state, m.lastErr = StateNoModel, ""
		m.mu.Unlock()
		return nil, nil, errNoModel
	}
	emb, err := m.open(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		if errors.Is(err, embed.ErrNotInstalled) {
			m.state, m.lastErr = StateNoModel, ""
			m.absent = absentVerdict{name: name, folder: folder, settled: settled}
			return nil, nil, errNoModel
		}
		m.state, m.lastErr = "error: "+err.Error(), err.Error()
		m.failName, m.failedAt = name, now
		return nil, nil, err
	}
	if m.name != name { // switched while loading
		emb.Close()
		return nil, nil, fmt.Errorf("model changed to %s while %s was loading", m.name, name)
	}
	m.cur = &handle{emb: emb, refs: 1}
	m.state, m.lastErr, m.failName, m.lastUse = StateLoaded, "", "", now
	if m.onLoad != nil {
		m.onLoad()
	}
	return emb, m.releaser(m.cur), nil
}

func (m *models) open(dir string) (embed.Embedder, error) {
	if m.load == nil {
		return nil, fmt.Errorf("%w: this worker was built without an embedder", embed.ErrNotInstalled)
	}
	ready := m.ready
	if ready == nil {
		ready = embed.Ready
	}
	if err := ready(dir); err != nil {
		return nil, err
	}
	if _, err := embed.Verify(dir); err != nil {
		return nil, err
	}
	start := m.now()
	emb, err := m.load(dir)
	if err != nil {
		return nil, err
	}
	if emb.Dims() > record.VectorDims {
		emb.Close()
		return nil, fmt.Errorf("model %s gives %d-dim vectors, the vector table holds up to %d: use a model of at most %d dims (such as %s) with `vibe model use`",
			emb.Model(), emb.Dims(), record.VectorDims, record.VectorDims, embed.DefaultModel)
	}
	m.logf("loaded model %s from %s in %s", emb.Model(), dir, m.now().Sub(start).Round(time.Millisecond))
	return emb, nil
}

func (m *models) tryShare(name string, now time.Time) *handle {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur != nil && m.name == name {
		m.cur.refs++
		m.lastUse = now
		return m.cur
	}
	return nil
}

func (m *models) releaser(h *handle) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			h.refs--
			closeNow := h.retired && h.refs == 0
			m.mu.Unlock()
			if closeNow {
				m.closeHandle(h)
			}
		})
	}
}

// retireLocked detaches the current model; m.mu is held.
func (m *models) retireLocked() {
	h := m.cur
	m.cur = nil
	h.retired = true
	if h.refs == 0 {
		go m.closeHandle(h)
	}
}

func (m *models) closeHandle(h *handle) {
	if err := h.emb.Close(); err != nil {
		m.logf("close model %s: %v", h.emb.Model(), err)
	}
	// The Go backend's tensors are garbage; hand the pages back so RSS
	// drops now rather than at the next GC cycle.
	debug.FreeOSMemory()
	if m.onClose != nil {
		m.onClose()
	}
}

// unloadIdle unloads the model when nobody used it for idle. When a model
// stays loaded and idle is set (due), left is how long until it is to be
// unloaded if nobody uses it meanwhile.
func (m *models) unloadIdle(now time.Time, idle time.Duration) (left time.Duration, due bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur == nil || idle <= 0 {
		return 0, false
	}
	if used := now.Sub(m.lastUse); used < idle {
		return idle - used, true
	}
	m.logf("unloading model %s after %s idle", m.name, now.Sub(m.lastUse).Round(time.Second))
	m.retireLocked()
	m.state = StateUnloaded
	return 0, false
}

// closeAll unloads whatever is loaded, waiting for nobody: Close runs after
// the loop and the server stopped.
func (m *models) closeAll() {
	m.mu.Lock()
	h := m.cur
	m.cur = nil
	m.mu.Unlock()
	if h != nil {
		m.closeHandle(h)
	}
}
