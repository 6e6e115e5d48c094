package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Event names vibe handles.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	// PostToolUseFailure fires instead of PostToolUse when the tool failed
	// (a command that exited non-zero): what it changed on disk before it
	// failed is judged all the same.
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	SessionEnd         = "SessionEnd"
	PreCompact         = "PreCompact"
	// PreSkillShellCommand (Claude Code 2.1.332) fires before a shell
	// command written inside a skill or slash command runs, with the
	// command as a Bash tool_input; PreToolUse's policy judges it.
	PreSkillShellCommand = "PreSkillShellCommand"
	// Setup fires on `claude --init`, `--init-only` (trigger "init") and
	// `--maintenance` (trigger "maintenance").
	Setup = "Setup"
	// ConfigChange fires when a settings file changes during a session
	// (source user_settings, project_settings, local_settings,
	// policy_settings or skills; file_path names the file).
	ConfigChange = "ConfigChange"
)

// Event is one hook input. Fields absent from an event stay zero; fields
// Claude Code adds later are ignored.
type Event struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	PromptID       string `json:"prompt_id,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  string `json:"hook_event_name"`
	AgentID        string `json:"agent_id,omitempty"`
	AgentType      string `json:"agent_type,omitempty"`

	// SessionStart, ConfigChange
	Source       string `json:"source,omitempty"`
	Model        string `json:"model,omitempty"`
	SessionTitle string `json:"session_title,omitempty"`

	// UserPromptSubmit
	Prompt string `json:"prompt,omitempty"`

	// PreToolUse, PostToolUse
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	DurationMS   *int64          `json:"duration_ms,omitempty"`

	// PostToolUseFailure
	Error       string `json:"error,omitempty"`
	IsInterrupt bool   `json:"is_interrupt,omitempty"`

	// Stop, SubagentStop
	StopHookActive       bool   `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	AgentTranscriptPath  string `json:"agent_transcript_path,omitempty"`

	// PreCompact, Setup
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`

	// SessionEnd
	Reason string `json:"reason,omitempty"`

	// ConfigChange: the settings file that changed (Source says which).
	FilePath string `json:"file_path,omitempty"`

	// Client names the agent client when it is not Claude Code: set by
	// internal/client on the events it translates, never sent by a client.
	Client string `json:"vibe_client,omitempty"`
}

// ErrEmpty is returned for empty stdin.
var ErrEmpty = errors.New("empty input: expected one JSON object from Claude Code")

// Decode parses one event. It rejects anything that is not a single JSON
// object with a session_id and a hook_event_name, because a hook cannot
// record or judge an event it cannot attribute.
func Decode(data []byte) (*Event, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("decode event: input is not a JSON object (starts with %q)", truncate(string(data), 20))
	}
	ev, ok := decodeFast(data)
	if !ok {
		var err error
		if ev, err = decodeJSON(data); err != nil {
			return nil, err
		}
	}
	return required(ev)
}

// CwdOf reads an event's cwd alone, by the fast decoder only (which skips
// the tool input and response without decoding them), so that an event too
// large to judge can still be placed in its project; ok is false when that
// decoder cannot read the event.
func CwdOf(data []byte) (cwd string, ok bool) {
	ev, ok := decodeFast(bytes.TrimSpace(data))
	if !ok {
		return "", false
	}
	return ev.Cwd, true
}

// decodeJSON is Decode by encoding/json, for what decodeFast leaves to it.
func decodeJSON(data []byte) (*Event, error) {
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&ev); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode event: more than one JSON value on stdin")
	}
	return &ev, nil
}

// required refuses an event without the fields every event has.
func required(ev *Event) (*Event, error) {
	if ev.HookEventName == "" {
		return nil, errors.New("decode event: hook_event_name is missing")
	}
	if ev.SessionID == "" {
		return nil, errors.New("decode event: session_id is missing")
	}
	return ev, nil
}

// Input decodes the tool input into v.
func (e *Event) Input(v any) error {
	if len(e.ToolInput) == 0 {
		return errors.New("tool_input is missing")
	}
	return json.Unmarshal(e.ToolInput, v)
}

// FileInput is the part of a tool input that names files.
type FileInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Content      string `json:"content"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	ReplaceAll   bool   `json:"replace_all"`
	Edits        []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
	NewSource string `json:"new_source"`
	Command   string `json:"command"`
	Query     string `json:"query"`
	URL       string `json:"url"`
	Prompt    string `json:"prompt"`
}

// Files decodes the tool input as a FileInput; a tool input that is not an
// object yields the zero value.
func (e *Event) Files() FileInput {
	var in FileInput
	if len(e.ToolInput) > 0 {
		_ = json.Unmarshal(e.ToolInput, &in)
	}
	if in.FilePath == "" {
		in.FilePath = in.NotebookPath
	}
	return in
}

// IsSubagent reports whether the event fired inside a subagent.
func (e *Event) IsSubagent() bool { return e.AgentID != "" }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
