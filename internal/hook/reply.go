package hook

import (
	"bytes"
	"encoding/json"
)

// Reply is the JSON a hook prints on stdout. Only non-empty fields are sent.
type Reply struct {
	Continue      *bool     `json:"continue,omitempty"`
	StopReason    string    `json:"stopReason,omitempty"`
	SystemMessage string    `json:"systemMessage,omitempty"`
	Decision      string    `json:"decision,omitempty"` // "block" on PostToolUse, Stop, SubagentStop
	Reason        string    `json:"reason,omitempty"`
	HookSpecific  *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"` // allow, deny, ask
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// MaxEvent caps the event a hook reads from stdin. Write contents arrive
// inside the event, so it is generous; beyond it the event is treated as
// unreadable.
const MaxEvent = 64 << 20

// MaxString is Claude Code's cap on any reply string; longer text is spilled
// to a file by the client, so vibe cuts it first and says so.
const MaxString = 10000

// Empty reports whether the reply says nothing, in which case a hook prints
// nothing at all.
func (r *Reply) Empty() bool {
	return r == nil || (r.Continue == nil && r.StopReason == "" && r.SystemMessage == "" &&
		r.Decision == "" && r.Reason == "" && r.HookSpecific == nil)
}

// Encode renders the reply as one line of JSON, strings capped at MaxString.
func (r *Reply) Encode() ([]byte, error) {
	c := *r
	c.SystemMessage = Cap(c.SystemMessage)
	c.Reason = Cap(c.Reason)
	c.StopReason = Cap(c.StopReason)
	if c.HookSpecific != nil {
		s := *c.HookSpecific
		s.PermissionDecisionReason = Cap(s.PermissionDecisionReason)
		s.AdditionalContext = Cap(s.AdditionalContext)
		c.HookSpecific = &s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Cap cuts s to MaxString characters with a visible marker.
func Cap(s string) string {
	const marker = "\n[… cut by vibe at 10,000 characters]"
	if len([]rune(s)) <= MaxString {
		return s
	}
	r := []rune(s)
	return string(r[:MaxString-len([]rune(marker))]) + marker
}
