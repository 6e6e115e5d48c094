package corpus_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/root"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/privacy/corpus"
	"github.com/vibe-science/vibe/internal/privacy/shapes"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/scaffold"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/viewer"
)

// secret is one text a session sends vibe and the part of it that must not
// be stored or shown.
type secret struct {
	name, text, secret string
}

// secrets are one sample of every rule family of gitleaks' corpus (as
// gitleaks wrote it, or in one of corpus.Forms' forms, in turn) and the
// project's own shapes (private tags, command-line passwords).
func secrets(t *testing.T) []secret {
	samples, err := corpus.Gitleaks()
	if err != nil {
		t.Fatal(err)
	}
	var out []secret
	seen := map[string]bool{}
	for _, s := range samples {
		if seen[s.Rule] {
			continue
		}
		seen[s.Rule] = true
		forms := corpus.Forms(s)
		p := forms[len(out)%len(forms)]
		out = append(out, secret{s.Rule + " (" + p.Form + ")", p.Text, p.Secret})
	}
	for _, s := range shapes.All() {
		out = append(out, secret{s.Name, s.Text, s.Secret})
	}
	return out
}

// rig replays a session through the real hook handlers in-process, and the
// CLI through its real command tree.
type rig struct {
	t       *testing.T
	home    string
	project string
	env     map[string]string
	now     time.Time
}

// newRig is a git project after `vibe init` and a VIBE_HOME, the worker
// off (the handlers run in the test, as vibe-hook runs them).
func newRig(t *testing.T) *rig {
	home := t.TempDir()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(dir, "study")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	r := &rig{t: t, home: home, project: proj, now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC),
		env: map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}}
	if _, err := scaffold.Init(project.Project{Root: proj, Git: true}, scaffold.Options{RQ: "RQ-001", Domain: "generic", Now: r.now}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) hook(spec hookrun.Spec, ev map[string]any) {
	r.t.Helper()
	ev["session_id"] = "leak-1"
	ev["cwd"] = r.project
	ev["transcript_path"] = filepath.Join(r.home, "t.jsonl")
	raw, _ := json.Marshal(ev)
	var out, errb bytes.Buffer
	e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &errb,
		Now: func() time.Time { return r.now }, Getenv: func(k string) string { return r.env[k] }}
	if code := hookrun.Main(spec, e); code != 0 {
		r.t.Fatalf("%s exit %d: %s %s", spec.Name, code, out.String(), errb.String())
	}
}

