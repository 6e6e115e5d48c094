package research

import (
	"regexp"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/markdown"
)

var (
	// findingNumber is a heading that opens a numbered finding: "## Finding 2".
	findingNumber = regexp.MustCompile(`^[Ff]inding\s+[0-9]+\b`)
	// findingsTitle is a document title that says it holds findings or
	// results: "Findings: RQ-001", "Key findings", "Results of run 3".
	findingsTitle = regexp.MustCompile(`(?i)^((key|main|major|preliminary|interim|final|summary of( the)?)\s+)?(findings?|results?)\b`)
	// sourceMarker declares the JSON a findings file reports from.
	sourceMarker = regexp.MustCompile(`^<!--\s*source:`)
	// reportedNumber is a number as a finding reports it: a decimal, a
	// percentage or a value after an equals sign (AUC 0.81, 87%, n = 300).
	reportedNumber = regexp.MustCompile(`(^|[^\w.])([0-9]+\.[0-9]+|[0-9]+(\.[0-9]+)?\s?%|=\s*[0-9]+)`)
)

// mdLines returns the lines of a Markdown document outside fenced code
// and HTML comments, and whether a comment line outside code declares a
// source JSON (<!-- source: FINDINGS.json -->).
func mdLines(head []byte) (lines []string, source bool) {
	var fences markdown.Fences
	comment := false
	for _, line := range strings.Split(string(head), "\n") {
		t := strings.TrimSpace(line)
		if comment {
			if strings.Contains(t, "-->") {
				comment = false
			}
			continue
		}
		if fences.Step(line) {
			continue
		}
		if strings.HasPrefix(t, "<!--") {
			source = source || sourceMarker.MatchString(t)
			if !strings.Contains(t, "-->") {
				comment = true
			}
			continue
		}
		lines = append(lines, line)
	}
	return lines, source
}

// heading returns a line's heading level and text (0 for a line that is
// no ATX heading).
func heading(line string) (int, string) {
	t := strings.TrimSpace(line)
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, ""
	}
	return n, strings.TrimSpace(strings.TrimRight(t[n:], "# "))
}

// title is a document's first level-1 heading, "" for none.
func title(head []byte) string {
	lines, _ := mdLines(head)
	for _, l := range lines {
		if lvl, text := heading(l); lvl == 1 {
			return text
		}
	}
	return ""
}

// recognizeMarkdown says whether a Markdown document is a claim ledger by
// its format (claims with ids and statuses, skill/vibe/formats/
// claim-ledger.md) or a findings file: a findings title, a heading per
// finding id or a declared source JSON, and at least one reported number.
func recognizeMarkdown(f File) (Artifact, bool) {
	if l, _ := claim.ParseLedger(f.Head); len(l.Claims) > 0 {
		n := 0
		for _, c := range l.Claims {
			if c.ID != "" && c.Status != "" {
				n++
			}
		}
		if n > 0 {
			return Artifact{Kind: KindLedger, Why: "claims with ids and statuses in the ledger format"}, true
		}
	}
	lines, source := mdLines(f.Head)
	signal := ""
	if source {
		signal = "a declared source JSON"
	}
	numbers := false
	for _, l := range lines {
		lvl, text := heading(l)
		switch {
		case lvl == 1 && signal == "" && findingsTitle.MatchString(text):
			signal = "the title " + quote(text)
		case lvl >= 2 && signal == "" && findingHeading(text):
			signal = "the finding heading " + quote(text)
		}
		if !numbers && reportedNumber.MatchString(l) {
			numbers = true
		}
	}
	if signal == "" || !numbers {
		return Artifact{}, false
	}
	return Artifact{Kind: KindFindings, Why: "findings: " + signal + " and reported numbers"}, true
}

// findingHeading reports a heading that opens a finding: one that starts
// with a finding id by DQ4's rule ("## F1: …", "### F6b — …"), or "Finding
// 2".
func findingHeading(text string) bool {
	if findingNumber.MatchString(text) {
		return true
	}
	ids := gate.FindingIDs(text)
	return len(ids) > 0 && strings.HasPrefix(text, ids[0])
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return "“" + s + "”"
}
