package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Mock is a Messages API server on 127.0.0.1 that plays a Script and records
// every request. Point Claude Code at it with ANTHROPIC_BASE_URL=Mock.URL.
type Mock struct {
	// URL is the base URL, http://127.0.0.1:PORT.
	URL string

	srv    *http.Server
	script Script
	done   chan struct{}

	mu     sync.Mutex
	reqs   []Request
	errs   []string
	toolOf map[string]string // tool_use id → tool name, for ToolResults
}

// NewMock starts a mock serving script on a random loopback port. Call Close
// when done.
func NewMock(script Script) (*Mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start mock: %w", err)
	}
	m := &Mock{
		URL:    "http://" + ln.Addr().String(),
		script: script,
		done:   make(chan struct{}),
		toolOf: map[string]string{},
	}
	m.srv = &http.Server{Handler: m}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	return m, nil
}

// Close stops the server and drops open connections.
func (m *Mock) Close() error {
	err := m.srv.Close()
	<-m.done
	if err != nil {
		return fmt.Errorf("close mock: %w", err)
	}
	return nil
}

// Requests returns a copy of every request received so far, in order.
func (m *Mock) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.reqs...)
}

// Conversation returns the message requests routed to conv, in order.
func (m *Mock) Conversation(conv string) []Request {
	var out []Request
	for _, r := range m.Requests() {
		if r.Conv == conv {
			out = append(out, r)
		}
	}
	return out
}

// Errors returns what went wrong while playing the script: undecodable
// bodies, requests beyond the end of a script, tool results that do not
// answer the previous turn. A clean run returns none.
func (m *Mock) Errors() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.errs...)
}

// ToolResults returns every distinct tool_result block Claude sent, in the
// order first seen, each joined to the name of the scripted call it answers.
func (m *Mock) ToolResults() []ToolResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	var out []ToolResult
	for _, r := range m.reqs {
		for _, msg := range r.Msg.Messages {
			if msg.Role != "user" {
				continue
			}
			for _, b := range msg.Content {
				if b.Type != "tool_result" || seen[b.ToolUseID] {
					continue
				}
				seen[b.ToolUseID] = true
				out = append(out, ToolResult{
					ToolUseID: b.ToolUseID,
					Name:      m.toolOf[b.ToolUseID],
					Conv:      r.Conv,
					Text:      b.PlainText(),
					IsError:   b.IsError,
					Seq:       r.Seq,
				})
			}
		}
	}
	return out
}

// Saw reports whether any Messages request routed to conv carried s anywhere
// in its system prompt or messages. An empty conv matches every conversation.
func (m *Mock) Saw(conv, s string) bool {
	for _, r := range m.Requests() {
		if r.Path != messagesPath || (conv != "" && r.Conv != conv) {
			continue
		}
		if strings.Contains(r.Msg.AllText(), s) {
			return true
		}
	}
	return false
}

const (
	messagesPath    = "/v1/messages"
	countTokensPath = "/v1/messages/count_tokens"
	maxBody         = 64 << 20
)

// ServeHTTP routes one request. It is exported through http.Handler only so
// that Mock can be its own server's handler.
func (m *Mock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		m.fail(fmt.Sprintf("read %s %s: %v", r.Method, r.URL.Path, err))
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "unreadable body")
		return
	}
	req := Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Header: make(map[string]string, len(r.Header)),
		Body:   body,
		Conv:   ConvOther,
		Turn:   -1,
	}
	for k, v := range r.Header {
		req.Header[k] = v[0]
	}
	req.AgentID = req.Header["X-Claude-Code-Agent-Id"]

	isMessages := r.Method == http.MethodPost && r.URL.Path == messagesPath
	isCount := r.Method == http.MethodPost && r.URL.Path == countTokensPath
	if isMessages || isCount {
		if err := json.Unmarshal(body, &req.Msg); err != nil {
			m.record(&req)
			m.fail(fmt.Sprintf("request %d: decode %s body: %v", req.Seq, r.URL.Path, err))
			writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "body is not a Messages request")
			return
		}
	}

	switch {
	case isMessages:
		m.serveMessages(w, &req)
	case isCount:
		m.record(&req)
		// A rough count is enough: Claude Code uses it to decide on
		// compaction, which the tests never want.
		writeJSON(w, map[string]any{"input_tokens": len(body)/4 + 1})
	default:
		m.record(&req)
		writeAPIError(w, http.StatusNotFound, "not_found_error", "the e2e mock does not serve "+r.Method+" "+r.URL.Path)
	}
}

