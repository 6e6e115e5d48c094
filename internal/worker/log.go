package worker

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/privacy"
)

// LogPrefix and LogSuffix frame the daily log names: worker-2026-11-22.log.
const (
	LogPrefix = "worker-"
	LogSuffix = ".log"
	dayLayout = "2006-01-02"
)

// dailyLog writes timestamped lines to one file per day, deletes files older
// than the retention on each new day, and folds a message repeated within a
// minute into one "repeated N times" line, so a long database lock cannot
// flood the disk.
type dailyLog struct {
	dir       string
	retention int
	now       func() time.Time
	mirror    io.Writer

	mu      sync.Mutex
	day     string
	f       *os.File
	last    string
	lastAt  time.Time
	repeats int
}

func openDailyLog(dir string, retentionDays int, now func() time.Time, mirror io.Writer) (*dailyLog, error) {
	if err := os.MkdirAll(dir, config.DirMode); err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	l := &dailyLog{dir: dir, retention: retentionDays, now: now, mirror: mirror}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.rotate(now()); err != nil {
		return nil, err
	}
	return l, nil
}

// rotate opens the file of t's day and prunes old ones; l.mu is held.
func (l *dailyLog) rotate(t time.Time) error {
	day := t.Format(dayLayout)
	if day == l.day && l.f != nil {
		return nil
	}
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	f, err := os.OpenFile(filepath.Join(l.dir, LogPrefix+day+LogSuffix), os.O_CREATE|os.O_WRONLY|os.O_APPEND, config.FileMode)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	config.NarrowFile(f)
	l.f, l.day = f, day
	pruneLogs(l.dir, t, l.retention)
	return nil
}

// pruneLogs deletes daily logs more than retentionDays before now's day.
func pruneLogs(dir string, now time.Time, retentionDays int) []string {
	if retentionDays <= 0 {
		return nil
	}
	cutoff := now.AddDate(0, 0, -retentionDays).Format(dayLayout)
	entries, _ := os.ReadDir(dir)
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, LogPrefix) || !strings.HasSuffix(name, LogSuffix) {
			continue
		}
		day := strings.TrimSuffix(strings.TrimPrefix(name, LogPrefix), LogSuffix)
		if _, err := time.Parse(dayLayout, day); err != nil {
			continue // worker-stderr.log and anything not dated
		}
		if day < cutoff {
			if os.Remove(filepath.Join(dir, name)) == nil {
				removed = append(removed, name)
			}
		}
	}
	sort.Strings(removed)
	return removed
}

func (l *dailyLog) Printf(format string, args ...any) {
	msg := privacy.Scrub(fmt.Sprintf(format, args...))
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	if msg == l.last && t.Sub(l.lastAt) < time.Minute {
		l.repeats++
		return
	}
	if l.repeats > 0 {
		l.write(t, fmt.Sprintf("(previous message repeated %d more times)", l.repeats))
		l.repeats = 0
	}
	l.last, l.lastAt = msg, t
	l.write(t, msg)
}

func (l *dailyLog) write(t time.Time, msg string) {
	if err := l.rotate(t); err != nil {
		return
	}
	line := t.Format("2006-01-02T15:04:05.000Z07:00") + " " + msg + "\n"
	l.f.WriteString(line)
	if l.mirror != nil {
		io.WriteString(l.mirror, line)
	}
}

func (l *dailyLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.repeats > 0 {
		l.write(l.now(), fmt.Sprintf("(previous message repeated %d more times)", l.repeats))
		l.repeats = 0
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// LatestLog is the newest daily log in dir, "" when there is none.
func LatestLog(dir string) string {
	entries, _ := os.ReadDir(dir)
	latest := ""
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, LogPrefix) || !strings.HasSuffix(name, LogSuffix) {
			continue
		}
		if _, err := time.Parse(dayLayout, strings.TrimSuffix(strings.TrimPrefix(name, LogPrefix), LogSuffix)); err != nil {
			continue
		}
		if name > latest {
			latest = name
		}
	}
	if latest == "" {
		return ""
	}
	return filepath.Join(dir, latest)
}
