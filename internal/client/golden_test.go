package client_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/vibe-science/vibe/internal/client"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files")

// clientCase is testdata/clients/<client>/<case>.in.json: the hook (as
// named after "vibe-"), project files, and the client's raw event, with
// $PROJECT standing for a temporary project folder.
type clientCase struct {
	Hook  string            `json:"hook"`
	Files map[string]string `json:"files"`
	Event json.RawMessage   `json:"event"`
}

type clientOut struct {
	Exit   int             `json:"exit"`
	Stdout json.RawMessage `json:"stdout,omitempty"`
	Stderr string          `json:"stderr,omitempty"`
	// Rows are what the event left in the database: sessions, spine
	// entries (with their tool names) and advisories.
	Rows map[string]any `json:"rows,omitempty"`
}

func TestClientGoldenReplies(t *testing.T) {
	for _, name := range []string{client.Codex, client.Gemini} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "clients", name, "*.in.json"))
		if len(files) == 0 {
			t.Errorf("no cases for %s", name)
		}
		for _, in := range files {
			t.Run(name+"/"+strings.TrimSuffix(filepath.Base(in), ".in.json"), func(t *testing.T) {
				got := runClientCase(t, name, in)
				b, err := verdict.Canonical(got)
				if err != nil {
					t.Fatal(err)
				}
				golden := strings.TrimSuffix(in, ".in.json") + ".golden.json"
				if *update {
					var pretty bytes.Buffer
					json.Indent(&pretty, b, "", "  ")
					os.WriteFile(golden, append(pretty.Bytes(), '\n'), 0o644)
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update)", err)
				}
				var w any
				json.Unmarshal(want, &w)
				wb, _ := verdict.Canonical(w)
				if string(wb) != string(b) {
					t.Errorf("got  %s\nwant %s", b, wb)
				}
			})
		}
	}
}

func runClientCase(t *testing.T, name, in string) clientOut {
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var c clientCase
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	home, proj := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".vibe-science"), 0o755) // a vibe project (project.OptedIn)
	for p, body := range c.Files {
		full := filepath.Join(proj, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := handler.Lookup(c.Hook)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_BUSY_TIMEOUT_MS": "200", "VIBE_WORKER": "off", client.Var: name}
	var stdout, stderr bytes.Buffer
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	env := &hookrun.Env{Stdin: strings.NewReader(strings.ReplaceAll(string(c.Event), "$PROJECT", proj)),
		Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { return now }, Getenv: func(k string) string { return vars[k] }}
	out := clientOut{Exit: client.Main(spec, env)}
	clean := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, home, "$VIBE_HOME"), proj, "$PROJECT")
	}
	if s := strings.TrimSpace(stdout.String()); s != "" {
		if !json.Valid([]byte(s)) || strings.Count(s, "\n") > 0 {
			t.Fatalf("stdout is not one JSON object: %q", s)
		}
		out.Stdout = json.RawMessage(clean(s))
	}
	out.Stderr = clean(stderr.String())
	out.Rows = rows(t, config.Resolve(env.Getenv).DB)
	return out
}

func rows(t *testing.T, path string) map[string]any {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]any{}
	for _, table := range []string{"sessions", "spine_entries", "advisories"} {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out[table] = n
	}
	var clients sql.NullString
	if err := db.QueryRow("SELECT group_concat(coalesce(client, 'claude')) FROM sessions").Scan(&clients); err != nil {
		t.Fatal(err)
	}
	out["session_clients"] = clients.String
	r, err := db.Query("SELECT tool_name || ' ' || tool_use_id FROM spine_entries ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var tools []string
	for r.Next() {
		var s string
		r.Scan(&s)
		tools = append(tools, s)
	}
	if len(tools) > 0 {
		out["spine_tools"] = tools
	}
	return out
}
