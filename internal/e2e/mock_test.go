package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// sseEvent is one server-sent event, its data decoded.
type sseEvent struct {
	Event string         `json:"event"`
	Data  map[string]any `json:"data"`
}

func parseSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("event %s: data is not JSON: %v", cur.Event, err)
			}
		case line == "":
			if cur.Event == "" || cur.Data == nil {
				t.Fatalf("incomplete event before blank line: %+v", cur)
			}
			if cur.Data["type"] != cur.Event {
				t.Fatalf("event %q carries data type %v", cur.Event, cur.Data["type"])
			}
			out = append(out, cur)
			cur = sseEvent{}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.Event != "" {
		t.Fatalf("stream ends inside event %q", cur.Event)
	}
	return out
}

// assembled is a streamed message put back together the way a client does.
type assembled struct {
	Blocks     []map[string]any
	StopReason string
}

func assemble(t *testing.T, events []sseEvent) assembled {
	t.Helper()
	var a assembled
	partial := map[int]string{}
	for _, e := range events {
		idx := 0
		if f, ok := e.Data["index"].(float64); ok {
			idx = int(f)
		}
		switch e.Event {
		case "content_block_start":
			if idx != len(a.Blocks) {
				t.Fatalf("block %d starts out of order", idx)
			}
			a.Blocks = append(a.Blocks, e.Data["content_block"].(map[string]any))
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				a.Blocks[idx]["text"] = a.Blocks[idx]["text"].(string) + d["text"].(string)
			case "input_json_delta":
				partial[idx] += d["partial_json"].(string)
			}
		case "content_block_stop":
			if p, ok := partial[idx]; ok {
				var in map[string]any
				if err := json.Unmarshal([]byte(p), &in); err != nil {
					t.Fatalf("block %d: reassembled input %q: %v", idx, p, err)
				}
				a.Blocks[idx]["input"] = in
			}
		case "message_delta":
			a.StopReason = e.Data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	return a
}

// checkGolden compares got with testdata/name as canonical JSON and
// rewrites the file under -update.
func checkGolden(t *testing.T, name string, got any) {
	t.Helper()
	path := filepath.Join("testdata", name)
	gotC, err := verdict.Canonical(got)
	if err != nil {
		t.Fatalf("canonical: %v", err)
	}
	if *update {
		var tree any
		if err := json.Unmarshal(gotC, &tree); err != nil {
			t.Fatal(err)
		}
		b, err := json.MarshalIndent(tree, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	var want any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("golden %s: %v", path, err)
	}
	wantC, err := verdict.Canonical(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotC, wantC) {
		t.Errorf("%s differs\n got %s\nwant %s", path, gotC, wantC)
	}
}

var goldenTurn = Turn{
	Text("héllo wörld"),
	Tool("Write", map[string]any{"file_path": "/p/notes.txt", "content": "x\n"}).WithID("toolu_w"),
	Tool("Bash", nil).WithID("toolu_b"),
}

func TestStreamBodyGolden(t *testing.T) {
	tests := []struct {
		name   string
		turn   Turn
		golden string
		stop   string
	}{
		{"text and tools", goldenTurn, "stream_tools.golden.json", "tool_use"},
		{"text only", Turn{Text("done")}, "stream_text.golden.json", "end_turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := streamBody("msg_1", "m", tt.turn)
			if err != nil {
				t.Fatal(err)
			}
			events := parseSSE(t, body)
			checkGolden(t, tt.golden, events)
			a := assemble(t, events)
			if a.StopReason != tt.stop {
				t.Errorf("stop_reason %q, want %q", a.StopReason, tt.stop)
			}
			// The reassembled blocks must equal the non-streamed content.
			want := messageJSON("msg_1", "m", tt.turn)["content"]
			gotC, _ := verdict.Canonical(a.Blocks)
			wantC, _ := verdict.Canonical(want)
			if !bytes.Equal(gotC, wantC) {
				t.Errorf("reassembled %s\nnon-streamed %s", gotC, wantC)
			}
		})
	}
}

func TestStreamBodyRejectsUnencodableInput(t *testing.T) {
	_, err := streamBody("m", "m", Turn{Tool("Write", map[string]any{"bad": make(chan int)})})
	if err == nil || !strings.Contains(err.Error(), "encode input of scripted Write call") {
		t.Errorf("err = %v, want an encode error naming the tool", err)
	}
}

func TestMessageJSONGolden(t *testing.T) {
	checkGolden(t, "message.golden.json", messageJSON("msg_1", "m", goldenTurn))
}

func TestHalves(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a", []string{"a"}},
		{"abcd", []string{"ab", "cd"}},
		{"aé", []string{"a", "é"}}, // mid falls inside é: back up to its start
		{"é", []string{"é"}},
	}
	for _, tt := range tests {
		if got := halves(tt.in); strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("halves(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSchemaInstance(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{"prompt hook", `{"type":"object","properties":{"ok":{"type":"boolean"},"reason":{"type":"string"},"impossible":{"type":"boolean"}},"required":["ok","reason"]}`, `{"ok":true,"reason":"e2e mock"}`},
		{"enum first", `{"enum":["b","a"]}`, `"b"`},
		{"const", `{"const":3}`, `3`},
		{"type list", `{"type":["integer","null"]}`, `0`},
		{"nested", `{"type":"object","properties":{"o":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]},"l":{"type":"array"}},"required":["o","l","missing"]}`, `{"l":[],"missing":{},"o":{"n":0}}`},
		{"null", `{"type":"null"}`, `null`},
		{"unknown", `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema map[string]any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			got, err := verdict.Canonical(schemaInstance(schema))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRoute(t *testing.T) {
	m := &Mock{script: Script{
		Turns:  []Turn{{Text("main")}},
		Agents: []AgentScript{{Marker: "R2-MARK", Turns: []Turn{{Text("r2")}}}},
	}}
	userMsg := func(s string) []Message {
		return []Message{{Role: "user", Content: []ContentBlock{{Type: "text", Text: "<system-reminder>x</system-reminder>"}, {Type: "text", Text: s}}}}
	}
	withFormat := MessagesRequest{Tools: []ToolDef{{Name: "Agent"}}, Messages: userMsg("go")}
	withFormat.OutputConfig.Format = &struct {
		Type   string         `json:"type"`
		Schema map[string]any `json:"schema"`
	}{Type: "json_schema"}
	tests := []struct {
		name   string
		req    Request
		want   string
		nTurns int
	}{
		{"main offers tools", Request{Msg: MessagesRequest{Tools: []ToolDef{{Name: "Agent"}, {Name: "Write"}}, Messages: userMsg("go")}}, ConvMain, 1},
		{"main without Agent tool", Request{Msg: MessagesRequest{Tools: []ToolDef{{Name: "Write"}}, Messages: userMsg("go")}}, ConvMain, 1},
		{"subagent by header and marker", Request{AgentID: "a1", Msg: MessagesRequest{Tools: []ToolDef{{Name: "Write"}}, Messages: userMsg("R2-MARK review")}}, AgentConv("R2-MARK"), 1},
		{"subagent by marker alone", Request{Msg: MessagesRequest{Tools: []ToolDef{{Name: "Write"}}, Messages: userMsg("R2-MARK review")}}, AgentConv("R2-MARK"), 1},
		{"unscripted subagent", Request{AgentID: "a2", Msg: MessagesRequest{Tools: []ToolDef{{Name: "Write"}}, Messages: userMsg("other")}}, ConvAgentUnscripted, 0},
		{"no tools is side", Request{Msg: MessagesRequest{Tools: []ToolDef{}, Messages: userMsg("judge")}}, ConvSide, 0},
		{"structured output is side", Request{Msg: withFormat}, ConvSide, 0},
		{"auxiliary header is side", Request{Header: map[string]string{"X-Claude-Code-Auxiliary-Type": "memory_save"}, Msg: MessagesRequest{Tools: []ToolDef{{Name: "Agent"}}, Messages: userMsg("go")}}, ConvSide, 0},
		{"non-main class is side", Request{Header: map[string]string{"X-Claude-Code-Request-Class": "compaction"}, Msg: MessagesRequest{Tools: []ToolDef{{Name: "Agent"}}, Messages: userMsg("go")}}, ConvSide, 0},
		{"main class is main", Request{Header: map[string]string{"X-Claude-Code-Request-Class": "main"}, Msg: MessagesRequest{Tools: []ToolDef{{Name: "Agent"}}, Messages: userMsg("go")}}, ConvMain, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			conv, turns := m.route(&req)
			if conv != tt.want || len(turns) != tt.nTurns {
				t.Errorf("route = %q with %d turns, want %q with %d", conv, len(turns), tt.want, tt.nTurns)
			}
		})
	}
}

// client posts Messages requests to a mock the way Claude Code does.
type client struct {
	t   *testing.T
	url string
}

func (c client) post(path string, header map[string]string, body any) (*http.Response, []byte) {
	c.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url+path, bytes.NewReader(b))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, out
}

// turn posts a streamed Messages request with history msgs and returns the
// reassembled reply.
func (c client) turn(header map[string]string, msgs []any) assembled {
	c.t.Helper()
	resp, body := c.post("/v1/messages?beta=true", header, map[string]any{
		"model": "claude-test", "max_tokens": 100, "stream": true,
		"tools": []any{map[string]any{"name": "Agent"}, map[string]any{"name": "Write"}}, "messages": msgs,
	})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		c.t.Fatalf("status %d, content type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return assemble(c.t, parseSSE(c.t, body))
}

func newMock(t *testing.T, s Script) *Mock {
	t.Helper()
	m, err := NewMock(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

func user(blocks ...any) map[string]any { return map[string]any{"role": "user", "content": blocks} }
func text(s string) map[string]any      { return map[string]any{"type": "text", "text": s} }
func result(id, s string, isErr bool) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": s, "is_error": isErr}
}

func TestMockPlaysConversations(t *testing.T) {
	m := newMock(t, Script{
		Turns: []Turn{
			{Text("writing"), Tool("Write", map[string]any{"file_path": "/p/a"})},
			{Agent("p:r2", "R2-MARK go")},
			{Text("done")},
		},
		Agents: []AgentScript{{Marker: "R2-MARK", Turns: []Turn{{Text("r2 done")}}}},
	})
	c := client{t, m.URL}
	mainHdr := map[string]string{}
	prompt := user(text("<system-reminder>attr</system-reminder>"), text("go"))

	r0 := c.turn(mainHdr, []any{prompt})
	if len(r0.Blocks) != 2 || r0.Blocks[1]["name"] != "Write" || r0.StopReason != "tool_use" {
		t.Fatalf("turn 0 = %+v", r0)
	}
	writeID := r0.Blocks[1]["id"].(string)
	a0 := map[string]any{"role": "assistant", "content": r0.Blocks}

	// Turn 1 answers the Write; a retry of the same request gets the same
	// turn, so a retried request never skips a step.
	hist1 := []any{prompt, map[string]any{"role": "system", "content": "ctx"}, a0, user(result(writeID, "File created", false))}
	r1 := c.turn(mainHdr, hist1)
	r1again := c.turn(mainHdr, hist1)
	if r1.Blocks[0]["name"] != "Agent" || r1again.Blocks[0]["id"] != r1.Blocks[0]["id"] {
		t.Fatalf("turn 1 = %+v, retry = %+v", r1, r1again)
	}
	agentID := r1.Blocks[0]["id"].(string)

	// The subagent's own request carries the agent header and the prompt.
	sub := c.turn(map[string]string{"X-Claude-Code-Agent-Id": "a42"}, []any{user(text("<system-reminder>attr</system-reminder>"), text("R2-MARK go"))})
	if sub.Blocks[0]["text"] != "r2 done" || sub.StopReason != "end_turn" {
		t.Fatalf("subagent turn = %+v", sub)
	}

	// A side request (prompt hook) neither consumes nor disturbs turns.
	resp, body := c.post("/v1/messages", nil, map[string]any{"model": "x", "max_tokens": 100, "stream": false, "tools": []any{},
		"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []any{"ok"}}}},
		"messages":      []any{user(text("judge this"))}})
	var side struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(body, &side); err != nil || resp.StatusCode != 200 || side.Content[0]["text"] != `{"ok":true}` {
		t.Fatalf("side reply %d %s (%v)", resp.StatusCode, body, err)
	}

	a1 := map[string]any{"role": "assistant", "content": r1.Blocks}
	hist2 := append(append([]any{}, hist1...), a1, user(result(agentID, "r2 done", false)))
	if r2 := c.turn(mainHdr, hist2); r2.Blocks[0]["text"] != "done" || r2.StopReason != "end_turn" {
		t.Fatalf("turn 2 = %+v", r2)
	}
	if errs := m.Errors(); len(errs) != 0 {
		t.Fatalf("errors on a clean run: %v", errs)
	}

	// Past the end of the script: the exhausted text, and an error.
	a2 := map[string]any{"role": "assistant", "content": []any{text("done")}}
	hist3 := append(append([]any{}, hist2...), a2, user(text("Stop hook feedback:\nmore")))
	if r3 := c.turn(mainHdr, hist3); r3.Blocks[0]["text"] != DefaultExhausted {
		t.Fatalf("turn 3 = %+v", r3)
	}

	wantConvs := []string{ConvMain, ConvMain, ConvMain, AgentConv("R2-MARK"), ConvSide, ConvMain, ConvMain}
	wantTurns := []int{0, 1, 1, 0, -1, 2, -1}
	reqs := m.Requests()
	if len(reqs) != len(wantConvs) {
		t.Fatalf("%d requests recorded, want %d", len(reqs), len(wantConvs))
	}
	for i, r := range reqs {
		if r.Seq != i+1 || r.Conv != wantConvs[i] || r.Turn != wantTurns[i] {
			t.Errorf("request %d: seq %d conv %q turn %d, want conv %q turn %d", i, r.Seq, r.Conv, r.Turn, wantConvs[i], wantTurns[i])
		}
	}
	if reqs[3].AgentID != "a42" {
		t.Errorf("subagent AgentID = %q", reqs[3].AgentID)
	}
	wantErrs := []string{"request 7 (main) asked for turn 3 of a 3-turn script"}
	if got := m.Errors(); strings.Join(got, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("errors %q, want %q", got, wantErrs)
	}
	wantResults := []ToolResult{
		{ToolUseID: writeID, Name: "Write", Conv: ConvMain, Text: "File created", Seq: 2},
		{ToolUseID: agentID, Name: "Agent", Conv: ConvMain, Text: "r2 done", Seq: 6},
	}
	if got := m.ToolResults(); fmt.Sprint(got) != fmt.Sprint(wantResults) {
		t.Errorf("tool results\n got %+v\nwant %+v", got, wantResults)
	}
	if !m.Saw(ConvMain, "Stop hook feedback:\nmore") || m.Saw(AgentConv("R2-MARK"), "Stop hook feedback") {
		t.Error("Saw does not tell the conversations apart")
	}
}

func TestMockRecordsScriptMismatches(t *testing.T) {
	m := newMock(t, Script{Turns: []Turn{{Tool("Write", nil).WithID("toolu_fixed")}, {Text("done")}}})
	c := client{t, m.URL}
	prompt := user(text("go"))
	// Claude answers a different id than the scripted one.
	c.turn(nil, []any{prompt, map[string]any{"role": "assistant", "content": []any{text("x")}}, user(result("toolu_other", "r", true))})
	// A subagent nobody scripted.
	c.turn(map[string]string{"X-Claude-Code-Agent-Id": "a9"}, []any{user(text("unknown task"))})
	// A body that is not JSON.
	resp, _ := c.post("/v1/messages", nil, "not an object")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body status %d, want 400", resp.StatusCode)
	}
	want := []string{
		"request 1 (main) continues turn 0 without a tool_result for toolu_fixed (Write)",
		`request 2: subagent a9 matches no AgentScript marker; its prompt begins "unknown task"`,
		"request 3: decode /v1/messages body: json: cannot unmarshal string into Go value of type e2e.MessagesRequest",
	}
	if got := m.Errors(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors\n got %q\nwant %q", got, want)
	}
}

func TestMockOtherEndpoints(t *testing.T) {
	m := newMock(t, Script{})
	c := client{t, m.URL}
	body := map[string]any{"model": "x", "messages": []any{user(text("count me"))}}
	resp, out := c.post("/v1/messages/count_tokens", nil, body)
	b, _ := json.Marshal(body)
	if want := fmt.Sprintf(`{"input_tokens":%d}`, len(b)/4+1); resp.StatusCode != 200 || string(out) != want {
		t.Errorf("count_tokens = %d %s, want %s", resp.StatusCode, out, want)
	}
	resp, out = c.post("/v1/models", nil, map[string]any{})
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(out), `"type":"not_found_error"`) {
		t.Errorf("unknown endpoint = %d %s", resp.StatusCode, out)
	}
	reqs := m.Requests()
	if len(reqs) != 2 || reqs[0].Conv != ConvOther || reqs[0].Msg.FirstUserText() != "count me" || reqs[1].Path != "/v1/models" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestRequestHelpers(t *testing.T) {
	raw := `{"system":[{"type":"text","text":"billing"},{"type":"text","text":"You are X."}],
	"messages":[
	 {"role":"user","content":[{"type":"text","text":"<system-reminder>\nA\n</system-reminder>\n"},{"type":"text","text":"go"}]},
	 {"role":"system","content":[{"type":"text","text":"SessionStart hook additional context: M"}]},
	 {"role":"assistant","content":[{"type":"text","text":"t"}]},
	 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"e1"},{"type":"text","text":"e2 <system-reminder>B</system-reminder>"}]}]},
	 {"role":"assistant","content":"plain"},
	 {"role":"user","content":"Stop hook feedback:\nS"}]}`
	var r MessagesRequest
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatal(err)
	}
	if got := r.SystemText(); got != "billing\nYou are X." {
		t.Errorf("SystemText = %q", got)
	}
	if got := r.FirstUserText(); got != "<system-reminder>\nA\n</system-reminder>\n\ngo" {
		t.Errorf("FirstUserText = %q", got)
	}
	if got := r.LastUser().Text(); got != "Stop hook feedback:\nS" {
		t.Errorf("LastUser = %q", got)
	}
	if got := r.AssistantTurns(); got != 2 {
		t.Errorf("AssistantTurns = %d, want 2 (two consecutive assistant messages count once)", got)
	}
	if got := r.SystemReminders(); strings.Join(got, "|") != "A|B" {
		t.Errorf("SystemReminders = %q", got)
	}
	if got := r.SystemMessages(); strings.Join(got, "|") != "SessionStart hook additional context: M" {
		t.Errorf("SystemMessages = %q", got)
	}
	tr := r.Messages[4].Content[0]
	if tr.PlainText() != "e1\ne2 <system-reminder>B</system-reminder>" || !tr.IsError || tr.ToolUseID != "t1" {
		t.Errorf("tool_result = %+v", tr)
	}
	if !strings.Contains(r.AllText(), "You are X.") || !strings.Contains(r.AllText(), "plain") {
		t.Errorf("AllText misses parts: %q", r.AllText())
	}
	var bad Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":7}`), &bad); err == nil {
		t.Error("numeric content decoded without error")
	}
}
