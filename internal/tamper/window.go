package tamper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/privacy"
)

// A window is the time one tool call had to change the project: from its
// PreToolUse (Begin) to the check after it (PostToolUse), read on the
// file system's clock, so a file's change time (ctime, which nobody can
// set back) says whether the call could have made the change. The check
// charges a change to a call only on that evidence (see attribute).
type window struct {
	ID      string   `json:"id"`
	Session string   `json:"session,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Tool    string   `json:"tool"`
	Named   []string `json:"named,omitempty"`
	// Background: the call started a job that goes on after its
	// PostToolUse (Bash run_in_background); its window stays open for
	// backgroundSpan.
	Background bool  `json:"background,omitempty"`
	Start      int64 `json:"start"`         // file-system clock, ns
	End        int64 `json:"end,omitempty"` // 0 while the call runs
}

// backgroundSpan is how long a background job is held able to change the
// project after its call returned.
const backgroundSpan = 24 * time.Hour

// maxWindows bounds the windows a rewritten log keeps (half of it, the
// newest).
const maxWindows = 512

// CallStart is what PreToolUse tells the net about a call it let through.
type CallStart struct {
	Root       string // the project root, absolute and resolved
	Session    string
	ToolUseID  string
	AgentType  string
	Tool       string
	Named      []string // project-relative files the call names as written
	Background bool
}

// windowRecord is one line of a project's window log: a call that began,
// a call that ended, or a session whose open calls all ended (its Stop).
type windowRecord struct {
	Op string `json:"op"` // "begin", "end", "stop"
	window
}

// windows is a project's window log in memory.
type windows struct {
	path string
	seen fileStat // the log's stat when last read
	off  int64    // bytes of the log read
	byID map[string]*window
	// used says the project's calls are recorded (Begin was called): from
	// then on a change no call's window explains is not a call's.
	used bool
}

// Begin records that a call starts (PreToolUse let it through): its window
// opens now.
func (g *Guard) Begin(cs CallStart) error {
	if cs.Root == "" || cs.ToolUseID == "" {
		return nil
	}
	s := g.state(cs.Root)
	s.mu.Lock()
	defer s.mu.Unlock()
	now, err := g.fsNow()
	if err != nil {
		return err
	}
	// The named paths are stored scrubbed (a command may write to a file
	// whose name holds a token): a path that loses a secret then matches
	// no change, which the window's time still charges to the call.
	named := make([]string, len(cs.Named))
	for i, n := range cs.Named {
		named[i] = privacy.Scrub(n)
	}
	w := window{ID: cs.ToolUseID, Session: cs.Session, Agent: cs.AgentType, Tool: cs.Tool, Named: named,
		Background: cs.Background, Start: now}
	return s.win.append(windowRecord{Op: "begin", window: w})
}

// fsNow is the file system's present time: the change time of a file
// vibe just wrote, on the clock the project's change times are read on.
// The file (VIBE_HOME/tamper/clock) stays open: one byte written in place
// and an fstat cost a tenth of opening, truncating and closing it on every
// call.
func (g *Guard) fsNow() (int64, error) {
	g.clockMu.Lock()
	defer g.clockMu.Unlock()
	for try := 0; ; try++ {
		if g.clock == nil {
			path := filepath.Join(g.opts.Home, "tamper", "clock")
			f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
			if errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					return 0, fmt.Errorf("tamper: %w", err)
				}
				f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
			}
			if err != nil {
				return 0, fmt.Errorf("tamper: %w", err)
			}
			g.clock = f
		}
		_, err := g.clock.WriteAt([]byte{'.'}, 0)
		var st fileStat
		if err == nil {
			st, err = fstat(g.clock)
		}
		if err == nil {
			return changeTime(st), nil
		}
		g.clock.Close() // a file gone bad (a full disk, a removed VIBE_HOME): open it again once
		g.clock = nil
		if try > 0 {
			return 0, fmt.Errorf("tamper: %w", err)
		}
	}
}

// changeTime is when a file last changed: its ctime, or its mtime where
// the system gives no ctime.
func changeTime(st fileStat) int64 {
	if st.Ctime != 0 {
		return st.Ctime
	}
	return st.Mtime
}

// load reads what was appended to the log since the last read.
func (ws *windows) load() error {
	st, err := lstat(ws.path)
	if errors.Is(err, fs.ErrNotExist) {
		if ws.byID == nil || ws.seen != (fileStat{}) {
			ws.byID, ws.off, ws.seen, ws.used = map[string]*window{}, 0, fileStat{}, false
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("tamper: stat %s: %w", ws.path, err)
	}
	if ws.byID != nil && st.same(ws.seen) {
		return nil
	}
	if ws.byID == nil || st.Size < ws.off || st.Ino != ws.seen.Ino {
		ws.byID, ws.off = map[string]*window{}, 0 // rewritten: read it whole
	}
	f, err := os.Open(ws.path)
	if err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(ws.off, 0); err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 || line[len(line)-1] != '\n' {
			break // the end, or a line still being written
		}
		ws.off += int64(len(line))
		var rec windowRecord
		if json.Unmarshal(line, &rec) == nil {
			ws.apply(rec)
		}
		if err != nil {
			break
		}
	}
	ws.seen = st
	ws.used = ws.used || len(ws.byID) > 0
	return nil
}

func (ws *windows) apply(rec windowRecord) {
	switch rec.Op {
	case "begin":
		w := rec.window
		ws.byID[w.ID] = &w
	case "end":
		if w := ws.byID[rec.ID]; w != nil && w.End == 0 {
			w.End = rec.End
			w.Background = w.Background || rec.Background
		}
	case "stop":
		for _, w := range ws.byID {
			if w.Session == rec.Session && w.End == 0 {
				w.End = rec.End
			}
		}
	}
}

// append writes one record, in one write so that records of concurrent
// writers do not interleave; the next load reads it. A log grown past
// maxLogBytes is rewritten with the newest windows. A process that only
// begins calls (PreToolUse without the resident worker) never reads the
// log.
func (ws *windows) append(rec windowRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	line = append(line, '\n')
	f, err := os.OpenFile(ws.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(ws.path), 0o700); err != nil {
			return fmt.Errorf("tamper: %w", err)
		}
		f, err = os.OpenFile(ws.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	_, werr := f.Write(line)
	st, serr := f.Stat()
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("tamper: append to %s: %w", ws.path, err)
	}
	if serr == nil && st.Size() > maxLogBytes {
		if err := ws.load(); err != nil {
			return err
		}
		return ws.compact()
	}
	if ws.byID != nil {
		return ws.load() // the windows in memory follow
	}
	ws.used = true
	return nil
}

// maxLogBytes is the size past which the window log is rewritten.
const maxLogBytes = 64 << 10

// compact rewrites the log with the newest windows, open or not (a window
// left open that long belongs to a call that never returned).
func (ws *windows) compact() error {
	list := make([]*window, 0, len(ws.byID))
	for _, w := range ws.byID {
		list = append(list, w)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Start > list[j].Start })
	if len(list) > maxWindows/2 {
		list = list[:maxWindows/2]
	}
	var b bytes.Buffer
	for _, w := range list {
		line, _ := json.Marshal(windowRecord{Op: "begin", window: *w})
		b.Write(line)
		b.WriteByte('\n')
		if w.End != 0 {
			line, _ = json.Marshal(windowRecord{Op: "end", window: window{ID: w.ID, End: w.End, Background: w.Background}})
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	if err := writeAtomic(ws.path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	ws.byID, ws.off, ws.seen = nil, 0, fileStat{}
	return ws.load()
}

// covers reports whether the window spans the change time t: from its
// start to its end (to backgroundSpan past its start for a background job,
// to now while the call runs). coarse widens the start to the second, for
// a file system whose times have no finer part.
func (w *window) covers(t int64, coarse bool) bool {
	start := w.Start
	if coarse {
		start -= start % int64(time.Second)
	}
	if t < start {
		return false
	}
	switch {
	case w.Background:
		return t <= w.Start+int64(backgroundSpan)
	case w.End == 0:
		return true
	}
	return t <= w.End
}

// open reports whether the call still runs: its check has not come yet.
func (w *window) open() bool { return w.End == 0 }

// Net returns the net as the permission policy asks it before a call
// (permission.Request.Net) for the project at root; now dates a first
// snapshot.
func (g *Guard) Net(root string, now func() time.Time) permission.Net {
	return netView{g: g, root: root, now: now}
}

type netView struct {
	g    *Guard
	root string
	now  func() time.Time
}

// Restores reports whether the snapshot holds a restorable copy of every
// guarded file at or under rel. A project seen for the first time is
// snapshotted now, before the call: a copy taken after it restores
// nothing.
func (n netView) Restores(rel string) bool {
	g, s := n.g, n.g.state(n.root)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := g.load(s, n.root); err != nil {
		return false
	}
	if s.ix == nil {
		p, err := permission.Load(n.root)
		if err != nil {
			p = permission.Default()
		}
		if _, err := g.firstSight(s, Call{Root: n.root, Policy: p, Now: n.now(), Clock: n.now}); err != nil || s.ix == nil {
			return false
		}
	}
	prefix := strings.TrimSuffix(rel, "/") + "/"
	for f, e := range s.ix.Files {
		if rel != "." && f != rel && !strings.HasPrefix(f, prefix) {
			continue
		}
		if e.Gone {
			continue
		}
		if !e.Hashed || !e.Blob || e.Tampered {
			return false
		}
	}
	return true
}
