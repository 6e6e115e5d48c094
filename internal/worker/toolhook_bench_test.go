package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/wire"
)

// benchSpineRows is how many spine rows `make bench` prefills
// (bench/main.go's -rows).
const benchSpineRows = 100_000

// toolEventFixture reads a recorded event from the golden cases (the
// Claude Code 2.1.330 fixtures 03-PreToolUse.json and 04-PostToolUse.json,
// verbatim) as one compact line with its project folder replaced, as
// bench/hooksjson.go does.
func toolEventFixture(tb testing.TB, file, project string) string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", file))
	if err != nil {
		tb.Fatal(err)
	}
	var c struct{ Steps []json.RawMessage }
	if err := json.Unmarshal(raw, &c); err != nil || len(c.Steps) == 0 {
		tb.Fatalf("%s: %v", file, err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c.Steps[0]); err != nil {
		tb.Fatal(err)
	}
	return strings.ReplaceAll(buf.String(), "/home/researcher/project", project)
}

// BenchmarkToolHooks times the PreToolUse, PostToolUse and
// PostToolUseFailure events of `make bench` as the resident process serves
// them (dial, frame, handler on the open database, reply): the recorded
// Write of notes.txt, on a project folder holding only .git, with the
// spine prefilled as the bench does, the events interleaved in the
// bench's order (so PreToolUse finds the mistakes the failures recorded),
// beside a hook whose handler does nothing (the floor: dial, frame,
// hookrun, reply). Each call waits, untimed, for the work the previous one
// left for after its reply, so the numbers are each hook's time to its
// reply: <event>-p50-µs and -p90-µs per call as the client sees it, and
// <event>-run-p50-µs inside the worker, from the decoded frame to the
// written reply (the client here shares the process, so its numbers also
// carry the after-reply work that competes with it for the CPU).
//
//	go test -tags=sqlite_fts5 -run '^$' -bench ToolHooks -benchtime 2000x -cpuprofile cpu.out ./internal/worker/
func BenchmarkToolHooks(b *testing.B) {
	p := testHome(b)
	proj := filepath.Join(p.Home, "project")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	prefillSpine(b, p.DB, proj, benchSpineRows)
	lookup := func(name string) (hookrun.Spec, error) {
		if name == "noop" {
			return hookrun.Spec{Name: "noop", Handle: func(context.Context, *hookrun.Env, *hook.Event) (hookrun.Outcome, error) {
				return hookrun.Outcome{}, nil
			}}, nil
		}
		return handler.Lookup(name)
	}
	w := New(Config{Paths: p, Settings: settings("fake"), PollInterval: time.Hour, Lookup: lookup})
	if err := w.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	pre := toolEventFixture(b, "pre-tool-use/plain-write.in.json", proj)
	post := toolEventFixture(b, "post-tool-use/write.in.json", proj)
	const old = `"hook_event_name":"PostToolUse"`
	if !strings.Contains(post, old) {
		b.Fatalf("the PostToolUse fixture no longer holds %s", old)
	}
	failure := strings.Replace(post, old, `"hook_event_name":"PostToolUseFailure","error":"Command failed with exit code 1","is_interrupt":false`, 1)
	env := []string{"VIBE_HOME=" + p.Home, "HOME=" + p.Home, "CLAUDE_PROJECT_DIR=" + proj, "CLAUDE_PLUGIN_ROOT=" + p.Home, "VIBE_ENFORCE=everywhere"}
	events := []struct{ name, hook, event string }{
		{"floor", "noop", post},
		{"PostToolUse", "post-tool-use", post},
		{"PostToolUseFailure", "post-tool-use", failure},
		{"PreToolUse", "pre-tool-use", pre},
	}
	times := make([][]time.Duration, len(events))
	inWorker := make([][]time.Duration, len(events))
	var took time.Duration
	w.replied = func(_ string, d time.Duration) { took = d }
	n := 0
	round := func() {
		for k, c := range events {
			n++
			event := strings.ReplaceAll(c.event, `"toolu_020_0"`, fmt.Sprintf(`"toolu_bench_%d"`, n))
			frame := wire.AppendHookRequest(nil, wire.HookRequest{Hook: c.hook, Version: buildinfo.Version, Env: env, Stdin: []byte(event)})
			t0 := time.Now()
			rep := sendFrame(b, p.Socket, frame)
			times[k] = append(times[k], time.Since(t0))
			if rep.Code != "" || rep.Exit != 0 || bytes.Contains(rep.Stdout, []byte("systemMessage")) {
				b.Fatalf("%s: reply %+v %s", c.name, rep, rep.Stdout)
			}
			b.StopTimer()
			w.conns.Wait() // the after-reply work of this call
			inWorker[k] = append(inWorker[k], took)
			b.StartTimer()
		}
	}
	for i := 0; i < 5; i++ {
		round()
	}
	for k := range times {
		times[k], inWorker[k] = times[k][:0], inWorker[k][:0]
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		round()
	}
	for k, c := range events {
		ds, run := times[k], inWorker[k]
		slices.Sort(ds)
		slices.Sort(run)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), c.name+"-p50-µs")
		b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds()), c.name+"-p90-µs")
		b.ReportMetric(float64(run[len(run)/2].Microseconds()), c.name+"-run-p50-µs")
	}
}

// prefillSpine adds rows spine entries of earlier sessions (500 a session,
// a month ago) to project, the history bench/spine.go gives `make bench`'s
// hooks.
func prefillSpine(tb testing.TB, db, project string, rows int) {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	base := time.Now().Add(-30 * 24 * time.Hour)
	err = st.Tx(ctx, func(tx *store.Tx) error {
		const perSession = 500
		for i := 0; i < rows; i++ {
			sid := fmt.Sprintf("prefill-%d", i/perSession)
			at := base.Add(time.Duration(i) * time.Second)
			if i%perSession == 0 {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: sid, ProjectPath: project, At: at, Start: true}); err != nil {
					return err
				}
			}
			d := int64(i % 900)
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: sid, ProjectPath: project, At: at,
				ActionType: []string{"DATA_LOAD", "MODEL_TRAIN", "CODE_EDIT", "COMMAND", "FILE_READ"}[i%5],
				ToolName:   "Bash", ToolUseID: fmt.Sprintf("toolu_pre_%d", i), InputSummary: fmt.Sprintf("$ python step_%d.py --seed %d", i%97, i),
				OutputSummary: "ok", InputSHA256: "x", OutputSHA256: "y", DurationMS: &d}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}
