package hook

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeFast decodes the events Claude Code sends, a flat object of known
// keys whose tool input and response are kept raw, in one pass without
// reflection: encoding/json reads ~150 MB/s, so a PostToolUse carrying a
// 1 MB command output took ~8 ms to decode, and a small event ~12 µs.
//
// It answers only where it is sure to answer as encoding/json would: ok is
// false for anything else (a key that differs from a field's only in case,
// a value of another type, a lone surrogate, invalid UTF-8 in a string it
// decodes, invalid JSON, a number that is not a plain integer for
// duration_ms, nesting over 1000 deep, anything after the object), and
// Decode then runs encoding/json, which decodes or says what is wrong.
// TestDecodeFastMatchesEncodingJSON holds the two to the same answers.
func decodeFast(data []byte) (*Event, bool) {
	d := fastDecoder{data: data}
	ev, ok := d.object()
	if !ok {
		return nil, false
	}
	d.space()
	return ev, d.i == len(d.data)
}

type fastDecoder struct {
	data []byte
	i    int
}

// maxFastDepth bounds the nesting decodeFast skips (encoding/json's own
// limit is 10000; deeper input goes to it).
const maxFastDepth = 1000

func (d *fastDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c after optional space.
func (d *fastDecoder) byte(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *fastDecoder) object() (*Event, bool) {
	if !d.byte('{') {
		return nil, false
	}
	ev := &Event{}
	if d.byte('}') {
		return ev, true
	}
	for {
		d.space()
		key, ok := d.plainKey()
		if !ok || !d.byte(':') {
			return nil, false
		}
		d.space()
		if !d.field(ev, key) {
			return nil, false
		}
		if d.byte(',') {
			continue
		}
		return ev, d.byte('}')
	}
}

// plainKey reads a key without escapes (any other goes to encoding/json).
func (d *fastDecoder) plainKey() (string, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	for j := start; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			d.i = j + 1
			return string(d.data[start:j]), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// field decodes the value of key into ev.
func (d *fastDecoder) field(ev *Event, key string) bool {
	if set, ok := fastFields[key]; ok {
		return set(d, ev)
	}
	// encoding/json matches keys without regard to case: a key that
	// differs from a field's only in case is its to decode.
	for k := range fastFields {
		if strings.EqualFold(k, key) {
			return false
		}
	}
	return d.skip(0)
}

// fastFields decode the value of each key of Event's JSON tags into its
// field.
var fastFields = map[string]func(d *fastDecoder, ev *Event) bool{
	"session_id":             func(d *fastDecoder, ev *Event) bool { return d.str(&ev.SessionID) },
	"transcript_path":        func(d *fastDecoder, ev *Event) bool { return d.str(&ev.TranscriptPath) },
	"cwd":                    func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Cwd) },
	"prompt_id":              func(d *fastDecoder, ev *Event) bool { return d.str(&ev.PromptID) },
	"permission_mode":        func(d *fastDecoder, ev *Event) bool { return d.str(&ev.PermissionMode) },
	"hook_event_name":        func(d *fastDecoder, ev *Event) bool { return d.str(&ev.HookEventName) },
	"agent_id":               func(d *fastDecoder, ev *Event) bool { return d.str(&ev.AgentID) },
	"agent_type":             func(d *fastDecoder, ev *Event) bool { return d.str(&ev.AgentType) },
	"source":                 func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Source) },
	"model":                  func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Model) },
	"session_title":          func(d *fastDecoder, ev *Event) bool { return d.str(&ev.SessionTitle) },
	"prompt":                 func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Prompt) },
	"tool_name":              func(d *fastDecoder, ev *Event) bool { return d.str(&ev.ToolName) },
	"tool_input":             func(d *fastDecoder, ev *Event) bool { return d.raw(&ev.ToolInput) },
	"tool_use_id":            func(d *fastDecoder, ev *Event) bool { return d.str(&ev.ToolUseID) },
	"tool_response":          func(d *fastDecoder, ev *Event) bool { return d.raw(&ev.ToolResponse) },
	"duration_ms":            func(d *fastDecoder, ev *Event) bool { return d.integer(&ev.DurationMS) },
	"error":                  func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Error) },
	"is_interrupt":           func(d *fastDecoder, ev *Event) bool { return d.boolean(&ev.IsInterrupt) },
	"stop_hook_active":       func(d *fastDecoder, ev *Event) bool { return d.boolean(&ev.StopHookActive) },
	"last_assistant_message": func(d *fastDecoder, ev *Event) bool { return d.str(&ev.LastAssistantMessage) },
	"agent_transcript_path":  func(d *fastDecoder, ev *Event) bool { return d.str(&ev.AgentTranscriptPath) },
	"trigger":                func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Trigger) },
	"custom_instructions":    func(d *fastDecoder, ev *Event) bool { return d.str(&ev.CustomInstructions) },
	"reason":                 func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Reason) },
	"file_path":              func(d *fastDecoder, ev *Event) bool { return d.str(&ev.FilePath) },
	"vibe_client":            func(d *fastDecoder, ev *Event) bool { return d.str(&ev.Client) },
}

