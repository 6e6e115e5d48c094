package citation

import (
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/store/record"
)

// Places is where an id is cited: file:line, the first three, then a
// count. vibe citations, the viewer and RECORD.md say it alike.
func Places(ws []Where) string {
	var parts []string
	for i, w := range ws {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ws)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s:%d", w.File, w.Line))
	}
	return strings.Join(parts, ", ")
}

// Source says what retrieved e's id (the first record, and how many
// more), or why it cannot exist, or "-".
func (e Entry) Source() string {
	if e.Status == StatusInvalid || len(e.From) == 0 {
		if e.Problem.Reason != "" {
			return "cannot exist: " + e.Problem.Reason
		}
		return "-"
	}
	s := e.From[0]
	var t string
	if s.Layer == record.PaperAdded {
		t = "added by the researcher"
		if s.Title != "" {
			t += ": " + s.Title
		}
	} else {
		session := s.SessionID
		if len(session) > 8 {
			session = session[:8]
		}
		t = fmt.Sprintf("search %d (%s %q, session %s)", s.SearchID, s.Layer, s.Query, session)
	}
	if len(e.From) > 1 {
		t += fmt.Sprintf(" and %d more", len(e.From)-1)
	}
	return t
}
