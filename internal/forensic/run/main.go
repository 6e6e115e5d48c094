// Command run executes the forensic checklist (internal/forensic) with
// `go test -json`, prints a scored table per section, and exits 1 when a
// section is under its threshold. `make forensic` runs it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/vibe-science/vibe/internal/forensic"
)

type key struct{ pkg, tags string }

func main() {
	groups := map[key][]string{}
	for _, it := range forensic.Checklist {
		for _, pr := range it.Probes {
			k := key{pr.Pkg, pr.Tags}
			groups[k] = append(groups[k], pr.Test)
		}
	}
	results := map[string]string{} // pkg|test -> pass/fail/skip
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].pkg+keys[i].tags < keys[j].pkg+keys[j].tags })
	for _, k := range keys {
		names := dedup(groups[k])
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = regexp.QuoteMeta(n)
		}
		args := []string{"test", "-json", "-count=1", "-timeout", "20m", "-run", "^(" + strings.Join(quoted, "|") + ")$"}
		if k.tags != "" {
			args = append(args, "-tags", "sqlite_fts5 "+k.tags)
		}
		args = append(args, k.pkg)
		fmt.Fprintf(os.Stderr, "forensic: go test %s (%d tests)\n", k.pkg, len(names))
		cmd := exec.Command("go", args...)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = os.Stderr
		_ = cmd.Run() // failures are read from the JSON
		sc := bufio.NewScanner(&out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev struct{ Action, Test string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" || strings.Contains(ev.Test, "/") {
				continue
			}
			switch ev.Action {
			case "pass", "fail", "skip":
				results[k.pkg+"|"+ev.Test] = ev.Action
			}
		}
	}

	type score struct{ pass, total int }
	sections := map[string]*score{}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ITEM\tRESULT\tCHECK\tEVIDENCE")
	for _, it := range forensic.Checklist {
		sec := it.ID[:1]
		if sections[sec] == nil {
			sections[sec] = &score{}
		}
		if it.NA != "" {
			fmt.Fprintf(w, "%s\tn/a\t%s\t%s\n", it.ID, it.Text, it.NA)
			continue
		}
		ok := true
		var ev []string
		for _, pr := range it.Probes {
			r := results[pr.Pkg+"|"+pr.Test]
			if r == "" {
				r = "not run"
			}
			if r != "pass" {
				ok = false
			}
			ev = append(ev, fmt.Sprintf("%s %s: %s", strings.TrimPrefix(pr.Pkg, "./"), pr.Test, r))
		}
		res := "FAIL"
		sections[sec].total++
		if ok {
			res = "PASS"
			sections[sec].pass++
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.ID, res, it.Text, strings.Join(ev, "; "))
	}
	w.Flush()
	fmt.Println()
	failed := false
	secs := make([]string, 0, len(sections))
	for s := range sections {
		secs = append(secs, s)
	}
	sort.Strings(secs)
	for _, s := range secs {
		sc := sections[s]
		share := 1.0
		if sc.total > 0 {
			share = float64(sc.pass) / float64(sc.total)
		}
		need := forensic.Thresholds[s]
		mark := "ok"
		if share < need {
			mark, failed = "BELOW THRESHOLD", true
		}
		fmt.Printf("section %s: %d/%d = %.0f%% (needs %.0f%%) %s\n", s, sc.pass, sc.total, share*100, need*100, mark)
	}
	if failed {
		os.Exit(1)
	}
}

func dedup(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