// vibe runs the CLI and returns its stdout.
func (r *rig) vibe(args ...string) string {
	r.t.Helper()
	var out, errb bytes.Buffer
	f := &cli.Factory{IO: cli.IO{In: &bytes.Buffer{}, Out: &out, ErrOut: &errb},
		Now: func() time.Time { return r.now }, Getenv: func(k string) string { return r.env[k] }}
	defer f.Close()
	if code := root.Main(args, f); code != 0 {
		r.t.Fatalf("vibe %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// TestNoSecretIsStoredOrShown places a secret of every rule family of
// gitleaks' corpus, and each of the project's shapes, in a command line, a
// command's output, a written file, an edited file, a failed call's error,
// a prompt and a memory (`vibe memory add`), through the real handlers and
// the real CLI, then reads the bytes of everything vibe keeps or shows:
// every file under VIBE_HOME (the database, its WAL, the logs, the spool),
// every file vibe wrote in the project's .vibe-science/ (STATE.md,
// SPINE.md, the pickup note, RECORD.md), `vibe spine --json`, `vibe memory
// export` and every page of the viewer. No secret may be in any of them,
// and each call must have been recorded (its mark is there), or the test
// would prove nothing.
func TestNoSecretIsStoredOrShown(t *testing.T) {
	r := newRig(t)
	home, proj, dir := r.home, r.project, filepath.Dir(r.project)
	all := secrets(t)
	if len(all) < 250 {
		t.Fatalf("%d secrets", len(all))
	}
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	for i, s := range all {
		r.now = r.now.Add(time.Second)
		mark := fmt.Sprintf("mark%04d", i)
		id := "toolu_" + mark
		cmd := "python train.py --run " + mark + " " + s.text
		r.hook(handler.PreToolUse, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id + "b",
			"tool_input": map[string]any{"command": cmd}})
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id + "b",
			"tool_input":    map[string]any{"command": cmd},
			"tool_response": map[string]any{"stdout": "run " + mark + " done\n" + s.text + "\n", "stderr": "", "interrupted": false}})

		file := filepath.Join(proj, "src", mark+".py")
		os.MkdirAll(filepath.Dir(file), 0o755)
		content := "# " + mark + "\n" + s.text + "\n"
		os.WriteFile(file, []byte(content), 0o644)
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": id + "w",
			"tool_input":    map[string]any{"file_path": file, "content": content},
			"tool_response": map[string]any{"type": "create", "filePath": file, "content": content}})
		edited := "# " + mark + " edited\n" + s.text + "\n"
		os.WriteFile(file, []byte(strings.Replace(content, "# "+mark+"\n", edited, 1)), 0o644)
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_use_id": id + "e",
			"tool_input":    map[string]any{"file_path": file, "old_string": "# " + mark + "\n", "new_string": edited},
			"tool_response": map[string]any{"filePath": file, "oldString": "# " + mark + "\n", "newString": edited}})

		fail := "python fetch.py --run " + mark
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id + "f",
			"tool_input": map[string]any{"command": fail}, "error": "Exit code 1\nrun " + mark + ": " + s.text})
		// The same, the secret where vibe cuts what it keeps: a failed
		// command's first 120 characters (its mistake's target), an
		// error's first 300, a written file's first 4,096.
		fail = straddle("python fetch.py --run "+mark, 120, s)
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id + "g",
			"tool_input": map[string]any{"command": fail}, "error": straddle("Exit code 1\nrun "+mark, 300, s)})
		content = straddle("# "+mark+"\n", 4096, s) + "\n"
		os.WriteFile(file, []byte(content), 0o644)
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": id + "x",
			"tool_input":    map[string]any{"file_path": file, "content": content},
			"tool_response": map[string]any{"type": "update", "filePath": file, "content": content}})

		r.hook(handler.PromptSubmit, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "for " + mark + " use " + s.text})
		r.vibe("memory", "add", "--project", proj, "note "+mark+": "+s.text)
	}
	r.hook(handler.Stop, map[string]any{"hook_event_name": "Stop", "last_assistant_message": "done: " + all[0].text})
	r.hook(handler.SessionEnd, map[string]any{"hook_event_name": "SessionEnd", "reason": "other"})

	shown := map[string]string{}
	shown["vibe export"] = r.vibe("export", "--project", proj, "--output", "-")
	r.vibe("export", "--project", proj) // .vibe-science/RECORD.md
	shown["vibe spine --json"] = r.vibe("spine", "--project", proj, "--json", "--limit", "100000")
	shown["vibe memory export"] = r.vibe("memory", "export", "--project", proj, "--json")
	for path, body := range viewerPages(t, home, proj) {
		shown["viewer "+path] = body
	}
	files := map[string][]byte{}
	for _, d := range []string{home, filepath.Join(proj, ".vibe-science")} {
		filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				files[p] = b
			}
			return nil
		})
	}
	for _, want := range []string{"vibe-science.db", "SPINE.md", "RECORD.md", "STATE.md"} {
		found := false
		for p := range files {
			found = found || filepath.Base(p) == want
		}
		if !found {
			t.Errorf("no %s was written, so this proves less than it says", want)
		}
	}
	var everything bytes.Buffer
	for _, b := range files {
		everything.Write(b)
	}
	for _, b := range shown {
		everything.WriteString(b)
	}
	leaks := 0
	for i, s := range all {
		mark := fmt.Sprintf("mark%04d", i)
		if !bytes.Contains(everything.Bytes(), []byte(mark)) {
			t.Errorf("%s: nothing of %s was recorded, so this proves nothing", s.name, mark)
		}
		for _, piece := range pieces(s.secret) {
			for p, b := range files {
				if bytes.Contains(b, []byte(piece)) {
					leaks++
					t.Errorf("%s: %q of %q is in %s%s", s.name, piece, s.secret, strings.TrimPrefix(p, dir), where(t, home, piece))
				}
			}
			for where, b := range shown {
				if strings.Contains(b, piece) {
					leaks++
					t.Errorf("%s: %q of %q is shown by %s", s.name, piece, s.secret, where)
				}
			}
		}
	}
	t.Logf("%d secrets, %d files, %d outputs and pages, %d leaks", len(all), len(files), len(shown), leaks)
}

// pieces are the parts of a secret none of which may be kept: the whole
// secret, and of a longer one every 16 bytes from every eighth (a secret
// cut where vibe cuts a text leaves such a piece).
func pieces(secret string) []string {
	out := []string{secret}
	if len(secret) < 24 {
		return out
	}
	for i := 0; i+16 <= len(secret); i += 8 {
		out = append(out, secret[i:i+16])
	}
	return append(out, secret[len(secret)-16:])
}

