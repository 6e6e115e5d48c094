package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vibe-science/vibe/internal/hook"
)

// codexEvents passes Codex's events through (they are Claude-shaped: same
// names, same fields, tools Bash and mcp__server__tool) except apply_patch,
// which becomes one Write, Edit or deletion per file it touches.
func codexEvents(data []byte) (string, [][]byte, error) {
	ev, err := hook.Decode(data)
	if err != nil {
		return "", nil, err
	}
	data = withClient(data, Codex)
	if ev.ToolName != "apply_patch" || (ev.HookEventName != hook.PreToolUse && ev.HookEventName != hook.PostToolUse) {
		return ev.HookEventName, [][]byte{data}, nil
	}
	evs, err := patchEvents(data, ev)
	return ev.HookEventName, evs, err
}

// withClient adds the client's name to a decoded event object (the first
// byte after leading space is its '{'), for the session row.
func withClient(data []byte, name string) []byte {
	data = bytes.TrimSpace(data)
	return append([]byte(`{"vibe_client":"`+name+`",`), data[1:]...)
}

// patchText finds the patch in apply_patch's input: {"command": …} in
// Codex 0.169, a bare string for the freeform tool, or {"input"|"patch": …}.
func patchText(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s, nil
	}
	var in struct{ Command, Input, Patch string }
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", fmt.Errorf("apply_patch input: %w", err)
	}
	for _, t := range []string{in.Command, in.Input, in.Patch} {
		if t != "" {
			return t, nil
		}
	}
	return "", errors.New("apply_patch input holds no patch (looked for command, input and patch)")
}

// patchEvents is one Claude-shaped event per file of the patch: an Add is a
// Write of its content; an Update a Write of the file as it will be (when
// the hunks apply to what is on disk now, as before the call) or else an
// Edit per hunk, so permissions still judge the path; a Delete, and the
// source of a Move, a `rm` of the file, which the shell analyser judges as
// a write. Each carries the call's tool_use_id, numbered after the first.
func patchEvents(data []byte, ev *hook.Event) ([][]byte, error) {
	text, err := patchText(ev.ToolInput)
	if err != nil {
		return nil, err
	}
	changes, err := ParsePatch(text)
	if err != nil {
		return nil, err
	}
	var base map[string]json.RawMessage
	if err := json.Unmarshal(data, &base); err != nil {
		return nil, err
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) || ev.Cwd == "" {
			return filepath.Clean(p)
		}
		return filepath.Join(ev.Cwd, p)
	}
	var out [][]byte
	add := func(tool string, input any) error {
		m := make(map[string]json.RawMessage, len(base))
		for k, v := range base {
			m[k] = v
		}
		id := ev.ToolUseID
		if n := len(out); n > 0 && id != "" {
			id += "#" + strconv.Itoa(n+1)
		}
		for k, v := range map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": id} {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			m[k] = b
		}
		b, err := json.Marshal(m)
		out = append(out, b)
		return err
	}
	for _, c := range changes {
		path := abs(c.Path)
		var err error
		switch c.Op {
		case PatchAdd:
			err = add("Write", map[string]string{"file_path": path, "content": c.Content})
		case PatchDelete:
			err = add("Bash", map[string]string{"command": "rm -- " + shellQuote(path)})
		case PatchUpdate:
			dest := path
			if c.MoveTo != "" {
				dest = abs(c.MoveTo)
				if err = add("Bash", map[string]string{"command": "rm -- " + shellQuote(path)}); err != nil {
					return nil, err
				}
			}
			err = add(updateInput(ev.HookEventName, c, path, dest))
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updateInput is the judged form of an Update: before the call, the whole
// new file when the hunks apply to the file on disk; otherwise (and after
// the call, when the file already changed) one edit per hunk.
func updateInput(event string, c FileChange, src, dest string) (string, any) {
	if event == hook.PreToolUse {
		if old, err := os.ReadFile(src); err == nil {
			if content, err := c.Apply(string(old)); err == nil {
				return "Write", map[string]string{"file_path": dest, "content": content}
			}
		}
	}
	type edit struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	}
	var edits []edit
	for _, ch := range c.Chunks {
		edits = append(edits, edit{strings.Join(ch.Old, "\n"), strings.Join(ch.New, "\n")})
	}
	if len(edits) == 0 { // a pure move: the destination gets the source's content
		if old, err := os.ReadFile(src); err == nil && event == hook.PreToolUse {
			return "Write", map[string]string{"file_path": dest, "content": string(old)}
		}
		return "Write", map[string]string{"file_path": dest}
	}
	return "MultiEdit", map[string]any{"file_path": dest, "edits": edits}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// codexReply is Codex's hook output, field for field from its schemas
// (codex-rs hooks/schema/generated, embedded in the 0.169 binary). Codex
// rejects the whole output as invalid when a field is unknown to the event,
// and on PreToolUse also when it is merely unsupported (continue:false,
// stopReason, suppressOutput, permissionDecision allow or ask, decision
// approve): an invalid output is a failed hook, and a failed hook lets the
// tool run. So each event gets only the fields it accepts.
type codexReply struct {
	Decision      string         `json:"decision,omitempty"`
	Reason        string         `json:"reason,omitempty"`
	SystemMessage string         `json:"systemMessage,omitempty"`
	HookSpecific  *codexSpecific `json:"hookSpecificOutput,omitempty"`
}

type codexSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// codexAsk explains a refusal that Claude Code would have asked the user
// about: Codex does not support "ask" from a hook.
const codexAsk = "This call needs the user's approval, and Codex hooks cannot ask for it, so vibe refused it. Ask the user to approve it in the conversation or to run it themselves: "

func codexRender(event string, r *hook.Reply, w io.Writer) int {
	out := codexReply{SystemMessage: hook.Cap(r.SystemMessage)}
	var ctx string
	if r.HookSpecific != nil {
		ctx = hook.Cap(r.HookSpecific.AdditionalContext)
	}
	switch event {
	case hook.PreToolUse:
		s := &codexSpecific{HookEventName: event, AdditionalContext: ctx}
		if h := r.HookSpecific; h != nil {
			switch h.PermissionDecision {
			case "deny":
				s.PermissionDecision, s.PermissionDecisionReason = "deny", hook.Cap(nonEmpty(h.PermissionDecisionReason))
			case "ask":
				s.PermissionDecision, s.PermissionDecisionReason = "deny", hook.Cap(codexAsk+nonEmpty(h.PermissionDecisionReason))
			}
		}
		if s.PermissionDecision != "" || s.AdditionalContext != "" {
			out.HookSpecific = s
		}
	case hook.PostToolUse, hook.SessionStart, hook.UserPromptSubmit:
		if r.Decision != "" && event == hook.PostToolUse {
			out.Decision, out.Reason = "block", hook.Cap(nonEmpty(r.Reason))
		}
		if ctx != "" {
			out.HookSpecific = &codexSpecific{HookEventName: event, AdditionalContext: ctx}
		}
	case hook.Stop, hook.SubagentStop:
		if r.Decision != "" {
			out.Decision, out.Reason = "block", hook.Cap(nonEmpty(r.Reason))
		}
		out.SystemMessage = joinNonEmpty(out.SystemMessage, ctx)
	case hook.SessionEnd:
		// Codex 0.169 ships no output schema for SessionEnd: say nothing.
		return 0
	default: // PreCompact and the rest accept systemMessage
		out.SystemMessage = joinNonEmpty(out.SystemMessage, ctx)
	}
	return write(w, out, out == codexReply{})
}

func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "vibe refused this call without a stated reason; run `vibe doctor`."
	}
	return s
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
