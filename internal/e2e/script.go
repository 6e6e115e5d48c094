package e2e

// Block is one content block of a scripted assistant reply: plain text or a
// tool call. Build it with Text or Tool.
type Block struct {
	// Type is "text" or "tool_use".
	Type string
	// Text is the text of a text block.
	Text string
	// Name is the tool a tool_use block calls (Write, Bash, Agent, ...).
	Name string
	// Input is the tool input; it is sent as JSON exactly as given.
	Input map[string]any
	// ID is the tool_use id; the mock assigns a unique one when it is empty.
	ID string
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Tool returns a tool_use block calling name with input.
func Tool(name string, input map[string]any) Block {
	return Block{Type: "tool_use", Name: name, Input: input}
}

// WithID returns a copy of b with a fixed tool_use id, so a test can look up
// the tool_result Claude sends back for exactly this call.
func (b Block) WithID(id string) Block {
	b.ID = id
	return b
}

// Agent returns a tool_use block that starts the subagent agentType (a
// plugin agent is "<plugin>:<name>") with prompt, in the foreground. Claude
// Code 2.1.330 runs an Agent call in the background when run_in_background
// is absent, and the result then reaches the main conversation later, as a
// <task-notification> that starts another turn; the foreground keeps the
// script linear.
func Agent(agentType, prompt string) Block {
	return Tool("Agent", map[string]any{
		"description":       "e2e subagent",
		"prompt":            prompt,
		"subagent_type":     agentType,
		"run_in_background": false,
	})
}

// Turn is one assistant reply: its blocks are sent in order in one message.
// A turn with a tool_use block ends with stop_reason "tool_use", otherwise
// with "end_turn".
type Turn []Block

// Script is what the mock answers, conversation by conversation.
type Script struct {
	// Turns is the main conversation: Turns[i] answers the request that
	// carries i assistant replies in its history.
	Turns []Turn
	// Agents scripts subagents. A request belongs to the first AgentScript
	// whose Marker occurs in the text of the request's first user message,
	// which is where Claude Code puts the prompt the parent passed to the
	// Agent tool.
	Agents []AgentScript
	// Exhausted is the text sent when a conversation asks for a turn beyond
	// its script (for example after a Stop hook blocked once more than the
	// script foresaw). Empty means DefaultExhausted. The mock records each
	// such request in Mock.Errors, so a test notices.
	Exhausted string
	// Side is the text sent to side requests (prompt hooks, titles). Empty
	// means: the smallest JSON value the request's output schema accepts
	// when it asks for structured output, else DefaultSide.
	Side string
}

// AgentScript scripts one subagent conversation.
type AgentScript struct {
	// Marker is a string unique to the subagent's prompt.
	Marker string
	// Turns are the subagent's replies, consumed like Script.Turns.
	Turns []Turn
}

// DefaultSide is the reply to a side request that names no output schema.
const DefaultSide = "ok"

// DefaultExhausted is the reply to a request beyond the end of its script.
const DefaultExhausted = "e2e mock: script exhausted"
