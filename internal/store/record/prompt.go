package record

import "time"

// PromptSeen is what vibe keeps of a user prompt: its hash and length, never
// its text.
type PromptSeen struct {
	SessionID string
	PromptID  string
	AgentRole string
	SHA256    string
	Chars     int
	At        time.Time
}
