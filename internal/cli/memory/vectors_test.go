package memory

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store/record"
)

// fakeWorker answers every request on VIBE_HOME's worker socket with the
// given KNN hits, as the resident worker does when a model ("mini") is
// loaded, and counts the requests.
func fakeWorker(t *testing.T, f *cli.Factory, hits map[int64]float64) *atomic.Int32 {
	t.Helper()
	return fakeWorkerOf(t, f, "mini", hits)
}

// fakeWorkerOf is fakeWorker with the hits made by model.
func fakeWorkerOf(t *testing.T, f *cli.Factory, model string, hits map[int64]float64) *atomic.Int32 {
	t.Helper()
	ln, err := net.Listen("unix", f.Paths().Socket)
	if err != nil {
		t.Skipf("cannot listen on a unix socket here: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	n := new(atomic.Int32)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			r := bufio.NewReader(conn)
			if _, err := r.ReadBytes('\n'); err == nil {
				n.Add(1)
				var hs []string
				for id, d := range hits {
					hs = append(hs, fmt.Sprintf(`{"memory_id":%d,"distance":%g}`, id, d))
				}
				fmt.Fprintf(conn, `{"ok":true,"model":%q,"hits":[%s]}`+"\n", model, strings.Join(hs, ","))
			}
			conn.Close()
		}
	}()
	return n
}

// TestRecallUsesTheWorkersVectors: the CLI's recall asks the resident
// worker for vectors (hybrid search, as its help promises); it used to be
// built without a vector source and was always lexical (issue 16, finding 8).
func TestRecallUsesTheWorkersVectors(t *testing.T) {
	f, out, errOut, root := memTestFactory(t)
	ids := memSeed(t, f, root, record.NewMemory{Kind: record.KindNote, Text: "Harmony theta 3 fixed the batch split"})
	calls := fakeWorker(t, f, map[int64]float64{ids[0]: 0.2})
	if code := memMain(f, []string{"recall", "--project", root, "--json", "integration of donors"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []recallJSON
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if calls.Load() == 0 || len(rows) != 1 || rows[0].ID != ids[0] || !strings.Contains(strings.Join(rows[0].Sources, ","), "vec") {
		t.Fatalf("worker asked %d times; rows %+v; stderr %q", calls.Load(), rows, errOut)
	}
	if want := "recall: ranked by words (BM25) and by meaning (mini's vectors)\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// TestRecallSaysTheFallbackRankedWords: while the fallback embedder stands
// in for the model, recall says its results were ranked by words, how to
// install the model, and lists what the fallback added as "fallback", not
// as a vector (meaning) match.
func TestRecallSaysTheFallbackRankedWords(t *testing.T) {
	f, out, errOut, root := memTestFactory(t)
	ms := []record.NewMemory{{Kind: record.KindNote, Text: "Harmony theta 3 fixed the batch split"},
		{Kind: record.KindNote, Text: "the donors were integrated with Harmony"}}
	for i := range 30 {
		ms = append(ms, record.NewMemory{Kind: record.KindNote, Text: fmt.Sprintf("plate %d was read twice", i)})
	}
	ids := memSeed(t, f, root, ms...)
	hits := map[int64]float64{ids[0]: 0.1} // far nearer than the rest: it stands out
	for i, id := range ids[1:] {
		hits[id] = 1.2 + 0.0005*float64(i)
	}
	fakeWorkerOf(t, f, embed.FallbackModel, hits)
	if code := memMain(f, []string{"recall", "--project", root, "--json", "--limit", "3", "integration of donors"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []recallJSON
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, r := range rows {
		if slices.Contains(r.Sources, recall.SourceVector) {
			t.Errorf("M-%d lists %v: a fallback hit presented as a match of meaning", r.ID, r.Sources)
		}
	}
	if len(rows) == 0 || rows[0].ID != ids[0] || !slices.Contains(rows[0].Sources, recall.SourceFallback) {
		t.Errorf("rows %+v; want M-%d first, listed as fallback; stderr %q", rows, ids[0], errOut)
	}
	want := "recall: ranked by words: BM25, and the fallback hashed-token embedder standing in while no model is installed (it hashes words, " +
		"so what it adds, listed as \"fallback\", matches words, not meanings); `vibe model pull " + embed.DefaultModel + "` installs the model"
	if !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("stderr %q, want it to begin %q", errOut, want)
	}
}

// TestRecallSaysWhyLexical: without vectors recall says so and why.
func TestRecallSaysWhyLexical(t *testing.T) {
	t.Run("worker not running", func(t *testing.T) {
		f, _, errOut, root := memTestFactory(t)
		memSeed(t, f, root, record.NewMemory{Kind: record.KindNote, Text: "batch split"})
		if code := memMain(f, []string{"recall", "--project", root, "batch"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if want := "recall: worker not running: lexical only (start it with `vibe worker start`; `vibe model list` shows whether a model is installed)\n"; !strings.HasPrefix(errOut.String(), want) {
			t.Errorf("stderr %q, want %q", errOut, want)
		}
	})
	t.Run("VIBE_WORKER=off", func(t *testing.T) {
		f, _, errOut, root := memTestFactory(t)
		home := f.Paths().Home
		f.Getenv = func(k string) string {
			return map[string]string{"VIBE_HOME": home, "VIBE_WORKER": "off"}[k]
		}
		memSeed(t, f, root, record.NewMemory{Kind: record.KindNote, Text: "batch split"})
		if code := memMain(f, []string{"recall", "--project", root, "batch"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if want := "recall: lexical only: VIBE_WORKER=off keeps the embed worker, and so vector search, off\n"; !strings.HasPrefix(errOut.String(), want) {
			t.Errorf("stderr %q, want %q", errOut, want)
		}
	})
}

// TestMemoryAddAsksTheWorker: memory add compares meanings through the
// worker when it runs.
func TestMemoryAddAsksTheWorker(t *testing.T) {
	f, _, errOut, root := memTestFactory(t)
	ids := memSeed(t, f, root, record.NewMemory{Kind: record.KindDecision, Text: "use Harmony with theta 3"})
	calls := fakeWorker(t, f, map[int64]float64{ids[0]: 0.1})
	if code := memMain(f, []string{"memory", "add", "--project", root, "--kind", "decision", "do not use Harmony"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if calls.Load() == 0 {
		t.Errorf("memory add did not ask the worker; stderr %q", errOut)
	}
	if strings.Contains(errOut.String(), "words only") {
		t.Errorf("stderr %q says words only although the worker answered", errOut)
	}

	// Without the worker it says so.
	g, _, gErr, groot := memTestFactory(t)
	if code := memMain(g, []string{"memory", "add", "--project", groot, "a note"}); code != 0 {
		t.Fatalf("exit %d: %s", code, gErr)
	}
	if want := "memory add: contradictions were checked by words only: the embed worker is not running (`vibe worker start`)\n"; gErr.String() != want {
		t.Errorf("stderr %q, want %q", gErr, want)
	}
}

// memMain runs args as `vibe` would, with only recall and memory.
func memMain(f *cli.Factory, args []string) int {
	return clitest.Main(f, args, NewCmdRecall(f, nil), NewCmdMemory(f))
}
