package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"unicode"
)

// HookTrust is what Codex says of one of vibe's hooks.
type HookTrust struct {
	// Event is the hook's event as hooks.json names it (PreToolUse).
	Event string
	// Status is Codex's trust status: trusted, untrusted, modified (trusted
	// once, changed since) or managed.
	Status string
	// Enabled is false when the person switched the hook off in /hooks.
	Enabled bool
}

// CodexTrust asks Codex which of vibe's hooks in settings (its hooks.json)
// it trusts. Codex runs a user hook only once the person has trusted it (a
// hash of the hook kept in config.toml under hooks.state."<file>:<event>:
// <group>:<hook>".trusted_hash, written by the TUI's /hooks); the hash is
// Codex's own, so Codex is asked: `codex app-server` answers the JSON-RPC
// request hooks/list with each hook's trustStatus. codex is the program;
// env its environment (HOME, CODEX_HOME say whose configuration); cwd is
// where Codex looks for project hooks (vibe's are the user's, listed
// wherever).
func CodexTrust(ctx context.Context, codex string, env []string, settings, cwd string) ([]HookTrust, error) {
	srv, err := startAppServer(ctx, codex, env, cwd)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	raw, err := srv.Call(2, "hooks/list", map[string]any{"cwds": []string{cwd}})
	if err != nil {
		return nil, err
	}
	return vibeHooks(raw, settings)
}

// appServer is a running `codex app-server`, initialized.
type appServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	rpc   jsonRPC
}

// startAppServer starts `codex app-server` in cwd with env and does the
// protocol's handshake (initialize, then the initialized notification).
func startAppServer(ctx context.Context, codex string, env []string, cwd string) (*appServer, error) {
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Env, cmd.Dir = env, cwd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	s := &appServer{cmd: cmd, stdin: stdin, rpc: jsonRPC{w: stdin, r: bufio.NewReader(stdout)}}
	if _, err := s.Call(1, "initialize", map[string]any{"clientInfo": map[string]string{"name": "vibe", "version": "1"}}); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.rpc.send(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Call sends one request and returns its result.
func (s *appServer) Call(id int, method string, params any) (json.RawMessage, error) {
	return s.rpc.call(id, method, params)
}

// Close ends the server.
func (s *appServer) Close() {
	s.stdin.Close()
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// vibeHooks picks vibe's hooks in settings out of a hooks/list result.
func vibeHooks(result json.RawMessage, settings string) ([]HookTrust, error) {
	var list struct {
		Data []struct {
			Hooks []struct {
				EventName   string `json:"eventName"`
				Command     string `json:"command"`
				SourcePath  string `json:"sourcePath"`
				TrustStatus string `json:"trustStatus"`
				Enabled     bool   `json:"enabled"`
			} `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		return nil, fmt.Errorf("read codex's hooks/list answer: %w", err)
	}
	var out []HookTrust
	seen := map[string]bool{}
	for _, d := range list.Data {
		for _, h := range d.Hooks {
			if h.SourcePath != settings || !ours(h.Command, Codex) || seen[h.EventName+h.Command] {
				continue
			}
			seen[h.EventName+h.Command] = true
			r := []rune(h.EventName)
			if len(r) > 0 {
				r[0] = unicode.ToUpper(r[0])
			}
			out = append(out, HookTrust{Event: string(r), Status: h.TrustStatus, Enabled: h.Enabled})
		}
	}
	return out, nil
}

// TrustProblem says what keeps Codex from running vibe's hooks, with the
// fix; "" when Codex trusts and runs every hook vibe installs.
func TrustProblem(settings string, hooks []HookTrust) (problem, fix string) {
	byStatus := map[string][]string{}
	var off []string
	listed := map[string]bool{}
	for _, h := range hooks {
		listed[h.Event] = true
		if h.Status != "trusted" && h.Status != "managed" {
			byStatus[h.Status] = append(byStatus[h.Status], h.Event)
		}
		if !h.Enabled {
			off = append(off, h.Event)
		}
	}
	var missing []string
	for _, e := range registered(Codex) {
		if !listed[e.Name] {
			missing = append(missing, e.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("Codex does not list vibe's %s hooks from %s", strings.Join(missing, ", "), settings),
			"run `vibe setup --client codex`, then open `codex`, type /hooks and trust vibe's hooks"
	}
	var parts []string
	statuses := make([]string, 0, len(byStatus))
	for s := range byStatus {
		statuses = append(statuses, s)
	}
	sort.Strings(statuses)
	for _, s := range statuses {
		what := s
		if s == "modified" {
			what = "changed since trusted"
		}
		parts = append(parts, what+": "+strings.Join(byStatus[s], ", "))
	}
	if len(off) > 0 {
		parts = append(parts, "switched off: "+strings.Join(off, ", "))
	}
	if len(parts) == 0 {
		return "", ""
	}
	return fmt.Sprintf("Codex will not run %d of vibe's %d hooks (%s): it runs no untrusted hook, so nothing the agent does in Codex is judged",
			countNot(hooks), len(hooks), strings.Join(parts, "; ")),
		"open `codex`, type /hooks, review vibe's hooks and trust (and enable) them; `vibe setup --client codex` rewriting them asks for the trust again"
}

func countNot(hooks []HookTrust) int {
	n := 0
	for _, h := range hooks {
		if (h.Status != "trusted" && h.Status != "managed") || !h.Enabled {
			n++
		}
	}
	return n
}

// jsonRPC speaks newline-delimited JSON-RPC 2.0, as codex app-server does
// on its standard input and output.
type jsonRPC struct {
	w io.Writer
	r *bufio.Reader
}

func (c jsonRPC) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends a request and returns its result, skipping the notifications,
// the server's own requests and other answers that come before it.
func (c jsonRPC) call(id int, method string, params any) (json.RawMessage, error) {
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("codex app-server %s: %w", method, err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("codex app-server closed its output before answering %s", method)
			}
			return nil, fmt.Errorf("codex app-server %s: %w", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.Method != "" || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("codex app-server %s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}
