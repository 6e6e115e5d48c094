package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/wire"
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
				// Close may have cancelled ctx by now (it cancels what
				// outlives its hook); the database must still be open.
				st, err := env.Store(context.Background())
				if err == nil {
					_, err = st.Stats(context.Background())
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

// TestPostToolUseRecordedAfterTheReply: the resident process answers a
// plain PostToolUse and a failed call before it records them, and the
// records land before Close releases the database; both count as the
// session's calls, and the failure is remembered as a mistake.
func TestPostToolUseRecordedAfterTheReply(t *testing.T) {
	p := testHome(t)
	w := New(fastConfig(p, &fakeLoader{}, "fake"))
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("AUC 0.81\n"), 0o644)
	env := []string{"VIBE_HOME=" + p.Home, "HOME=" + p.Home, "VIBE_WORKER=off"}
	ok := `{"session_id":"s1","cwd":"` + proj + `","hook_event_name":"PostToolUse","tool_name":"Write","tool_use_id":"t1",` +
		`"tool_input":{"file_path":"` + filepath.Join(proj, "notes.txt") + `","content":"AUC 0.81\n"},"tool_response":{"type":"create"}}`
	failed := `{"session_id":"s1","cwd":"` + proj + `","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"t2",` +
		`"tool_input":{"command":"python3 train.py"},"error":"KeyError: 'guide_id'"}`
	for _, c := range []struct{ hook, event string }{{"post-tool-use", ok}, {"post-tool-use", failed}} {
		if rep := hookFrame(t, p.Socket, c.hook, c.event, env...); rep.Code != "" || rep.Exit != 0 || strings.Contains(string(rep.Stdout), "systemMessage") {
			t.Fatalf("reply: %+v %s", rep, rep.Stdout)
		}
	}
	// The next call of the failed command, sent the moment the failure
	// was answered, is told of it (the worker's afterGate).
	retry := `{"session_id":"s1","cwd":"` + proj + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t3",` +
		`"tool_input":{"command":"python3 train.py"}}`
	if rep := hookFrame(t, p.Socket, "pre-tool-use", retry, env...); !strings.Contains(string(rep.Stdout), "KeyError") {
		t.Fatalf("the PreToolUse right after the failure does not name it: %+v %s", rep, rep.Stdout)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var entries, calls, mistakes int
	db := st.DB()
	db.QueryRow("SELECT count(*) FROM spine_entries WHERE session_id = 's1'").Scan(&entries)
	db.QueryRow("SELECT tool_calls FROM sessions WHERE id = 's1'").Scan(&calls)
	db.QueryRow("SELECT count(*) FROM mistakes").Scan(&mistakes)
	if entries != 2 || calls != 2 || mistakes != 1 {
		t.Fatalf("spine entries %d, tool calls %d, mistakes %d; want 2, 2, 1", entries, calls, mistakes)
	}
}

// TestAHookSeesTheRecordsOfEarlierReplies: what a hook leaves for after
// its reply with AfterReplyOrdered is done before a hook that arrives
// after that reply runs, so moving such a record after the reply never
// changes what the next hook reads; other after-reply work, and nothing
// pending, make no hook wait.
func TestAHookSeesTheRecordsOfEarlierReplies(t *testing.T) {
	p := testHome(t)
	cfg := fastConfig(p, &fakeLoader{}, "fake")
	var recorded atomic.Int32
	cfg.Lookup = func(name string) (hookrun.Spec, error) {
		h := hookrun.Spec{Name: name, Events: []string{hook.Stop}, Budget: 5 * time.Second}
		switch name {
		case "record":
			h.Handle = func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				env.AfterReplyOrdered(ctx, func(context.Context) {
					time.Sleep(150 * time.Millisecond)
					recorded.Add(1)
				})
				return hookrun.Outcome{}, nil
			}
		case "plain":
			h.Handle = func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				env.AfterReply(ctx, func(context.Context) { time.Sleep(300 * time.Millisecond) })
				return hookrun.Outcome{}, nil
			}
		case "read":
			h.Handle = func(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
				env.Note("recorded %d", recorded.Load())
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
	defer w.Close()
	event := `{"session_id":"s1","hook_event_name":"Stop"}`
	quick := func(hookName string) wire.HookReply {
		t.Helper()
		start := time.Now()
		rep := hookFrame(t, p.Socket, hookName, event, "VIBE_HOME="+p.Home)
		if rep.Code != "" || rep.Exit != 0 {
			t.Fatalf("%s: reply %+v %s", hookName, rep, rep.Stdout)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Fatalf("%s waited %v", hookName, d)
		}
		return rep
	}
	for i := 1; i <= 2; i++ {
		quick("record") // its reply does not wait for its own record
		rep := hookFrame(t, p.Socket, "read", event, "VIBE_HOME="+p.Home)
		if want := fmt.Sprintf("recorded %d", i); !strings.Contains(string(rep.Stdout), want) {
			t.Fatalf("the hook after the reply read %s, want %q", rep.Stdout, want)
		}
	}
	quick("plain")
	quick("read") // a plain record after the reply is not waited for
	quick("read") // nor is anything when nothing is pending
}
