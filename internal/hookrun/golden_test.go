package hookrun_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files")

// specs maps testdata/<folder> to the hook it drives.
var specs = map[string]hookrun.Spec{
	"session-start": handler.SessionStart,
	"prompt-submit": handler.PromptSubmit,
	"pre-tool-use":  handler.PreToolUse,
	"post-tool-use": handler.PostToolUse,
	"stop":          handler.Stop,
	"session-end":   handler.SessionEnd,
}

// goldenCase is testdata/<hook>/<case>.in.json: steps run in order against
// one VIBE_HOME. A step is an event object, or a string sent verbatim (for
// malformed input). A step may name another hook with {"hook": "...",
// "event": {...}} so a case can set up history first.
type goldenCase struct {
	Setup string            `json:"setup"`
	Files map[string]string `json:"files"` // project files, relative to $PROJECT
	Steps []json.RawMessage `json:"steps"`
}

type goldenOut struct {
	Replies   []json.RawMessage `json:"replies"`
	ExitCodes []int             `json:"exit_codes"`
	Rows      map[string]int    `json:"rows"`
}

var rowTables = []string{"sessions", "spine_entries", "provenance", "prompt_log", "advisories", "memories", "embed_queue", "claim_events", "gate_checks"}

func TestGoldenReplies(t *testing.T) {
	root := filepath.Join("..", "..", "testdata")
	for folder, spec := range specs {
		files, _ := filepath.Glob(filepath.Join(root, folder, "*.in.json"))
		if len(files) == 0 {
			t.Errorf("no golden cases for %s", folder)
		}
		for _, in := range files {
			name := folder + "/" + strings.TrimSuffix(filepath.Base(in), ".in.json")
			t.Run(name, func(t *testing.T) {
				raw, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				var c goldenCase
				if err := json.Unmarshal(raw, &c); err != nil {
					t.Fatalf("%s: %v", in, err)
				}
				got := runCase(t, spec, c)
				gotJSON, err := verdict.Canonical(got)
				if err != nil {
					t.Fatal(err)
				}
				goldenPath := strings.TrimSuffix(in, ".in.json") + ".golden.json"
				if *update {
					var pretty bytes.Buffer
					json.Indent(&pretty, gotJSON, "", "  ")
					os.WriteFile(goldenPath, append(pretty.Bytes(), '\n'), 0o644)
					return
				}
				want, err := os.ReadFile(goldenPath)
				if err != nil {
					t.Fatalf("missing golden (run with -update): %v", err)
				}
				var wantTree any
				json.Unmarshal(want, &wantTree)
				wantJSON, _ := verdict.Canonical(wantTree)
				if !bytes.Equal(gotJSON, wantJSON) {
					t.Errorf("reply mismatch\n got: %s\nwant: %s", gotJSON, wantJSON)
				}
			})
		}
	}
}

func runCase(t *testing.T, spec hookrun.Spec, c goldenCase) goldenOut {
	home := t.TempDir()
	proj := filepath.Join(t.TempDir(), "project")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	for rel, content := range c.Files {
		p := filepath.Join(proj, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dbPath := filepath.Join(home, "db", "vibe-science.db")
	// The recorded events name folders that do not exist here
	// (/home/researcher/project): enforcement is on everywhere, as if each
	// had run `vibe init` (TestSilentOutsideAProject covers the opt-in).
	env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_BUSY_TIMEOUT_MS": "200", "VIBE_WORKER": "off", "VIBE_ENFORCE": "everywhere"}
	var lock *sql.Tx
	switch c.Setup {
	case "":
	case "corrupt-db":
		os.MkdirAll(filepath.Dir(dbPath), 0o755)
		os.WriteFile(dbPath, bytes.Repeat([]byte("not a database "), 512), 0o644)
	case "db-is-a-folder":
		os.MkdirAll(dbPath, 0o755)
	case "locked-db":
		st, err := store.Open(context.Background(), dbPath, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		db, err := sql.Open("sqlite3", "file:"+dbPath+"?_txlock=exclusive")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if lock, err = db.Begin(); err != nil {
			t.Fatal(err)
		}
		defer lock.Rollback()
	default:
		t.Fatalf("unknown setup %q", c.Setup)
	}
	clock := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	var out goldenOut
	for _, step := range c.Steps {
		s := spec
		step = json.RawMessage(strings.ReplaceAll(string(step), "$PROJECT", proj))
		stdin := []byte(step)
		var str string
		var named struct {
			Hook  string            `json:"hook"`
			Event json.RawMessage   `json:"event"`
			Write map[string]string `json:"write"` // files changed by the tool before PostToolUse runs
		}
		if json.Unmarshal(step, &str) == nil {
			stdin = []byte(str)
		} else if json.Unmarshal(step, &named) == nil && (named.Hook != "" || named.Write != nil) {
			for rel, content := range named.Write {
				p := filepath.Join(proj, filepath.FromSlash(rel))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(content), 0o644)
			}
			if named.Hook != "" {
				s = specs[named.Hook]
			}
			if named.Event != nil {
				stdin = named.Event
			}
		}
		var stdout, stderr bytes.Buffer
		now := clock
		e := &hookrun.Env{Stdin: bytes.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
			Now: func() time.Time { return now }, Getenv: func(k string) string { return env[k] }}
		code := hookrun.Main(s, e)
		clock = clock.Add(time.Second)
		if s.Name != spec.Name {
			continue // set-up steps of another hook are not part of the golden output
		}
		out.ExitCodes = append(out.ExitCodes, code)
		reply := bytes.TrimSpace(stdout.Bytes())
		if len(reply) == 0 {
			out.Replies = append(out.Replies, json.RawMessage("null"))
		} else {
			if !json.Valid(reply) {
				t.Fatalf("stdout is not one JSON object: %q", reply)
			}
			r := strings.ReplaceAll(string(reply), home, "$VIBE_HOME")
			out.Replies = append(out.Replies, json.RawMessage(strings.ReplaceAll(r, proj, "$PROJECT")))
		}
	}
	if lock != nil {
		lock.Rollback()
	}
	out.Rows = map[string]int{}
	if c.Setup == "" || c.Setup == "locked-db" {
		db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro")
		if err == nil {
			defer db.Close()
			tables := append([]string(nil), rowTables...)
			sort.Strings(tables)
			for _, tb := range tables {
				var n int
				if db.QueryRow("SELECT count(*) FROM "+tb).Scan(&n) == nil {
					out.Rows[tb] = n
				}
			}
			assertNoSecrets(t, db)
		}
	}
	return out
}

// assertNoSecrets holds every stored text to the privacy rule: no <private>
// content and no secret from the cases reaches the database.
func assertNoSecrets(t *testing.T, db *sql.DB) {
	t.Helper()
	cols := map[string][]string{
		"spine_entries": {"input_summary", "output_summary"},
		"memories":      {"text", "ref"},
		"sessions":      {"narrative_summary"},
		"advisories":    {"reason", "input"},
	}
	for table, cs := range cols {
		for _, c := range cs {
			for _, secret := range []string{"sk-ant-", "patient 17"} {
				var n int
				db.QueryRow("SELECT count(*) FROM "+table+" WHERE instr("+c+", ?) > 0", secret).Scan(&n)
				if n > 0 {
					t.Errorf("%s.%s stores %q", table, c, secret)
				}
			}
		}
	}
}
