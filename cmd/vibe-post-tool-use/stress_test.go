package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vibe-science/vibe/internal/store"
)

// TestParallelHookProcesses runs 8 hook processes in parallel, 500 events
// each (50 with -short), against one database, with no worker (each event
// runs the handler binary, every process opening the database itself): every process must exit 0
// without a systemMessage and every event must leave its spine and
// provenance row.
func TestParallelHookProcesses(t *testing.T) {
	workers, perWorker := 8, 500
	if testing.Short() {
		perWorker = 50
	}
	dir := t.TempDir()
	// The hook binary and the handler binary it runs when no worker answers.
	bin := filepath.Join(dir, "vibe-post-tool-use")
	build := exec.Command("go", "build", "-o", dir+"/", ".", "../vibe-hook")
	build.Env = append(os.Environ(), "GOFLAGS=-tags=sqlite_fts5")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	project := filepath.Join(dir, "project")
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	target := filepath.Join(project, "notes.txt")
	os.WriteFile(target, []byte("x\n"), 0o644)
	env := append(os.Environ(), "VIBE_HOME="+home, "VIBE_ENFORCE=everywhere")

	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				ev := fmt.Sprintf(`{"session_id":"stress-%d","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Write",`+
					`"tool_input":{"file_path":%q,"content":"x\n"},"tool_response":{"type":"update"},"tool_use_id":"toolu_%d_%d","duration_ms":3}`,
					w%3, project, target, w, i)
				cmd := exec.Command(bin)
				cmd.Env = env
				cmd.Stdin = strings.NewReader(ev)
				var out bytes.Buffer
				cmd.Stdout = &out
				err := cmd.Run()
				if err != nil || strings.Contains(out.String(), "systemMessage") {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("worker %d event %d: %v %s", w, i, err, out.String()))
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d hook runs failed; first: %s", len(failures), workers*perWorker, failures[0])
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "db", "vibe-science.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stats, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := workers * perWorker
	if stats.Spine != want || stats.Provenance != want || stats.Sessions != 3 {
		t.Fatalf("rows: spine %d, provenance %d, sessions %d; want %d, %d, 3 (lost rows)", stats.Spine, stats.Provenance, stats.Sessions, want, want)
	}
}
