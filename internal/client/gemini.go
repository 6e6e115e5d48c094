package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/hook"
)

// geminiEvent is the part of a Gemini CLI hook input vibe reads
// (docs/hooks/reference.md of @google/gemini-cli 0.61).
type geminiEvent struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source"`
	Reason         string          `json:"reason"`
	Prompt         string          `json:"prompt"`
	PromptResponse string          `json:"prompt_response"`
	StopHookActive bool            `json:"stop_hook_active"`
	Trigger        string          `json:"trigger"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	MCPContext     struct {
		ServerName string `json:"server_name"`
	} `json:"mcp_context"`
}

// geminiEvents maps Gemini's events onto Claude Code's (BeforeTool is
// PreToolUse, AfterTool PostToolUse or, with an error, PostToolUseFailure,
// BeforeAgent UserPromptSubmit, AfterAgent Stop, PreCompress PreCompact)
// and its tools onto Claude's (run_shell_command is Bash, write_file Write,
// replace Edit, mcp_server_tool mcp__server__tool).
func geminiEvents(data []byte) (string, [][]byte, error) {
	var g geminiEvent
	if err := json.Unmarshal(data, &g); err != nil {
		return "", nil, fmt.Errorf("decode event: %w", err)
	}
	if g.SessionID == "" || g.HookEventName == "" {
		return "", nil, errors.New("decode event: session_id or hook_event_name is missing")
	}
	ev := hook.Event{SessionID: g.SessionID, TranscriptPath: g.TranscriptPath, Cwd: g.Cwd, Client: Gemini}
	switch g.HookEventName {
	case "SessionStart":
		ev.HookEventName, ev.Source = hook.SessionStart, g.Source
	case "SessionEnd":
		ev.HookEventName, ev.Reason = hook.SessionEnd, g.Reason
	case "BeforeAgent":
		ev.HookEventName, ev.Prompt = hook.UserPromptSubmit, g.Prompt
	case "AfterAgent":
		ev.HookEventName, ev.StopHookActive, ev.LastAssistantMessage = hook.Stop, g.StopHookActive, g.PromptResponse
	case "PreCompress":
		ev.HookEventName, ev.Trigger = hook.PreCompact, g.Trigger
	case "BeforeTool", "AfterTool":
		ev.HookEventName = hook.PreToolUse
		name, input, err := geminiTool(g)
		if err != nil {
			return "", nil, err
		}
		ev.ToolName, ev.ToolInput = name, input
		if g.HookEventName == "AfterTool" {
			ev.HookEventName, ev.ToolResponse = hook.PostToolUse, g.ToolResponse
			var resp struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(g.ToolResponse, &resp) == nil && len(resp.Error) > 0 && string(resp.Error) != "null" {
				ev.HookEventName, ev.Error = hook.PostToolUseFailure, errorText(resp.Error)
			}
		}
	default:
		return "", nil, fmt.Errorf("vibe does not handle Gemini's %s event (check the hooks in settings.json)", g.HookEventName)
	}
	b, err := json.Marshal(ev)
	return ev.HookEventName, [][]byte{b}, err
}

// geminiTool renames a Gemini tool and reshapes its input where Claude's
// differs: relative paths are made absolute against cwd, a shell command
// run in dir_path is prefixed with `cd`, and replace's allow_multiple is
// Edit's replace_all.
func geminiTool(g geminiEvent) (string, json.RawMessage, error) {
	var in map[string]any
	if len(g.ToolInput) > 0 && string(g.ToolInput) != "null" {
		if err := json.Unmarshal(g.ToolInput, &in); err != nil {
			return "", nil, fmt.Errorf("tool_input of %s: %w", g.ToolName, err)
		}
	}
	abs := func(k string) {
		if p, ok := in[k].(string); ok && p != "" && !filepath.IsAbs(p) && g.Cwd != "" {
			in[k] = filepath.Join(g.Cwd, p)
		}
	}
	name := g.ToolName
	switch g.ToolName {
	case "run_shell_command":
		name = "Bash"
		if dir, ok := in["dir_path"].(string); ok && dir != "" {
			if cmd, ok := in["command"].(string); ok {
				in["command"] = "cd " + shellQuote(dir) + " && " + cmd
			}
		}
	case "write_file":
		name = "Write"
		abs("file_path")
	case "replace":
		name = "Edit"
		abs("file_path")
		if m, ok := in["allow_multiple"].(bool); ok {
			in["replace_all"] = m
		}
	case "read_file":
		name = "Read"
		abs("file_path")
	default:
		if rest, ok := strings.CutPrefix(g.ToolName, "mcp_"); ok && !strings.HasPrefix(rest, "_") {
			server := g.MCPContext.ServerName
			if tool, ok := strings.CutPrefix(rest, server+"_"); ok && server != "" {
				name = "mcp__" + server + "__" + tool
			} else {
				name = "mcp__" + rest
			}
		}
	}
	if in == nil {
		return name, g.ToolInput, nil
	}
	b, err := json.Marshal(in)
	return name, b, err
}

func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var e struct{ Message string }
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		return e.Message
	}
	return string(raw)
}

// geminiReply is Gemini's hook output. Gemini reads decision "deny" (or
// "block") and reason; a Claude-shaped hookSpecificOutput.permissionDecision
// means nothing to it and the tool would run. BeforeTool has no channel for
// context to the model, so a refusal carries it in its reason and otherwise
// it goes to the user; AfterTool, BeforeAgent and SessionStart append
// hookSpecificOutput.additionalContext to what the model reads.
type geminiReply struct {
	Decision      string          `json:"decision,omitempty"`
	Reason        string          `json:"reason,omitempty"`
	SystemMessage string          `json:"systemMessage,omitempty"`
	HookSpecific  *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// geminiNames are Gemini's names for the Claude events vibe answers.
var geminiNames = map[string]string{
	hook.PreToolUse: "BeforeTool", hook.PostToolUse: "AfterTool", hook.PostToolUseFailure: "AfterTool",
	hook.UserPromptSubmit: "BeforeAgent", hook.Stop: "AfterAgent", hook.SessionStart: "SessionStart",
}

func geminiRender(event string, r *hook.Reply, w io.Writer) int {
	out := geminiReply{SystemMessage: hook.Cap(r.SystemMessage)}
	var ctx string
	if r.HookSpecific != nil {
		ctx = r.HookSpecific.AdditionalContext
	}
	switch event {
	case hook.PreToolUse:
		if h := r.HookSpecific; h != nil && (h.PermissionDecision == "deny" || h.PermissionDecision == "ask") {
			out.Decision = h.PermissionDecision
			out.Reason = hook.Cap(joinNonEmpty(nonEmpty(h.PermissionDecisionReason), ctx))
			if out.Decision == "ask" {
				out.SystemMessage = hook.Cap(joinNonEmpty(out.SystemMessage, out.Reason))
			}
		} else {
			out.SystemMessage = hook.Cap(joinNonEmpty(out.SystemMessage, ctx))
		}
	case hook.PostToolUse, hook.PostToolUseFailure, hook.Stop, hook.SubagentStop:
		if r.Decision != "" {
			out.Decision, out.Reason = "deny", hook.Cap(nonEmpty(r.Reason))
		}
		if ctx != "" && event != hook.Stop && event != hook.SubagentStop {
			out.HookSpecific = &geminiSpecific{HookEventName: geminiNames[event], AdditionalContext: hook.Cap(ctx)}
		}
	case hook.SessionStart, hook.UserPromptSubmit:
		if ctx != "" {
			out.HookSpecific = &geminiSpecific{HookEventName: geminiNames[event], AdditionalContext: hook.Cap(ctx)}
		}
	default: // SessionEnd, PreCompact: advisory only
		out.SystemMessage = hook.Cap(joinNonEmpty(out.SystemMessage, ctx))
	}
	return write(w, out, out == geminiReply{})
}
