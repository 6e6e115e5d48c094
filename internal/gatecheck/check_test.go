package gatecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixture copies the clean repository of testdata/repo into a temporary
// folder and applies fault overlays from testdata/faults/<name>: their
// files replace or join the repository's, and the paths listed in an
// overlay's _remove file are deleted.
func fixture(t *testing.T, faults ...string) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, filepath.Join("testdata", "repo"), root)
	for _, fault := range faults {
		if fault != "" {
			applyOverlay(t, root, fault)
		}
	}
	return root
}

func applyOverlay(t *testing.T, root, fault string) {
	t.Helper()
	overlay := filepath.Join("testdata", "faults", fault)
	if _, err := os.Stat(overlay); err != nil {
		t.Fatalf("no overlay for %s: %v", fault, err)
	}
	copyTree(t, overlay, root)
	rm := filepath.Join(root, "_remove")
	if raw, err := os.ReadFile(rm); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if p := strings.TrimSpace(sc.Text()); p != "" {
				if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Fatal(err)
				}
			}
		}
		os.Remove(rm)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, raw, 0o644); err != nil {
			return err
		}
		// A fixed time, so that what a report derives from a file's time
		// (the date a deviation is suggested under) is the same whatever
		// day the test runs.
		return os.Chtimes(target, fixtureTime, fixtureTime)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fixtureTime is the modification time of every copied fixture file.
var fixtureTime = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// golden compares got with testdata/golden/name, or rewrites it with
// -update. JSON goldens are compared as canonical JSON.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if strings.HasSuffix(name, ".json") {
		got, want = canonical(t, got), canonical(t, want)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func canonical(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	out, err := verdict.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gateCheckCases are the repository states: the clean fixture and one fault
// per failure category, each naming the rules that must report an error
// (and, for warning-only states, a warning). The exact text and JSON are in
// testdata/golden/<name>.txt and .json.
var gateCheckCases = []struct {
	name     string
	errors   []string // rules with an error finding
	warnings []string // rules with a warning finding
}{
	{name: "clean"},
	{name: "dq4-typo", errors: []string{"DQ4", RulePromotion}},
	{name: "findings-no-source", errors: []string{"DQ4", RulePromotion}, warnings: []string{RuleLedger}},
	{name: "ledger-unparseable", errors: []string{RuleLedger}},
	{name: "salvage-missing", errors: []string{RuleLedger}},
	{name: "promotion-without-artifacts", errors: []string{RulePromotion}},
	{name: "promotion-auc-below-baseline", errors: []string{"DQ2", RulePromotion}},
	{name: "promotion-without-review", errors: []string{RulePromotion}},
	{name: "promotion-without-d1", errors: []string{RulePromotion}},
	{name: "unreviewed-claim", errors: []string{RuleReview}},
	{name: "direction-without-literature", errors: []string{"L-1"}},
	{name: "direction-placeholder-log", errors: []string{"L-1"}},
	{name: "circular-promoted", errors: []string{RuleCircular}},
	{name: "circular-provisional", warnings: []string{RuleCircular}},
	{name: "dd0-undocumented-column", errors: []string{"DD0"}},
	{name: "dd0-no-dictionary", errors: []string{"DD0"}},
	{name: "dq1-constant-column", errors: []string{"DQ1", RulePromotion}},
	{name: "dq1-leakage", errors: []string{"DQ1", RulePromotion}},
	{name: "dq3-perfect-coverage", errors: []string{"DQ3"}},
	{name: "dc0-unplanned-file", errors: []string{RulePromotion}, warnings: []string{"DC0"}}, // a scratch file warns; promoting needs DC0 to pass
	{name: "schema-invalid-b0", errors: []string{"B0"}},
	{name: "domain-config-unknown-key", errors: []string{RuleDomainConfig}},
	{name: "evidence-missing", warnings: []string{RuleLedger}},
	{name: "citation-cannot-exist", warnings: []string{RuleCitation}},
}

// checkClock is the clock of the citation rule in the fixture states.
var checkClock = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func TestGateCheckFixtureStates(t *testing.T) {
	for _, tc := range gateCheckCases {
		t.Run(tc.name, func(t *testing.T) {
			fault := tc.name
			if fault == "clean" {
				fault = ""
			}
			rep, err := Check(fixture(t, fault), Options{Now: checkClock})
			if err != nil {
				t.Fatal(err)
			}
			var errs, warns []string
			for _, f := range rep.Findings() {
				if f.Level == Error {
					errs = appendOnce(errs, f.Gate)
				} else {
					warns = appendOnce(warns, f.Gate)
				}
			}
			sort.Strings(errs)
			sort.Strings(warns)
			wantErrs := append([]string(nil), tc.errors...)
			wantWarns := append([]string(nil), tc.warnings...)
			sort.Strings(wantErrs)
			sort.Strings(wantWarns)
			if !reflect.DeepEqual(errs, wantErrs) {
				t.Errorf("rules with errors = %q, want %q", errs, wantErrs)
			}
			if !reflect.DeepEqual(warns, wantWarns) {
				t.Errorf("rules with warnings = %q, want %q", warns, wantWarns)
			}
			if got, want := rep.Failed(), len(tc.errors) > 0; got != want {
				t.Errorf("Failed() = %v, want %v", got, want)
			}
			var text, js bytes.Buffer
			if err := WriteText(&text, rep); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, rep); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".txt", text.Bytes())
			golden(t, tc.name+".json", js.Bytes())
		})
	}
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func TestGateCheckRootErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		if _, err := Check(root, Options{}); err == nil {
			t.Errorf("Check(%s) succeeded, want an error", root)
		}
	}
}

func TestGateCheckEmptyRepository(t *testing.T) {
	rep, err := Check(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "vibe gate check (domain generic): 0 checked, 0 passed, 0 warned, 0 failed; 0 errors, 0 warnings: PASS\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	if b.String() != "[]\n" {
		t.Errorf("JSON of a clean repository = %q, want []", b.String())
	}
}

func TestGateCheckSkipsTestdataAndHiddenFolders(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"testdata", ".cache", "node_modules"} {
		p := filepath.Join(root, dir, "FINDINGS.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("AUC 0.91 on n = 10.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Check(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) != 0 {
		t.Errorf("judged %+v, want nothing", rep.Items)
	}
}

func TestGateCheckOptionsDomain(t *testing.T) {
	// A domain passed in replaces the project's config, invalid or not.
	root := fixture(t, "domain-config-unknown-key")
	d := mustDomain(t, "particle-physics")
	rep, err := Check(root, Options{Domain: &d})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Domain != "particle-physics" {
		t.Errorf("domain = %q", rep.Domain)
	}
	for _, it := range rep.Items {
		if it.Gate == RuleDomainConfig {
			t.Errorf("the domain config was judged although a domain was given: %+v", it)
		}
	}
}

func mustDomain(t *testing.T, name string) gate.Domain {
	t.Helper()
	d, err := gate.ShippedDomain(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
