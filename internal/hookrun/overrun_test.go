package hookrun_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
)

// TestOverrunningHandlerIsCountedAndCancelled: a handler that outlives its
// budget runs through Env.Go (so the resident process can wait for it) under
// Env.Context (so cancelling the process stops it), and the notes it adds
// while Main builds the reply do not race (run with -race).
func TestOverrunningHandlerIsCountedAndCancelled(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	started := 0
	release := make(chan struct{})
	var sawCancel bool
	spec := hookrun.Spec{Name: "slow", Events: []string{hook.Stop}, Budget: 20 * time.Millisecond,
		Handle: func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
			<-ctx.Done() // the budget ran out
			for i := 0; i < 200; i++ {
				env.Note("still here %d", i) // while Main reads the notes
			}
			<-release
			sawCancel = parent.Err() != nil
			return hookrun.Outcome{}, nil
		}}
	home := t.TempDir()
	var out bytes.Buffer
	env := &hookrun.Env{Stdin: strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`), Stdout: &out, Stderr: &bytes.Buffer{},
		Now: time.Now, Getenv: func(k string) string { return map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "everywhere"}[k] },
		Context: parent,
		Go: func(f func()) {
			started++
			wg.Add(1)
			go func() { defer wg.Done(); f() }()
		}}
	if code := hookrun.Main(spec, env); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if started != 1 {
		t.Fatalf("Env.Go started %d handlers, want 1", started)
	}
	if !strings.Contains(out.String(), "gave up after its 20ms time budget") || strings.Contains(out.String(), "goroutine ") {
		t.Errorf("reply %s does not say the budget ran out (or carries stacks)", out.String())
	}
	// The log says where the handler was waiting.
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "hooks-*.log"))
	if len(logs) != 1 {
		t.Fatalf("hook logs: %v", logs)
	}
	if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), "gave up after its 20ms time budget") || !strings.Contains(string(b), "overrun_test.go") {
		t.Errorf("the log does not hold the waiting handler's stack:\n%s", b)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		t.Fatal("the wait group let go before the overrunning handler returned")
	case <-time.After(30 * time.Millisecond):
	}
	cancel()
	close(release)
	<-done
	if !sawCancel {
		t.Error("the handler did not run under Env.Context")
	}
}

// TestCancelledProcessSaysStopped: a handler cut short because the process
// is stopping says so, not that its budget ran out.
func TestCancelledProcessSaysStopped(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	cancel()
	release := make(chan struct{})
	defer close(release)
	spec := hookrun.Spec{Name: "slow", Events: []string{hook.Stop}, Budget: time.Minute,
		Handle: func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
			<-release
			return hookrun.Outcome{}, nil
		}}
	home := t.TempDir()
	var out bytes.Buffer
	env := &hookrun.Env{Stdin: strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`), Stdout: &out, Stderr: &bytes.Buffer{},
		Now: time.Now, Getenv: func(k string) string { return map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "everywhere"}[k] }, Context: parent}
	hookrun.Main(spec, env)
	if !strings.Contains(out.String(), "stopped before it decided: the process running it is shutting down (context canceled)") {
		t.Errorf("reply %s", out.String())
	}
}

// TestWithStreamsSharesTheStore: an Env made for one of several events
// writes to its own streams and leaves the database it inherited open for
// the next one.
func TestWithStreamsSharesTheStore(t *testing.T) {
	home := t.TempDir()
	env := &hookrun.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
		Now: time.Now, Getenv: func(k string) string { return map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "everywhere"}[k] }}
	st, err := env.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	env.Note("from the parent")
	spec := hookrun.Spec{Name: "stop", Events: []string{hook.Stop},
		Handle: func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
			env.Note("from the handler")
			return hookrun.Outcome{}, nil
		}}
	for i := 0; i < 2; i++ {
		var out bytes.Buffer
		sub := env.WithStreams(strings.NewReader(`{"session_id":"s","hook_event_name":"Stop"}`), &out, &bytes.Buffer{})
		if code := hookrun.Main(spec, sub); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(out.String(), "from the parent") || !strings.Contains(out.String(), "from the handler") {
			t.Errorf("event %d: reply %s", i, out.String())
		}
		if _, err := st.Stats(context.Background()); err != nil {
			t.Fatalf("after event %d the inherited store is closed: %v", i, err)
		}
	}
	if n := len(env.Notes()); n != 1 {
		t.Errorf("the parent has %d notes, want its own 1", n)
	}
}
