package observer

import (
	"fmt"
	"testing"
	"time"
)

func stales(as []Alert) []string {
	var out []string
	for _, a := range as {
		if a.Check == CheckStale {
			s := a.Level + " " + a.Message
			if a.Resolved {
				s += " (" + a.Resolution + ")"
			}
			out = append(out, s)
		}
	}
	return out
}

// TestFindingsStale replays the blueprint's M6: a new run rewrites
// FINDINGS.json and FINDINGS.md keeps the old numbers.
func TestFindingsStale(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.write("RQ-001/04-results/FINDINGS.md", "# Findings\n\nAUC 0.811 on n = 57 guides.\n", t0)
	e.write("RQ-001/04-results/FINDINGS.json", `{"auc": 0.8107, "n": 57}`, t0.Add(-time.Minute))
	if got := stales(e.run(t0.Add(time.Hour))); got != nil {
		t.Fatalf("in step: %q", got)
	}

	// The script runs again: a new AUC.
	e.write("RQ-001/04-results/FINDINGS.json", `{"auc": 0.7342, "n": 57}`, t0.Add(2*time.Hour))
	if got := stales(e.run(t0.Add(2*time.Hour + 10*time.Minute))); got != nil {
		t.Fatalf("within the lag the write-up may still follow: %q", got)
	}
	got := stales(e.run(t0.Add(3 * time.Hour)))
	want := []string{`WARN .vibe-science/RQ-001/04-results/FINDINGS.md no longer matches FINDINGS.json, which changed 2 h after it (single source of truth, gate DQ4): line 3: 0.811 in "AUC 0.811 on n = 57 guides." matches no number in FINDINGS.json (nearest: 0.7342). Rewrite the findings from the JSON; DQ4 checks them at the write.`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stale:\n%q\nwant\n%q", got, want)
	}
	// Still stale on the next run: not raised again.
	if got := stales(e.run(t0.Add(4 * time.Hour))); got != nil {
		t.Fatalf("raised twice: %q", got)
	}
	// The findings are rewritten from the JSON: resolved.
	e.write("RQ-001/04-results/FINDINGS.md", "# Findings\n\nAUC 0.734 on n = 57 guides.\n", t0.Add(5*time.Hour))
	e.run(t0.Add(5 * time.Hour))
	if got := stales(e.all()); len(got) != 1 || got[0] != want[0]+" (observer: the findings match their JSON again)" {
		t.Fatalf("after the rewrite: %q", got)
	}
}
