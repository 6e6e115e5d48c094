package gatecheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/literature"
)

// QueriesLog is where a research question records its literature searches
// (skill/vibe/protocols/search-protocol.md), relative to its folder.
const QueriesLog = "01-discovery/queries.log"

// directionExts are the document types a direction is written in; the
// literature package applies the same list to file names.
var directionExts = map[string]bool{".md": true, ".markdown": true, ".json": true, ".yaml": true,
	".yml": true, ".txt": true}

// directionItems applies L-1 to the repository: every file that sets a
// research direction (literature.IsDirection) needs a literature record.
// CI cannot see the session's recorded searches, so the record it accepts
// is the one the search protocol asks for: a query line in the research
// question's 01-discovery/queries.log; a direction outside any research
// question accepts any research question's log, or
// .vibe-science/01-discovery/queries.log.
func (r *repo) directionItems() []Item {
	var items []Item
	for _, f := range r.files {
		rel := r.rel(f)
		if !directionExts[strings.ToLower(filepath.Ext(f))] {
			continue
		}
		content, ok := readSmall(f)
		if !ok || !literature.IsDirection(rel, content) {
			continue
		}
		it := Item{Gate: "L-1", File: rel}
		rq := r.rqOf(f)
		var logs []string
		if rq != "" {
			logs = []string{filepath.Join(rq, filepath.FromSlash(QueriesLog))}
		} else {
			for _, q := range r.rqs {
				logs = append(logs, filepath.Join(q, filepath.FromSlash(QueriesLog)))
			}
			logs = append(logs, filepath.Join(r.vibe, filepath.FromSlash(QueriesLog)))
		}
		found := false
		for _, l := range logs {
			if hasQuery(l) {
				found = true
				break
			}
		}
		if !found {
			var msg string
			if rq != "" {
				msg = fmt.Sprintf("it sets a research direction, but %s records no literature search (no query line in %s)",
					filepath.Base(rq), r.rel(logs[0]))
			} else {
				msg = "it sets a research direction, but no research question records a literature search (no query line in any RQ-*/" + QueriesLog + ")"
			}
			sources := "the domain's primary sources"
			if len(r.d.Literature.Primary) > 0 {
				sources += " are " + strings.Join(r.d.Literature.Primary, ", ")
			}
			it.Findings = append(it.Findings, Finding{Gate: "L-1", Level: Error, File: rel, Line: directionLine(content),
				Message: msg,
				Fix: fmt.Sprintf("search the literature before choosing the direction (/vibe:search; %s) and log each query in %s as `date | database | query | hits | notes`",
					sources, QueriesLog)})
		}
		items = append(items, it)
	}
	return items
}

// hasQuery reports whether a queries log holds at least one query line: a
// line that is not blank, not a # comment, and has at least three
// non-empty fields separated by |, as the search protocol writes them
// (date | database | query | hits | notes). A placeholder line does not
// count as a search.
func hasQuery(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		n := 0
		for _, field := range strings.Split(t, "|") {
			if strings.TrimSpace(field) != "" {
				n++
			}
		}
		if n >= 3 {
			return true
		}
	}
	return false
}

// directionLine is the line of the first "## Research direction" heading,
// or 0 when the file is a direction by its name or a tree node.
func directionLine(content []byte) int {
	for i, line := range bytes.Split(content, []byte("\n")) {
		t := strings.ToLower(strings.TrimSpace(string(line)))
		if strings.HasPrefix(t, "## research direction") {
			return i + 1
		}
	}
	return 0
}