// TestRecordsStoredBeforeAreNotShown: texts an older vibe stored with a
// secret in them (written here into the database around the scrub) are
// not shown by anything that shows them: `vibe export` (RECORD.md and
// stdout), SessionEnd's SPINE.md, STATE.md and pickup note, `vibe spine`
// (table and --json), `vibe sessions show`, `vibe memory export` (lines and
// --json) and every page of the viewer. The render and export chokepoints
// scrub them, before and whether or not the resident process's rescan
// (store.RescanSecrets) has run.
func TestRecordsStoredBeforeAreNotShown(t *testing.T) {
	r := newRig(t)
	home, proj := r.home, r.project
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	for i := 0; i < 3; i++ {
		cmd := fmt.Sprintf("python train.py --run old%d", i)
		r.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_old%d", i),
			"tool_input": map[string]any{"command": cmd}, "tool_response": map[string]any{"stdout": "done", "stderr": ""}})
	}
	r.vibe("memory", "add", "--project", proj, "an old note")
	r.hook(handler.Stop, map[string]any{"hook_event_name": "Stop", "last_assistant_message": "done"})
	const tok = "ghp_Q9xv2LmP7sR4tW8zK3nB6cJ1dF5gH0aE2iU4"
	const pw = "Hunter2Secret99"
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "db", "vibe-science.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"UPDATE spine_entries SET input_summary = '$ GITHUB_TOKEN=" + tok + " git push', output_summary = 'password: " + pw + "'",
		"UPDATE memories SET text = 'old note: DB_PASSWORD=" + pw + " token " + tok + "'",
		"UPDATE sessions SET narrative_summary = 'pushed with " + tok + "'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	r.hook(handler.SessionEnd, map[string]any{"hook_event_name": "SessionEnd", "reason": "other"})
	shown := map[string]string{
		"vibe export":             r.vibe("export", "--project", proj, "--output", "-"),
		"vibe spine":              r.vibe("spine", "--project", proj),
		"vibe spine --json":       r.vibe("spine", "--project", proj, "--json"),
		"vibe sessions show":      r.vibe("sessions", "show", "leak-1"),
		"vibe sessions show json": r.vibe("sessions", "show", "leak-1", "--json"),
		"vibe memory export":      r.vibe("memory", "export", "--project", proj),
		"vibe memory export json": r.vibe("memory", "export", "--project", proj, "--json"),
	}
	r.vibe("export", "--project", proj)
	for path, body := range viewerPages(t, home, proj) {
		shown["viewer "+path] = body
	}
	for _, f := range []string{"RECORD.md", "SPINE.md", "STATE.md", "project_pickup.md"} {
		b, err := os.ReadFile(filepath.Join(proj, ".vibe-science", f))
		if err != nil {
			t.Fatal(err)
		}
		shown[f] = string(b)
	}
	for where, body := range shown {
		for _, sec := range []string{tok, pw} {
			if strings.Contains(body, sec) {
				t.Errorf("%s shows %q", where, sec)
			}
		}
	}
	for _, where := range []string{"vibe export", "vibe spine --json", "SPINE.md", "viewer /spine", "vibe memory export"} {
		if !strings.Contains(shown[where], "[REDACTED]") {
			t.Errorf("%s shows no redacted record, so this proves nothing:\n%s", where, shown[where])
		}
	}
}

// where names the table and column of the database that hold piece.
func where(t *testing.T, home, piece string) string {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "db", "vibe-science.db")+"?mode=ro")
	if err != nil {
		return ""
	}
	defer db.Close()
	rows, err := db.Query("SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'")
	if err != nil {
		return ""
	}
	var cols [][2]string
	for rows.Next() {
		var tb, c string
		rows.Scan(&tb, &c)
		cols = append(cols, [2]string{tb, c})
	}
	rows.Close()
	var out []string
	for _, c := range cols {
		var n int
		if db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %q WHERE instr(CAST(%q AS TEXT), ?) > 0", c[0], c[1]), piece).Scan(&n) == nil && n > 0 {
			out = append(out, c[0]+"."+c[1])
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, ", ") + ")"
}

// straddle is prefix, option words, then s's text placed so that its
// secret starts 24 bytes before cut: a cut there leaves a piece of it.
func straddle(prefix string, cut int, s secret) string {
	n := cut - 24 - max(0, strings.Index(s.text, s.secret))
	for len(prefix) < n-3 {
		prefix += " -v"
	}
	return prefix + strings.Repeat(" ", max(1, n-len(prefix))) + s.text
}

// viewerPages renders every page of `vibe ui` for the project.
func viewerPages(t *testing.T, home, proj string) map[string]string {
	st, err := store.Open(context.Background(), filepath.Join(home, "db", "vibe-science.db"), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := viewer.New(viewer.Config{Store: st, Project: proj, Token: "tok", Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range []string{"/", "/sessions", "/session?id=leak-1", "/spine", "/claims", "/gates", "/calibration",
		"/literature", "/seeds"} {
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		req := httptest.NewRequest(http.MethodGet, p+sep+"t=tok", nil)
		req.RemoteAddr, req.Host = "127.0.0.1:50000", "127.0.0.1:8080"
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, req)
		b, _ := io.ReadAll(w.Result().Body)
		if w.Code != http.StatusOK {
			t.Errorf("viewer %s: %d %s", p, w.Code, b)
		}
		out[p] = string(b)
	}
	return out
}
