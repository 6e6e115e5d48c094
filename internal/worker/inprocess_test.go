package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// recallSpec is a hook whose handler searches memories by vector the way
// prompt-submit does (recall.HookVectors with the Env's StartQuery) and answers
// with the ids it found, or the error.
func recallSpec(deadline time.Duration) func(string) (hookrun.Spec, error) {
	return func(name string) (hookrun.Spec, error) {
		return hookrun.Spec{Name: name, Events: []string{hook.UserPromptSubmit}, Budget: 5 * time.Second,
			Handle: func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				vec := recall.HookVectors(env.Getenv, env.Paths().Socket, deadline, env.StartQuery, env.Query)
				hits, err := vec.KNN(ctx, "/p", ev.Prompt, 2, nil)
				if err != nil {
					return hookrun.Outcome{Context: []string{"error: " + err.Error()}}, nil
				}
				var ids []string
				for _, h := range hits {
					ids = append(ids, strconv.FormatInt(h.ID, 10))
				}
				return hookrun.Outcome{Context: []string{"hits: " + strings.Join(ids, ",")}}, nil
			}}, nil
	}
}

// TestHooksAskTheWorkerInProcess: a handler running inside the worker gets
// its vector search from the worker itself, not over the socket: the
// hook's VIBE_HOME names a folder with no socket at all, and the search
// still finds the memory whose text the prompt repeats.
func TestHooksAskTheWorkerInProcess(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	ids := seedMemories(t, p, "alpha", "beta", "gamma")
	cfg := fastConfig(p, &fakeLoader{}, "fake")
	cfg.Lookup = recallSpec(time.Second)
	w := openWorker(t, cfg)
	eventually(t, 5*time.Second, "the memories embedded", func() bool { return w.Health(context.Background()).Backlog == 0 })

	elsewhere := t.TempDir() // no worker.sock here: a dial would fail
	rep := hookFrame(t, p.Socket, "recall", `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"beta"}`, "VIBE_HOME="+elsewhere)
	if want := fmt.Sprintf("hits: %d,", ids[1]); rep.Exit != 0 || !strings.Contains(string(rep.Stdout), want) {
		t.Fatalf("reply %+v %s: want the nearest memory first (%s)", rep, rep.Stdout, want)
	}
	if _, err := os.Stat(elsewhere + "/worker.sock"); !os.IsNotExist(err) {
		t.Fatalf("a socket appeared where the hook's VIBE_HOME points: %v", err)
	}
}

// TestInProcessQueryKeepsItsDeadline: when the model is slower than the
// recall deadline, the in-process search gives up at the deadline, as a
// socket client would (recall falls back to FTS5 and says the worker was
// late), and Close still waits for the embedding it left running.
func TestInProcessQueryKeepsItsDeadline(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	l := &fakeLoader{gate: make(chan struct{})}
	cfg := fastConfig(p, l, "fake")
	cfg.Lookup = recallSpec(50 * time.Millisecond)
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep := hookFrame(t, p.Socket, "recall", `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"beta"}`, "VIBE_HOME="+p.Home)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the hook waited %v for a model that blocks; the deadline is 50ms", took)
	}
	if !strings.Contains(string(rep.Stdout), recall.ErrWorkerLate.Error()) {
		t.Fatalf("reply %s: want %q", rep.Stdout, recall.ErrWorkerLate)
	}
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while the embedding still ran", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(l.gate)
	if err := <-closed; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Close: %v", err)
	}
}

// TestStartedQueryKeepsAnAnswerThatCameInTime: a query started in-process
// whose answer is there before its deadline is answered, even when its
// caller comes for it after the deadline (recall waits for its lexical
// search first); with both ready, a plain select would pick either.
func TestStartedQueryKeepsAnAnswerThatCameInTime(t *testing.T) {
	p := testHome(t)
	w := openWorker(t, fastConfig(p, &fakeLoader{}, "fake"))
	for i := 0; i < 100; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		wait := w.startQuery(ctx, client.Request{Op: client.OpHealth})
		<-ctx.Done()
		time.Sleep(time.Millisecond)
		resp, err := wait()
		cancel()
		if err != nil || resp == nil || !resp.OK {
			t.Fatalf("run %d: %+v, %v; want the health answer that came in time", i, resp, err)
		}
	}
}
