//go:build linux

package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// TestWorkerCheckFlagsAStaleWorker: doctor says nothing is wrong when no
// worker runs or when this install's runs, and fails, saying how to fix
// it, when the worker runs another file than this install's bin (here the
// worker runs in the test binary; bin/vibe-embed-worker is a link to it,
// then a file of its own, as after a rebuild). setup's replaceStale finds
// the same, and says when it cannot replace it.
func TestWorkerCheckFlagsAStaleWorker(t *testing.T) {
	ctx := context.Background()
	f, _, _ := clitest.New(t, clitest.Options{Now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)})
	f.Root = t.TempDir()
	p := f.Paths()
	bin := cli.InstalledWorker(f.Root)
	os.MkdirAll(filepath.Dir(bin), 0o755)

	o := doctorOpts(t, f)
	c := workerCheck(ctx, o)
	if !c.OK || !strings.HasPrefix(c.Detail, "not running") {
		t.Fatalf("no worker: %+v", c)
	}

	s := config.Defaults
	w := worker.New(worker.Config{Paths: p, Settings: &s, Now: f.Now, PollInterval: 10 * time.Millisecond})
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	if c := workerCheck(ctx, o); !c.OK || !strings.HasPrefix(c.Detail, "running (pid ") {
		t.Fatalf("this install's worker: %+v", c)
	}
	if detail, ok := cli.ReplaceStale(ctx, p, bin); detail != "" || !ok {
		t.Fatalf("replaceStale of a current worker: %q %v", detail, ok)
	}

	os.Remove(bin)
	if err := os.WriteFile(bin, []byte("the rebuilt worker"), 0o755); err != nil {
		t.Fatal(err)
	}
	c = workerCheck(ctx, o)
	if c.OK || !strings.Contains(c.Detail, "runs another file than "+bin) || !strings.Contains(c.Fix, "vibe setup") {
		t.Fatalf("stale worker: %+v", c)
	}
	detail, ok := cli.ReplaceStale(ctx, p, bin)
	if ok || !strings.Contains(detail, "could not be replaced (it is not a "+client.BinaryName+" process") {
		t.Fatalf("replaceStale of a worker it cannot stop: %q %v", detail, ok)
	}
}
