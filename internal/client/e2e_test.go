//go:build e2e

package client_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/client"
	"github.com/vibe-science/vibe/internal/config"
)

// step is one scripted model turn: a tool call or a final message.
type step struct {
	Tool  string         // codex: apply_patch (freeform) or exec_command; gemini: a function name
	Input string         // codex apply_patch patch
	Args  map[string]any // function arguments
	Say   string
}

// modelMock is a loopback stand-in for the client's model API (OpenAI
// Responses for Codex, Gemini's streamGenerateContent for Gemini) that
// plays a script and keeps every request body.
type modelMock struct {
	client string
	script []step
	mu     sync.Mutex
	n      int
	bodies []string
	srv    *http.Server
	url    string
}

func newMock(t *testing.T, name string, script []step) *modelMock {
	m := &modelMock{client: name, script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.url = "http://" + ln.Addr().String()
	m.srv = &http.Server{Handler: m}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

func (m *modelMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if m.client == client.Gemini && !strings.Contains(r.URL.Path, "streamGenerateContent") {
		w.Header().Set("content-type", "application/json")
		fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"next_speaker\":\"user\",\"reasoning\":\"x\"}"}]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":1}}`)
		return
	}
	m.mu.Lock()
	n := m.n
	m.n++
	m.bodies = append(m.bodies, string(body))
	m.mu.Unlock()
	s := step{Say: "done"}
	if n < len(m.script) {
		s = m.script[n]
	}
	w.Header().Set("content-type", "text/event-stream")
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if m.client == client.Gemini {
		part := map[string]any{"text": s.Say}
		if s.Tool != "" {
			part = map[string]any{"functionCall": map[string]any{"name": s.Tool, "args": s.Args}}
		}
		fmt.Fprintf(w, "data: %s\r\n\r\n", enc(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}))
		return
	}
	id := fmt.Sprintf("resp_%d", n)
	var item map[string]any
	switch {
	case s.Tool == "apply_patch":
		item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": fmt.Sprintf("call_%d", n), "name": s.Tool, "input": s.Input}
	case s.Tool != "":
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": fmt.Sprintf("call_%d", n), "name": s.Tool, "arguments": enc(s.Args)}
	default:
		item = map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id,
			"content": []any{map[string]any{"type": "output_text", "text": s.Say, "annotations": []any{}}}}
	}
	for _, ev := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}},
	} {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], enc(ev))
	}
}

// requests returns the bodies of the scripted (main-loop) requests.
func (m *modelMock) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bodies...)
}

// clientRun is one real client session driven against the mock.
type clientRun struct {
	home, proj, vibeHome string
	out                  string
}

// installClient returns the pinned release of a client (client.Pinned),
// installed under ~/.cache/vibe-e2e/<name>-<version> when missing.
func installClient(t *testing.T, name string) string {
	t.Helper()
	bin, err := client.InstallPinned(filepath.Join(os.Getenv("HOME"), ".cache", "vibe-e2e"), name, client.Pinned[name])
	if err != nil {
		skipOrFail(t, "cannot install the pinned %s: %v", name, err)
	}
	return bin
}

// runOption changes one real-client run.
type runOption struct {
	// trusted runs Codex without --dangerously-bypass-hook-trust: its hooks
	// run only if before got them trusted.
	trusted bool
	// before runs once vibe's hooks are installed, before the client starts.
	before func(r *clientRun, env []string)
}

