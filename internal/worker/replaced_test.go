package worker

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestExeWatchSeesAReplacedBinary: the same file never counts; a new file
// at the path counts once it is seen unchanged at two checks; a missing
// file (mid-rebuild) does not count.
func TestExeWatchSeesAReplacedBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "vibe-embed-worker")
	write := func(content string) {
		t.Helper()
		os.Remove(bin) // as go build and install(1) do: a new file, not the old one rewritten
		if err := os.WriteFile(bin, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("old build")
	// A running program holds its file open, so a rebuild cannot reuse
	// its inode number.
	running, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer running.Close()
	x := newExeWatch(bin, time.Second)
	x.start()
	now := t0
	tick := func() bool { now = now.Add(time.Second); return x.check(now) }
	if first, second := tick(), tick(); first || second {
		t.Fatal("the original file counts as replaced")
	}
	if x.check(now.Add(time.Millisecond)) {
		t.Fatal("checked again within the interval")
	}
	os.Remove(bin)
	if tick() {
		t.Fatal("a missing file counts as replaced")
	}
	write("new build, half written")
	if tick() {
		t.Fatal("a replacement counts at its first sighting")
	}
	write("new build, complete")
	if tick() {
		t.Fatal("a replacement that changed since the last check counts")
	}
	select {
	case <-x.done:
		t.Fatal("Replaced closed early")
	default:
	}
	if !tick() {
		t.Fatal("a stable replacement does not count")
	}
	<-x.done
	if !tick() { // closing twice must not panic
		t.Fatal("the replacement stopped counting")
	}
}
