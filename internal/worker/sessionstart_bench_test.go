package worker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/wire"
)

// sessionStartFixture is the SessionStart Claude Code 2.1.330 sent
// (testdata/clients/claude-code-2.1.330/01-SessionStart.json) with
// its cwd replaced by the benchmark's project.
const sessionStartFixture = `{"session_id":"372e7d5d-9e0c-4521-bc95-02a2c22cfa24","transcript_path":"/home/researcher/.claude/projects/-home-researcher-project/372e7d5d-9e0c-4521-bc95-02a2c22cfa24.jsonl","cwd":"CWD","hook_event_name":"SessionStart","source":"startup"}`

// BenchmarkRelayedSessionStart times a whole SessionStart as the resident
// process serves it (dial, frame, handler on the open database, reply), on
// a git project with nothing recorded but its own sessions: the worst
// hook of `make bench`, whose cost is mostly its store reads (see
// store.BenchmarkSessionStartQueries).
func BenchmarkRelayedSessionStart(b *testing.B) { benchRelayedSessionStart(b, nil, "") }

// benchRelayedSessionStart times SessionStart in the worker on a git
// project; fill, when set, adds to the database after the first start has
// made the project's rows, and the next reply must then contain want.
func benchRelayedSessionStart(b *testing.B, fill func(b *testing.B, db string), want string) {
	p := testHome(b)
	proj := filepath.Join(p.Home, "project")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	w := New(Config{Paths: p, Settings: settings("fake"), PollInterval: time.Hour})
	if err := w.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	frame := wire.AppendHookRequest(nil, wire.HookRequest{Hook: "session-start", Version: buildinfo.Version,
		Env:   []string{"VIBE_HOME=" + p.Home, "HOME=" + p.Home, "CLAUDE_PROJECT_DIR=" + proj, "VIBE_ENFORCE=everywhere"},
		Stdin: []byte(strings.Replace(sessionStartFixture, "CWD", proj, 1))})
	run := func(want string) {
		if rep := sendFrame(b, p.Socket, frame); rep.Code != "" || rep.Exit != 0 || !strings.Contains(string(rep.Stdout), want) {
			b.Fatalf("reply %+v %s", rep, rep.Stdout)
		}
	}
	run("VIBE STATE") // the first start creates the project's rows
	if fill != nil {
		fill(b, p.DB)
		run(want)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run("VIBE STATE")
	}
}