// has reports whether the input goes on with s.
func (d *fastDecoder) has(s string) bool {
	return len(d.data)-d.i >= len(s) && string(d.data[d.i:d.i+len(s)]) == s
}

// null consumes a null literal: encoding/json leaves the field as it was.
func (d *fastDecoder) null() bool { return d.literal("null") }

func (d *fastDecoder) str(dst *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.stringValue()
	if ok {
		*dst = s
	}
	return ok
}

// stringValue decodes a JSON string, escapes included; invalid UTF-8 and
// lone surrogates (which encoding/json replaces) are left to it.
func (d *fastDecoder) stringValue() (string, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	j := start
	ascii := true
	for ; j < len(d.data); j++ {
		c := d.data[j]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if j >= len(d.data) || d.data[j] < 0x20 {
		return "", false
	}
	if d.data[j] == '"' {
		if !ascii && !utf8.Valid(d.data[start:j]) {
			return "", false
		}
		d.i = j + 1
		return string(d.data[start:j]), true
	}
	// Escapes: build the string.
	b := make([]byte, 0, j-start+16)
	b = append(b, d.data[start:j]...)
	for j < len(d.data) {
		c := d.data[j]
		switch {
		case c == '"':
			if !utf8.Valid(b) {
				return "", false
			}
			d.i = j + 1
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(d.data) {
			return "", false
		}
		switch e := d.data[j+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(d.data[j+2:])
			if !ok {
				return "", false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				if j+1 >= len(d.data) || d.data[j] != '\\' || d.data[j+1] != 'u' {
					return "", false
				}
				r2, ok := hex4(d.data[j+2:])
				if !ok {
					return "", false
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", false
				}
				j += 6
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

func hex4(p []byte) (rune, bool) {
	if len(p) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// raw keeps a value's bytes as they are (json.RawMessage), null included.
func (d *fastDecoder) raw(dst *json.RawMessage) bool {
	start := d.i
	if !d.skip(0) {
		return false
	}
	*dst = append([]byte(nil), d.data[start:d.i]...)
	return true
}

// integer reads duration_ms: a plain integer that fits an int64, or null,
// which sets the pointer to nil as encoding/json does.
func (d *fastDecoder) integer(dst **int64) bool {
	if d.null() {
		*dst = nil
		return true
	}
	neg := d.i < len(d.data) && d.data[d.i] == '-'
	if neg {
		d.i++
	}
	digits := d.i
	var n uint64
	for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
		n = n*10 + uint64(d.data[d.i]-'0')
		d.i++
	}
	count := d.i - digits
	if count == 0 || count > 18 || (count > 1 && d.data[digits] == '0') {
		return false // empty, possibly out of range, or a leading zero
	}
	if d.i < len(d.data) {
		switch d.data[d.i] {
		case '.', 'e', 'E':
			return false
		}
	}
	v := int64(n)
	if neg {
		v = -v
	}
	*dst = &v
	return true
}

func (d *fastDecoder) boolean(dst *bool) bool {
	switch {
	case d.literal("true"):
		*dst = true
	case d.literal("false"):
		*dst = false
	case d.null():
	default:
		return false
	}
	return true
}

// skip passes over one valid JSON value.
func (d *fastDecoder) skip(depth int) bool {
	if depth > maxFastDepth || d.i >= len(d.data) {
		return false
	}
	switch c := d.data[d.i]; {
	case c == '{':
		d.i++
		if d.byte('}') {
			return true
		}
		for {
			d.space()
			if !d.skipString() || !d.byte(':') {
				return false
			}
			d.space()
			if !d.skip(depth + 1) {
				return false
			}
			if d.byte(',') {
				continue
			}
			return d.byte('}')
		}
	case c == '[':
		d.i++
		if d.byte(']') {
			return true
		}
		for {
			d.space()
			if !d.skip(depth + 1) {
				return false
			}
			if d.byte(',') {
				continue
			}
			return d.byte(']')
		}
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return d.skipNumber()
	}
	return false
}

// literal consumes s if the input goes on with it.
func (d *fastDecoder) literal(s string) bool {
	if d.has(s) {
		d.i += len(s)
		return true
	}
	return false
}

// skipString passes over a string, checking its escapes as JSON's grammar
// does (encoding/json keeps raw strings' other bytes as they are).
func (d *fastDecoder) skipString() bool {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return false
	}
	for j := d.i + 1; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			d.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if j+1 >= len(d.data) {
				return false
			}
			switch d.data[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if _, ok := hex4(d.data[j+2:]); !ok {
					return false
				}
				j += 5
			default:
				return false
			}
		}
	}
	return false
}

// skipNumber passes over a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *fastDecoder) skipNumber() bool {
	digits := func() int {
		n := 0
		for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.data[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.data) && d.data[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return false
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return false
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