func runClient(t *testing.T, name string, files map[string]string, script []step, prompt string, opts ...runOption) (*clientRun, *modelMock) {
	t.Helper()
	bin := installClient(t, name)
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	if _, err := os.Stat(filepath.Join(root, "bin", "vibe-pre-tool-use")); err != nil {
		skipOrFail(t, "run `make build` first: the hook binaries are not in bin/")
	}
	r := &clientRun{home: t.TempDir(), proj: t.TempDir(), vibeHome: t.TempDir()}
	os.MkdirAll(filepath.Join(r.proj, ".vibe-science"), 0o755) // a vibe project (project.OptedIn)
	for p, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(r.proj, p)), 0o755)
		os.WriteFile(filepath.Join(r.proj, p), []byte(body), 0o644)
	}
	m := newMock(t, name, script)
	in, _ := client.Locate(name, r.home)
	os.MkdirAll(filepath.Dir(in.Settings), 0o755)
	env := append(os.Environ(), "HOME="+r.home, "VIBE_HOME="+r.vibeHome, "VIBE_WORKER=off")
	var args []string
	switch name {
	case client.Codex:
		os.WriteFile(filepath.Join(r.home, ".codex", "config.toml"), []byte(fmt.Sprintf(
			"model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"mock\"\nbase_url = \"%s/v1\"\nwire_api = \"responses\"\n", m.url)), 0o644)
		env = append(env, "CODEX_HOME="+filepath.Join(r.home, ".codex"))
		args = []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "-s", "workspace-write", prompt}
		if len(opts) > 0 && opts[0].trusted {
			args = slices.Delete(args, 2, 3)
		}
	case client.Gemini:
		os.WriteFile(in.Settings, []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}}}`), 0o644)
		env = append(env, "GEMINI_API_KEY=offline", "GOOGLE_GEMINI_BASE_URL="+m.url)
		args = []string{"-p", prompt, "--yolo", "-m", "gemini-2.5-pro"}
	}
	skill, err := os.ReadFile(filepath.Join(root, "skill", "vibe", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Apply(root, r.vibeHome, client.Methodology(string(skill)), false); err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		if o.before != nil {
			o.before(r, env)
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.proj, env, strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s did not finish:\n%s", name, out.String())
	}
	r.out = out.String()
	return r, m
}

func (r *clientRun) spine(t *testing.T) []string {
	db, err := sql.Open("sqlite3", config.Resolve(func(k string) string {
		return map[string]string{"VIBE_HOME": r.vibeHome, "HOME": r.home}[k]
	}).DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT e.tool_name || ' ' || coalesce(s.client, 'claude') FROM spine_entries e JOIN sessions s ON s.id = e.session_id ORDER BY e.id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

const findingsJSON = `{"auc": 0.812, "auc_ci": [0.79, 0.83], "n": 1240, "baseline_auc": 0.55}`
const wrongFindings = "The model reached AUC 0.86 (95% CI 0.79-0.83, n = 1240), above the 0.55 baseline."

// TestRealClients drives each pinned client through the same scenario: the
// session start context reaches the model, a gate failure (DQ4) and a
// protected write (the claim ledger through the shell) are refused and the
// model reads why, an allowed write lands in the research spine.
func TestRealClients(t *testing.T) {
	files := map[string]string{
		"RQ-001/04-results/FINDINGS.json": findingsJSON,
		"RQ-001/04-results/FINDINGS.md":   "# Findings\n\nPending.\n",
		".vibe-science/CLAIM-LEDGER.md":   "# Claim ledger\n",
	}
	scripts := map[string][]step{
		client.Codex: {
			{Tool: "apply_patch", Input: "*** Begin Patch\n*** Update File: RQ-001/04-results/FINDINGS.md\n@@\n # Findings\n \n-Pending.\n+" + wrongFindings + "\n*** End Patch\n"},
			{Tool: "exec_command", Args: map[string]any{"cmd": "sed -i 's/ledger/LEDGER/' .vibe-science/CLAIM-LEDGER.md"}},
			{Tool: "apply_patch", Input: "*** Begin Patch\n*** Add File: notes/plan.md\n+plan\n*** End Patch\n"},
			{Say: "done"},
		},
		client.Gemini: {
			{Tool: "write_file", Args: map[string]any{"file_path": "RQ-001/04-results/FINDINGS.md", "content": "# Findings\n\n" + wrongFindings + "\n"}},
			{Tool: "run_shell_command", Args: map[string]any{"command": "sed -i 's/ledger/LEDGER/' .vibe-science/CLAIM-LEDGER.md"}},
			{Tool: "write_file", Args: map[string]any{"file_path": "notes/plan.md", "content": "plan\n"}},
			{Say: "done"},
		},
	}
	for _, name := range []string{client.Codex, client.Gemini} {
		t.Run(name, func(t *testing.T) {
			r, m := runClient(t, name, files, scripts[name], "write the findings")
			reqs := m.requests()
			if len(reqs) < 4 {
				t.Fatalf("%d model requests, want 4:\n%s", len(reqs), r.out)
			}
			if os.Getenv("E2E_SHOW") != "" {
				for i, q := range reqs {
					if j := strings.Index(q, "blocked"); j >= 0 {
						t.Logf("request %d: …%.300s", i, q[j:])
					}
				}
			}
			if !strings.Contains(reqs[0], "[VIBE STATE]") {
				t.Errorf("the session start context did not reach the model")
			}
			if !strings.Contains(reqs[0], "# vibe: research that has to survive its own reviewer") {
				t.Errorf("the methodology (%s context file) did not reach the model", name)
			}
			if !strings.Contains(reqs[1], "DQ4 FAIL") || !strings.Contains(reqs[1], "0.86") {
				t.Errorf("the model did not read the DQ4 refusal:\n%.2000s", reqs[1])
			}
			if !strings.Contains(reqs[2], "This command writes .vibe-science/CLAIM-LEDGER.md") {
				t.Errorf("the model did not read the ledger refusal:\n%.2000s", reqs[2])
			}
			if b, _ := os.ReadFile(filepath.Join(r.proj, "RQ-001/04-results/FINDINGS.md")); string(b) != files["RQ-001/04-results/FINDINGS.md"] {
				t.Errorf("FINDINGS.md was written: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(r.proj, ".vibe-science/CLAIM-LEDGER.md")); string(b) != files[".vibe-science/CLAIM-LEDGER.md"] {
				t.Errorf("the ledger was written: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(r.proj, "notes/plan.md")); string(b) != "plan\n" {
				t.Errorf("the allowed write did not land: %q\n%s", b, r.out)
			}
			if got := strings.Join(r.spine(t), ","); got != "Write "+name {
				t.Errorf("spine %q, want the allowed write, in a session of %s", got, name)
			}
		})
	}
}

// skipOrFail skips a real-client test that cannot run here, unless
// VIBE_E2E_REQUIRE is set (CI sets it through `make e2e`): then it fails.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("VIBE_E2E_REQUIRE") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
