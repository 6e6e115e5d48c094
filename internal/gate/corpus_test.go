package gate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// expectation is a state's expect.json (format: testdata/faults/README.md).
type expectation struct {
	Gate           string          `json:"gate"`
	Expect         Status          `json:"expect"`
	Why            string          `json:"why"`
	Inputs         json.RawMessage `json:"inputs"`
	ReasonContains []string        `json:"reason_contains"`
}

type stateInputs struct {
	Features string `json:"features"`
	// PreviousFeatures is an earlier version of the features table: its
	// DQ1 profile is passed as Inputs.PreviousProfile.
	PreviousFeatures string   `json:"previous_features"`
	Metrics          string   `json:"metrics"`
	Calibration      string   `json:"calibration"`
	Findings         string   `json:"findings"`
	Dictionary       string   `json:"dictionary"`
	Columns          []string `json:"columns"`
	Design           string   `json:"design"`
	Deviations       string   `json:"deviations"`
	Executed         []string `json:"executed"`
	Artifact         string   `json:"artifact"`
}

// corpusRunners compute a state's gate; a state naming a gate without a
// runner fails, so no state is silently skipped.
var corpusRunners = map[string]func(dir string, raw json.RawMessage) (Result, error){}

func init() {
	fileGate := func(dir string, raw json.RawMessage, id string) (Result, error) {
		var in stateInputs
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return Result{}, err
		}
		d, err := LoadDomain(dir)
		if err != nil {
			return Result{}, err
		}
		join := func(p string) string {
			if p == "" {
				return ""
			}
			return filepath.Join(dir, p)
		}
		var prev *TableProfile
		if in.PreviousFeatures != "" {
			r, err := DQ1(join(in.PreviousFeatures), d)
			if err != nil {
				return Result{}, err
			}
			prev = r.Profile
		}
		return Run(id, Inputs{
			Features: join(in.Features), Metrics: join(in.Metrics), Calibration: join(in.Calibration),
			Findings: join(in.Findings), Dictionary: join(in.Dictionary), Columns: in.Columns,
			Design: join(in.Design), Deviations: join(in.Deviations), Executed: in.Executed, Artifact: join(in.Artifact),
			PreviousProfile: prev,
		}, d)
	}
	for _, g := range Registry() {
		if g.Kind == KindPrompt || g.ID == "L-1" {
			continue
		}
		id := g.ID
		corpusRunners[id] = func(dir string, raw json.RawMessage) (Result, error) { return fileGate(dir, raw, id) }
	}
}

// TestFaultCorpus walks testdata/faults: every faulty state must fail with
// its gate, every clean state must pass, and each verdict must equal its
// golden file.
func TestFaultCorpus(t *testing.T) {
	root := filepath.Join("testdata", "faults")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Status]int{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			var ex expectation
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&ex); err != nil {
				t.Fatalf("expect.json: %v", err)
			}
			if ex.Why == "" || (ex.Expect != StatusPass && ex.Expect != StatusWarn && ex.Expect != StatusFail) {
				t.Fatalf("expect.json needs a why and an expect of PASS, WARN or FAIL")
			}
			run, ok := corpusRunners[ex.Gate]
			if !ok {
				t.Fatalf("no runner for gate %q: add one to corpusRunners", ex.Gate)
			}
			res, err := run(dir, ex.Inputs)
			if err != nil {
				t.Fatalf("run %s: %v", ex.Gate, err)
			}
			counts[ex.Expect]++
			v := res.Verdict()
			if res.Gate != ex.Gate {
				t.Errorf("result of gate %s, want %s", res.Gate, ex.Gate)
			}
			if res.Status != ex.Expect {
				t.Errorf("%s: got %s, want %s (%s)\n%s", ex.Gate, res.Status, ex.Expect, ex.Why, v.Reason)
			}
			for _, c := range ex.ReasonContains {
				if !strings.Contains(v.Reason, c) {
					t.Errorf("reason %q lacks %q", v.Reason, c)
				}
			}
			golden(t, filepath.Join(dir, "verdict.golden.json"), v)
		})
	}
	if counts[StatusFail] < 30 || counts[StatusPass] < 15 {
		t.Errorf("corpus has %d faulty and %d clean states; want at least 30 and 15", counts[StatusFail], counts[StatusPass])
	}
}

// golden compares v as canonical JSON with the file, or rewrites it with
// -update.
func golden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := verdict.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -run %s -update)", err, t.Name())
	}
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("golden file %s: %v", path, err)
	}
	wantCanon, _ := verdict.Canonical(w)
	if !bytes.Equal(got, wantCanon) {
		t.Errorf("verdict differs from %s:\n got %s\nwant %s", path, got, wantCanon)
	}
}

// TestCorpusRunnersCover keeps the runner table honest: every code and
// schema gate but L-1 has one.
func TestCorpusRunnersCover(t *testing.T) {
	var ids []string
	for id := range corpusRunners {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	want := []string{"B0", "D1", "D2", "DC0", "DD0", "DQ1", "DQ2", "DQ3", "DQ4", "J0", "L0", "L2", "S4", "S5", "V0"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("runners %q, want %q", ids, want)
	}
}
