package worker

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExeWatchSeesAReplacedBinary: the same file never counts; a new file
// at the path counts once it is seen unchanged at two checks (the first
// asks for another look: settling); a missing file (mid-rebuild) does not
// count.
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
	x := newExeWatch(bin)
	x.start()
	settles := false
	tick := func() bool { r, s := x.check(); settles = s; return r }
	if first, second := tick(), tick(); first || second || settles {
		t.Fatal("the original file counts as replaced")
	}
	os.Remove(bin)
	if tick() || settles {
		t.Fatal("a missing file counts as replaced")
	}
	write("new build, half written")
	if tick() || !settles {
		t.Fatal("a replacement counts at its first sighting, or asks for no second look")
	}
	write("new build, complete")
	if tick() || !settles {
		t.Fatal("a replacement that changed since the last check counts")
	}
	select {
	case <-x.done:
		t.Fatal("Replaced closed early")
	default:
	}
	if !tick() || settles {
		t.Fatal("a stable replacement does not count")
	}
	<-x.done
	if !tick() { // closing twice must not panic
		t.Fatal("the replacement stopped counting")
	}
}
