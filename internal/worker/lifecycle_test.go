package worker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// TestOverrunningHandlerCannotOutliveTheStore: a hook handler that overruns
// its budget is answered for (the reply says it gave up), but it goes on
// running; Close must not close the database under it. The handler blocks
// past its budget and past the start of Close, then uses the store: that
// must still work, and Close returns only after it.
func TestOverrunningHandlerCannotOutliveTheStore(t *testing.T) {
	p := testHome(t)
	l := &fakeLoader{}
	cfg := fastConfig(p, l, "fake")
	release := make(chan struct{})
	used := make(chan error, 1)
	cfg.Lookup = func(name string) (hookrun.Spec, error) {
		if name != "slow" {
			return hookrun.Spec{}, fmt.Errorf("no hook %q", name)
		}
		return hookrun.Spec{Name: "slow", Events: []string{hook.Stop}, Budget: 20 * time.Millisecond,
			Handle: func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				<-ctx.Done() // its budget ran out: the hook has been answered
				<-release    // and it ignores that, as a stuck handler would
				st, err := env.Store(context.Background())
				if err == nil {
					_, err = st.Stats(context.Background())
				}
				used <- err
				return hookrun.Outcome{}, nil
			}}, nil
	}
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep := hookFrame(t, p.Socket, "slow", `{"session_id":"s1","hook_event_name":"Stop"}`, "VIBE_HOME="+p.Home)
	if rep.Code != "" || !strings.Contains(string(rep.Stdout), "gave up after its 20ms time budget") {
		t.Fatalf("reply: %+v %s", rep, rep.Stdout)
	}
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a handler was still running", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-used; err != nil {
		t.Fatalf("the handler found the store closed under it: %v", err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return after the handler finished")
	}
}

// TestQueriesDoNotWaitForTheWriter: while a hook holds the writer's one
// connection in a transaction, the query service still answers from the
// read pool (health counts the queue there).
func TestQueriesDoNotWaitForTheWriter(t *testing.T) {
	p := testHome(t)
	seedMemories(t, p, "one", "two", "three")
	w := openWorker(t, fastConfig(p, &fakeLoader{}, "fake")) // no model installed: the queue stays
	inside, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- w.store().Tx(context.Background(), func(tx *store.Tx) error {
			close(inside)
			<-release
			return nil
		})
	}()
	<-inside
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	h, err := client.GetHealth(ctx, p.Socket)
	close(release)
	if err != nil || h.Backlog != 3 {
		t.Fatalf("health while the writer is busy: %+v %v", h, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWorkAfterTheReply: what a handler leaves for after its reply
// (Env.AfterReply) runs once the hook has its reply, not before; Close
// waits for it with the database open; and a handler that overran its
// budget gets its after-reply work run at once.
func TestWorkAfterTheReply(t *testing.T) {
	p := testHome(t)
	cfg := fastConfig(p, &fakeLoader{}, "fake")
	release := make(chan struct{})
	ran := make(chan error, 2)
	cfg.Lookup = func(name string) (hookrun.Spec, error) {
		h := hookrun.Spec{Name: name, Events: []string{hook.Stop}, Budget: 20 * time.Millisecond}
		after := func(ctx context.Context, env *hookrun.Env) {
			env.AfterReply(ctx, func(ctx context.Context) {
				<-release
				st, err := env.Store(ctx)
				if err == nil {
					_, err = st.Stats(ctx)
				}
				ran <- err
			})
		}
		switch name {
		case "later":
			h.Handle = func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				after(ctx, env)
				return hookrun.Outcome{Context: []string{"decided"}}, nil
			}
		case "overrun":
			h.Handle = func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				<-ctx.Done() // answered already
				after(ctx, env)
				return hookrun.Outcome{}, nil
			}
		default:
			return hookrun.Spec{}, fmt.Errorf("no hook %q", name)
		}
		return h, nil
	}
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The reply arrives while the after-reply work still waits.
	rep := hookFrame(t, p.Socket, "later", `{"session_id":"s1","hook_event_name":"Stop"}`, "VIBE_HOME="+p.Home)
	if rep.Code != "" || rep.Exit != 0 {
		t.Fatalf("reply: %+v %s", rep, rep.Stdout)
	}
	rep = hookFrame(t, p.Socket, "overrun", `{"session_id":"s1","hook_event_name":"Stop"}`, "VIBE_HOME="+p.Home)
	if !strings.Contains(string(rep.Stdout), "gave up") {
		t.Fatalf("overrun reply: %+v %s", rep, rep.Stdout)
	}
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the after-reply work ran", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for i := 0; i < 2; i++ {
		if err := <-ran; err != nil {
			t.Fatalf("after-reply work found the store closed: %v", err)
		}
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
}
