package worker

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/wire"
)

// hookFrame runs one hook event in the worker through its socket. The
// events name made-up folders: enforcement is on everywhere
// (config.EnforceVar), as in a project that ran `vibe init`.
func hookFrame(t *testing.T, socket, hookName, event string, env ...string) wire.HookReply {
	t.Helper()
	env = append(env, "VIBE_ENFORCE=everywhere")
	return sendFrame(t, socket, wire.AppendHookRequest(nil, wire.HookRequest{Hook: hookName, Version: buildinfo.Version, Env: env, Stdin: []byte(event)}))
}

// sendFrame sends one hook frame to the worker on socket and returns its
// reply, as a hook binary does.
func sendFrame(tb testing.TB, socket string, frame []byte) wire.HookReply {
	tb.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write(frame); err != nil {
		tb.Fatal(err)
	}
	rep, err := wire.ReadHookReply(conn, 1<<20)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// TestDeletedDatabaseIsDetected: the database file is deleted under a
// running worker; the next hook finds it out, the worker reopens a
// database at the path, the reply says what happened, and the event is
// recorded in the new file rather than in the deleted one.
func TestDeletedDatabaseIsDetected(t *testing.T) {
	p := testHome(t)
	cfg := fastConfig(p, nil, "fake")
	cfg.PollInterval = time.Hour // only the hook may notice
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	env := []string{"VIBE_HOME=" + p.Home, "VIBE_WORKER=off"}
	event := func(id string) string {
		return `{"session_id":"del-1","cwd":"` + t.TempDir() + `","hook_event_name":"PostToolUse","tool_name":"Bash",` +
			`"tool_input":{"command":"python train.py"},"tool_response":{"stdout":"ok"},"tool_use_id":"` + id + `"}`
	}
	if rep := hookFrame(t, p.Socket, "post-tool-use", event("before"), env...); rep.Exit != 0 || len(rep.Stdout) != 0 {
		t.Fatalf("first event: %+v %s", rep, rep.Stdout)
	}
	for _, f := range []string{p.DB, p.DB + "-wal", p.DB + "-shm"} {
		os.Remove(f)
	}
	rep := hookFrame(t, p.Socket, "post-tool-use", event("after"), env...)
	if !strings.Contains(string(rep.Stdout), "was deleted or replaced while vibe's worker held it open") {
		t.Fatalf("no notice: %+v %s", rep, rep.Stdout)
	}
	if rep := hookFrame(t, p.Socket, "post-tool-use", event("later"), env...); len(rep.Stdout) != 0 {
		t.Fatalf("the notice repeats: %s", rep.Stdout)
	}
	w.Close() // the calls are recorded after their replies; Close waits for that
	st, err := store.Open(context.Background(), p.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	es, err := st.Spine(context.Background(), record.SpineFilter{Session: "del-1"})
	if err != nil || len(es) != 2 {
		t.Fatalf("the new database holds %d entries (%v), want the 2 after the deletion", len(es), err)
	}
}

// TestWorkerReplaysTheSpool: records hooks spooled while the database
// refused them are written by the worker's next poll, with no hook event.
func TestWorkerReplaysTheSpool(t *testing.T) {
	p := testHome(t)
	seen := record.SessionSeen{ID: "spooled-1", ProjectPath: "/p", At: t0}
	if err := store.Spool(p.Spool, store.Record{Session: &seen}); err != nil {
		t.Fatal(err)
	}
	w := New(fastConfig(p, nil, "fake"))
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	eventually(t, 5*time.Second, "spool replayed", func() bool { return !store.Spooled(p.Spool) })
	if s, err := w.store().Session(context.Background(), "spooled-1"); err != nil || s.ID != "spooled-1" {
		t.Fatalf("session %+v %v", s, err)
	}
}
