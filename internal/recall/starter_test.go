package recall

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// TestSearchStartsTheWorkersKNN: with the worker's Starter (a hook running
// inside the worker), Search starts the KNN before its lexical search,
// under the recall deadline, waits for it once, fuses its answer, and still
// waits for it when the lexical search fails, so nothing it started is
// left behind.
func TestSearchStartsTheWorkersKNN(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	ids := seed(t, st, mem{kind: record.KindNote, text: "the doublet rate tracks loading", at: t0},
		mem{kind: record.KindNote, text: "ambient RNA dominates empty droplets", at: t0})
	var events []string
	start := func(ctx context.Context, req client.Request) func() (*client.Response, error) {
		dl, ok := ctx.Deadline()
		if !ok || time.Until(dl) > time.Second {
			t.Errorf("the KNN started without the recall deadline (%v, %v)", dl, ok)
		}
		if req.Op != client.OpKNN || req.Project != "/p" || req.Text != "doublet rate" {
			t.Errorf("request %+v", req)
		}
		events = append(events, "start")
		return func() (*client.Response, error) {
			events = append(events, "wait")
			return &client.Response{OK: true, Model: "m", Hits: []client.Hit{{MemoryID: ids[1], Distance: 0.3}}}, nil
		}
	}
	never := func(string) string { return "" }
	vec := HookVectors(never, "/nonexistent/worker.sock", time.Second, start, nil)
	res, err := Search(ctx, st, vec, Query{Project: "/p", Text: "doublet rate", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeHybrid || !slices.Contains(hitIDs(res.Hits), ids[0]) {
		t.Errorf("mode %s hits %v note %q: want the lexical hit, hybrid", res.Mode, hitIDs(res.Hits), res.Note)
	}
	if !slices.Equal(events, []string{"start", "wait"}) {
		t.Errorf("events %v, want one start then one wait", events)
	}

	events = nil
	st.Close()
	if _, err := Search(ctx, st, vec, Query{Project: "/p", Text: "doublet rate", Now: t0}); err == nil {
		t.Fatal("Search on a closed store succeeded")
	}
	if !slices.Equal(events, []string{"start", "wait"}) {
		t.Errorf("after a failed lexical search: events %v, want the started KNN waited for", events)
	}

	// A KNN that fails says why recall went without vectors, as over the socket.
	st = openStore(t)
	seed(t, st, mem{kind: record.KindNote, text: "the doublet rate tracks loading", at: t0})
	late := func(ctx context.Context, req client.Request) func() (*client.Response, error) {
		return func() (*client.Response, error) {
			return nil, errors.Join(client.ErrUnavailable, context.DeadlineExceeded)
		}
	}
	res, err = Search(ctx, st, HookVectors(never, "", time.Second, late, nil), Query{Project: "/p", Text: "doublet rate", Now: t0})
	if err != nil || res.Mode != ModeLexical || res.Note != "worker did not answer in time (deadline 1s): lexical only" {
		t.Errorf("late KNN: mode %s note %q err %v", res.Mode, res.Note, err)
	}
}

// TestHookVectorsAsksInProcessWithoutAStarter: a host that offers only the
// waiting form of the worker's query (Env.Query) is still asked
// in-process, never over the socket.
func TestHookVectorsAsksInProcessWithoutAStarter(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	ids := seed(t, st, mem{kind: record.KindNote, text: "the doublet rate tracks loading", at: t0})
	asked := 0
	query := func(ctx context.Context, req client.Request) (*client.Response, error) {
		asked++
		return &client.Response{OK: true, Model: "m", Hits: []client.Hit{{MemoryID: ids[0], Distance: 0.3}}}, nil
	}
	vec := HookVectors(func(string) string { return "" }, "/nonexistent/worker.sock", time.Second, nil, query)
	res, err := Search(ctx, st, vec, Query{Project: "/p", Text: "doublet rate", Now: t0})
	if err != nil || res.Mode != ModeHybrid || asked != 1 {
		t.Fatalf("mode %s note %q asked %d err %v: want hybrid, asked in-process once", res.Mode, res.Note, asked, err)
	}
}