func (m *Mock) serveMessages(w http.ResponseWriter, req *Request) {
	m.mu.Lock()
	conv, turns := m.route(req)
	req.Conv = conv
	var reply Turn
	switch conv {
	case ConvSide:
		reply = Turn{Text(m.sideReply(req.Msg))}
	case ConvAgentUnscripted:
		reply = Turn{Text(m.exhausted())}
		m.errs = append(m.errs, fmt.Sprintf("request %d: subagent %s matches no AgentScript marker; its prompt begins %q", len(m.reqs)+1, req.AgentID, clip(req.Msg.LastUser().Text(), 80)))
	default:
		i := req.Msg.AssistantTurns()
		m.checkResults(req, conv, turns, i)
		if i < len(turns) {
			req.Turn = i
			reply = m.withIDs(turns[i], conv, i)
		} else {
			reply = Turn{Text(m.exhausted())}
			m.errs = append(m.errs, fmt.Sprintf("request %d (%s) asked for turn %d of a %d-turn script", len(m.reqs)+1, conv, i, len(turns)))
		}
	}
	m.recordLocked(req)
	m.mu.Unlock()

	model := req.Msg.Model
	if model == "" {
		model = "claude-e2e-mock"
	}
	id := fmt.Sprintf("msg_e2e_%d", req.Seq)
	if !req.Msg.Stream {
		body, err := json.Marshal(messageJSON(id, model, reply))
		if err != nil {
			m.fail(fmt.Sprintf("request %d (%s): encode reply: %v", req.Seq, req.Conv, err))
			writeAPIError(w, http.StatusInternalServerError, "api_error", err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return
	}
	body, err := streamBody(id, model, reply)
	if err != nil {
		m.fail(fmt.Sprintf("request %d (%s): %v", req.Seq, req.Conv, err))
		writeAPIError(w, http.StatusInternalServerError, "api_error", err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(body)
}

func (m *Mock) exhausted() string {
	if m.script.Exhausted != "" {
		return m.script.Exhausted
	}
	return DefaultExhausted
}

// sideReply answers a request outside the scripted conversations: the
// script's Side text if set; otherwise, when the request asks for
// structured output, the smallest JSON value its schema accepts (a prompt
// hook then reads {"ok":true,...} and lets the action go ahead); otherwise
// DefaultSide.
func (m *Mock) sideReply(msg MessagesRequest) string {
	if m.script.Side != "" {
		return m.script.Side
	}
	if schema := msg.OutputSchema(); schema != nil {
		if b, err := json.Marshal(schemaInstance(schema)); err == nil {
			return string(b)
		}
	}
	return DefaultSide
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// route picks the conversation of a Messages request. The rule, measured on
// Claude Code 2.1.330, is documented in doc.go:
//   - a request with an X-Claude-Code-Agent-Id header comes from a subagent;
//     it plays the AgentScript whose Marker occurs in its first user message
//     (a request without the header but with a marker is taken as a
//     subagent too, in case a later release drops the header);
//   - a request that offers no tools, asks for structured output
//     (output_config.format), or carries a request class other than "main"
//     or an auxiliary type is a side request (prompt hooks, titles,
//     memory extraction);
//   - a request that offers only server tools (WebSearch's nested
//     "Perform a web search for the query: …" request offers the
//     web_search server tool and nothing else) is a side request;
//   - everything else is the main conversation.
//
// webSearchPrompt starts the nested request Claude Code's WebSearch tool
// sends (2.1.330).
const webSearchPrompt = "Perform a web search for the query:"

func (m *Mock) route(req *Request) (string, []Turn) {
	first := req.Msg.FirstUserText()
	for _, a := range m.script.Agents {
		if a.Marker != "" && strings.Contains(first, a.Marker) {
			return AgentConv(a.Marker), a.Turns
		}
	}
	if req.AgentID != "" {
		return ConvAgentUnscripted, nil
	}
	class := req.Header["X-Claude-Code-Request-Class"]
	if len(req.Msg.Tools) == 0 || req.Msg.HasOutputFormat() || strings.HasPrefix(first, webSearchPrompt) ||
		(class != "" && class != "main") || req.Header["X-Claude-Code-Auxiliary-Type"] != "" {
		return ConvSide, nil
	}
	return ConvMain, m.script.Turns
}

// checkResults records an error when the request continues turn i-1 of conv
// without a tool_result for each of that turn's tool calls: it means the
// mock and Claude disagree about where the script is.
func (m *Mock) checkResults(req *Request, conv string, turns []Turn, i int) {
	if i == 0 || i > len(turns) {
		return
	}
	prev := turns[i-1]
	got := map[string]bool{}
	for _, msg := range req.Msg.Messages {
		for _, b := range msg.Content {
			if b.Type == "tool_result" {
				got[b.ToolUseID] = true
			}
		}
	}
	for k, b := range prev {
		if b.Type != "tool_use" {
			continue
		}
		id := toolUseID(b, conv, i-1, k)
		if !got[id] {
			m.errs = append(m.errs, fmt.Sprintf("request %d (%s) continues turn %d without a tool_result for %s (%s)", len(m.reqs)+1, conv, i-1, id, b.Name))
		}
	}
}

// withIDs fills in tool_use ids that are stable for (conversation, turn,
// block), so a retried request gets the same ids.
func (m *Mock) withIDs(t Turn, conv string, turn int) Turn {
	out := make(Turn, len(t))
	for k, b := range t {
		if b.Type == "tool_use" {
			b.ID = toolUseID(b, conv, turn, k)
			m.toolOf[b.ID] = b.Name
		}
		out[k] = b
	}
	return out
}

func toolUseID(b Block, conv string, turn, k int) string {
	if b.ID != "" {
		return b.ID
	}
	// Tool use ids must match ^[a-zA-Z0-9_-]+$; the conversation name may
	// hold any marker text, so it is reduced to a short hash.
	return fmt.Sprintf("toolu_e2e_%08x_%d_%d", fnv32(conv), turn, k)
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func (m *Mock) record(req *Request) {
	m.mu.Lock()
	m.recordLocked(req)
	m.mu.Unlock()
}

func (m *Mock) recordLocked(req *Request) {
	req.Seq = len(m.reqs) + 1
	m.reqs = append(m.reqs, *req)
}

func (m *Mock) fail(msg string) {
	m.mu.Lock()
	m.errs = append(m.errs, msg)
	m.mu.Unlock()
}

// stopReason is "tool_use" when the turn calls a tool, so Claude Code runs
// the calls and comes back with their results.
func stopReason(t Turn) string {
	for _, b := range t {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func usage(out int) map[string]any {
	return map[string]any{
		"input_tokens":                10,
		"output_tokens":               out,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     0,
	}
}

func blockJSON(b Block) map[string]any {
	if b.Type == "tool_use" {
		input := b.Input
		if input == nil {
			input = map[string]any{}
		}
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input}
	}
	return map[string]any{"type": "text", "text": b.Text}
}

func messageJSON(id, model string, t Turn) map[string]any {
	content := make([]map[string]any, 0, len(t))
	for _, b := range t {
		content = append(content, blockJSON(b))
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stopReason(t), "stop_sequence": nil,
		"usage": usage(5),
	}
}

// streamBody renders t as the server-sent events of a streamed message.
// Text and tool input are split into two deltas each so the client's
// reassembly is exercised. It fails only when a scripted tool input cannot
// be encoded as JSON.
func streamBody(id, model string, t Turn) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	event := func(name string, data any) {
		if err != nil {
			return
		}
		var b []byte
		if b, err = json.Marshal(data); err != nil {
			err = fmt.Errorf("encode %s event: %w", name, err)
			return
		}
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}

	start := messageJSON(id, model, nil)
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = usage(1)
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range t {
		switch b.Type {
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			input := b.Input
			if input == nil {
				input = map[string]any{}
			}
			raw, merr := json.Marshal(input)
			if merr != nil {
				return nil, fmt.Errorf("encode input of scripted %s call: %w", b.Name, merr)
			}
			for _, part := range halves(string(raw)) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range halves(b.Text) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(t), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// halves splits s in two at a rune boundary; a string shorter than two
// bytes stays whole.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	mid := len(s) / 2
	for mid > 0 && !runeStart(s[mid]) {
		mid--
	}
	if mid == 0 {
		return []string{s}
	}
	return []string{s[:mid], s[mid:]}
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeAPIError(w, http.StatusInternalServerError, "api_error", "e2e mock: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func writeAPIError(w http.ResponseWriter, status int, kind, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
