package gate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDQ4SourceLineage: a source written by hand backs no number; one a
// computation wrote, or one whose origin is unknown, does; with two
// sources a number the computed one holds is fine.
func TestDQ4SourceLineage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("FINDINGS.json", `{"spearman_rho": 0.58, "n": 40}`)
	write("metrics.json", `{"auc": 0.86, "n": 40}`)
	md := write("FINDINGS.md", "# Findings\n\n## F1: rank agreement\n\nSpearman rho = 0.58 (n = 40).\n")
	both := write("BOTH.md", "# Findings\n<!-- source: FINDINGS.json -->\n<!-- source: metrics.json -->\n\n## F1: agreement\n\nrho 0.58 and AUC 0.86 (n = 40).\n")
	at := time.Date(2026, 11, 24, 10, 14, 0, 0, time.UTC)
	byHand := func(p string, raw []byte) (SourceOrigin, bool) {
		if filepath.Base(p) == "FINDINGS.json" {
			return SourceOrigin{Hand: true, By: "Write", At: at}, true
		}
		return SourceOrigin{}, false
	}
	computed := func(string, []byte) (SourceOrigin, bool) { return SourceOrigin{By: "python3 a.py"}, true }
	d := generic(t)

	res, err := DQ4FileFrom(md, nil, d, byHand)
	if err != nil {
		t.Fatal(err)
	}
	want := `line 5: 2 reported numbers rest on FINDINGS.json alone (0.58 (line 5), 40 (line 5)); FINDINGS.json was written by hand (Write) at 2026-11-24 10:14 UTC, and no computation produced it, so it backs no finding`
	c, ok := findCheck(res, "source_lineage")
	if res.Status != StatusFail || !ok || c.Status != StatusFail || c.Detail != want ||
		c.Fix != "re-run the script that computes FINDINGS.json through Bash (vibe records how it was made), then write the findings again" {
		t.Errorf("hand-written source: %s %+v\nwant detail %s", res.Status, c, want)
	}
	if _, ok := findCheck(res, "number"); ok {
		t.Errorf("the numbers are reported twice: %+v", res.Checks)
	}
	for name, o := range map[string]Origins{"computed": computed, "unknown": nil} {
		res, err := DQ4FileFrom(md, nil, d, o)
		if err != nil || res.Status == StatusFail {
			t.Errorf("%s source: %s %+v %v", name, res.Status, res.Checks, err)
		}
	}
	res, err = DQ4FileFrom(both, nil, d, byHand)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = findCheck(res, "source_lineage")
	if c.Detail != `line 7: 0.58 in "rho 0.58 and AUC 0.86 (n = 40)." rests on FINDINGS.json alone; FINDINGS.json was written by hand (Write) at 2026-11-24 10:14 UTC, and no computation produced it, so it backs no finding` {
		t.Errorf("two sources, one by hand: %+v", res.Checks)
	}
	// The proposed content of a write is judged the same way.
	res, _ = DQ4FileFrom(md, []byte("# Findings\n\nn = 40 sites.\n"), d, byHand)
	if c, ok := findCheck(res, "source_lineage"); !ok || c.Detail != `line 3: 40 in "n = 40 sites." rests on FINDINGS.json alone; FINDINGS.json was written by hand (Write) at 2026-11-24 10:14 UTC, and no computation produced it, so it backs no finding` {
		t.Errorf("proposed content: %+v", res.Checks)
	}
}

func findCheck(r Result, name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}
