package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"
)

func TestDailyLogRotatesPrunesAndFoldsRepeats(t *testing.T) {
	dir := t.TempDir()
	// Old logs: one inside the 3-day retention, two outside, and files that
	// are not dated logs, which must survive.
	for _, name := range []string{"worker-2026-11-10.log", "worker-2026-11-18.log", "worker-2026-11-20.log", "worker-stderr.log", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, name), []byte("old\n"), 0o644)
	}
	now := time.Date(2026, 11, 21, 23, 59, 58, 500_000_000, time.UTC)
	clock := func() time.Time { return now }
	var mirror bytes.Buffer
	l, err := openDailyLog(dir, 3, clock, &mirror)
	if err != nil {
		t.Fatal(err)
	}
	l.Printf("database is locked")
	now = now.Add(500 * time.Millisecond)
	l.Printf("database is locked")
	l.Printf("database is locked")
	now = now.Add(time.Second) // past midnight: a new file, and another prune
	l.Printf("embedded %d texts", 32)
	now = now.Add(time.Hour)
	l.Printf("embedded %d texts", 32)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		raw, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		files[e.Name()] = string(raw)
	}
	want := map[string]string{
		"worker-2026-11-20.log": "old\n", // the 10th went at open, the 18th at midnight
		"worker-stderr.log":     "old\n",
		"notes.txt":             "old\n",
		"worker-2026-11-21.log": "2026-11-21T23:59:58.500Z database is locked\n",
		"worker-2026-11-22.log": "2026-11-22T00:00:00.000Z (previous message repeated 2 more times)\n" +
			"2026-11-22T00:00:00.000Z embedded 32 texts\n" +
			"2026-11-22T01:00:00.000Z embedded 32 texts\n",
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files =\n%v\nwant\n%v", files, want)
	}
	if mirror.String() != want["worker-2026-11-21.log"]+want["worker-2026-11-22.log"] {
		t.Errorf("mirror = %q", mirror.String())
	}
	if got := LatestLog(dir); got != filepath.Join(dir, "worker-2026-11-22.log") {
		t.Errorf("LatestLog = %s", got)
	}
}

func TestPruneLogs(t *testing.T) {
	tests := []struct {
		name      string
		retention int
		want      []string
	}{
		{"keep 14 days", 14, []string{"worker-2026-11-01.log"}},
		{"keep 1 day", 1, []string{"worker-2026-11-01.log", "worker-2026-11-20.log"}},
		{"zero keeps everything", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range []string{"worker-2026-11-01.log", "worker-2026-11-20.log", "worker-2026-11-21.log", "worker-x.log"} {
				os.WriteFile(filepath.Join(dir, n), nil, 0o644)
			}
			got := pruneLogs(dir, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), tc.retention)
			sort.Strings(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("removed %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMeterRates(t *testing.T) {
	var m meter
	base := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	m.add(base, 30, 2*time.Second)
	m.add(base.Add(10*time.Second), 30, time.Second)
	m.add(base.Add(10*time.Second+300*time.Millisecond), 6, time.Second)
	tests := []struct {
		at         time.Duration
		throughput float64
		embedRate  float64
	}{
		{0, 0.5, 15},
		{30 * time.Second, 66.0 / 60, 66.0 / 4},
		{65 * time.Second, 36.0 / 60, 18}, // the first second has left the window
		{2 * time.Minute, 0, 0},
	}
	for _, tc := range tests {
		th, er := m.rates(base.Add(tc.at))
		if th != tc.throughput || er != tc.embedRate {
			t.Errorf("at +%s: %v, %v; want %v, %v", tc.at, th, er, tc.throughput, tc.embedRate)
		}
	}
}
