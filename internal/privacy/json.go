package privacy

import (
	"bytes"
	"encoding/json"
)

// ScrubJSON scrubs every string of a JSON document, keys included, and
// re-encodes it with numbers as written: the secrets' rules read a string
// as it is, not with its quotes escaped (`\"token\": \"…\"` hides a value
// from them), and scrubbing the encoded text could swallow a closing quote
// and leave invalid JSON. A document with nothing to redact comes back as
// it was, byte for byte; a text that is not JSON is scrubbed as text.
func ScrubJSON(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil || dec.More() {
		return []byte(Scrub(string(raw)))
	}
	changed := false
	tree = scrubTree(tree, &changed)
	if !changed {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return []byte(Scrub(string(raw)))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func scrubTree(v any, changed *bool) any {
	switch t := v.(type) {
	case string:
		s := Scrub(t)
		*changed = *changed || s != t
		return s
	case []any:
		for i := range t {
			t[i] = scrubTree(t[i], changed)
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			sk := Scrub(k)
			*changed = *changed || sk != k
			out[sk] = scrubTree(e, changed)
		}
		return out
	}
	return v
}
