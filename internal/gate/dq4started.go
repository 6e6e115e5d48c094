package gate

import "os"

// FindingsReported reports whether a findings file reports anything yet: a
// number or a finding id in its prose (code, comments and the template's
// instructions aside). A findings file that reports nothing cannot be out
// of date with its JSON, so PostToolUse leaves it alone when only the JSON
// changed (the analysis wrote its results; the prose is still to come);
// `vibe gate check` judges the finished project whatever it holds.
func FindingsReported(findingsPath string) bool {
	content, err := os.ReadFile(findingsPath)
	if err != nil {
		return false
	}
	if len(extractNumbers(content).numbers) > 0 {
		return true
	}
	ids := findingsIDs(findingsPath, content)
	return len(ids.defs) > 0 || len(ids.refs) > 0
}
