package relay

import "github.com/vibe-science/vibe/internal/wire"

// The few string operations a hook binary needs, here rather than from
// strings and strconv: a hook binary starts on every tool call, and each
// page of another package's code it runs is a page fault at its start-up
// (the package doc). TestTextHelpersAsTheStandardLibrary holds them to
// strings' and strconv's answers.

// hasPrefix is strings.HasPrefix.
func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// cutPrefix is strings.CutPrefix.
func cutPrefix(s, prefix string) (string, bool) {
	if !hasPrefix(s, prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// indexByte is strings.IndexByte.
func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// hasSlash is strings.Contains(s, "/").
func hasSlash(s string) bool { return indexByte(s, '/') >= 0 }

// lastSeparator is strings.LastIndexAny(p, `/\`).
func lastSeparator(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return i
		}
	}
	return -1
}

// equalFoldASCII is strings.EqualFold for a t of ASCII letters.
func equalFoldASCII(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		d := t[i]
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// itoa is strconv.Itoa.
func itoa(n int) string {
	var b [24]byte
	return string(wire.AppendInt(b[:0], n))
}

// eventIs reports whether the event's hook_event_name is name, reading no
// more of the JSON than the key, its colon and the value's quotes: what
// mayAct needs before any decoding.
func eventIs(data []byte, name string) bool {
	const key = `"hook_event_name"`
	for i := 0; i+len(key) <= len(data); i++ {
		if data[i] != '"' || string(data[i:i+len(key)]) != key {
			continue
		}
		j := i + len(key)
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j >= len(data) || data[j] != ':' {
			continue
		}
		j++
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		v := `"` + name + `"`
		return j+len(v) <= len(data) && string(data[j:j+len(v)]) == v
	}
	return false
}
