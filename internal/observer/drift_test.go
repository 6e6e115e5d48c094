package observer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

const driftDesign = `# Design: Off-target prediction
- rq: RQ-001

## Planned steps

### Step 1: Download GUIDE-seq and CHANGE-seq
- inputs: none
- outputs: 02-data/raw/guideseq.csv, 02-data/raw/changeseq.csv

### Step 2: Train
- inputs: 02-data/raw/guideseq.csv, 02-data/raw/changeseq.csv
- outputs: 04-results/metrics.json

## Deviations

None yet.
`

// commands records spine entries whose input summaries are the given
// texts, one a minute from start.
func (e *env) commands(start time.Time, texts ...string) {
	e.t.Helper()
	ctx := context.Background()
	err := e.st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: e.proj.Root, At: start}); err != nil {
			return err
		}
		for i, text := range texts {
			e.n++
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "s1", ProjectPath: e.proj.Root,
				At: start.Add(time.Duration(i) * time.Minute), ActionType: "CODE_RUN", ToolName: "Bash",
				ToolUseID: fmt.Sprintf("t%d", e.n), InputSummary: text}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func drifts(as []Alert) []string {
	var out []string
	for _, a := range as {
		if a.Check == CheckDrift {
			s := a.Level + " " + a.Fingerprint
			if a.Resolved {
				s += " (" + a.Resolution + ")"
			}
			out = append(out, s)
		}
	}
	return out
}

func driftMessage(as []Alert) string {
	for _, a := range as {
		if a.Check == CheckDrift {
			return a.Message
		}
	}
	return ""
}

func texts(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// TestDesignDriftM2 replays the blueprint's M2: GUIDE-seq and CHANGE-seq
// are planned and downloaded, the analysis reads only GUIDE-seq.
func TestDesignDriftM2(t *testing.T) {
	e := newEnv(t)
	e.write("STATE.md", goodState, t0)
	e.write("RQ-001-offtarget/DESIGN.md", driftDesign, t0)
	e.write("RQ-001-offtarget/02-data/raw/guideseq.csv", "a,b\n1,2\n", t0)
	e.write("RQ-001-offtarget/02-data/raw/changeseq.csv", "a,b\n1,2\n", t0)

	if got := drifts(e.run(t0)); got != nil {
		t.Fatalf("first sight: %q", got)
	}
	e.commands(t0.Add(time.Minute), texts(31, "$ python 03-analysis/train.py --in 02-data/raw/guideseq.csv --seed %d")...)
	got := e.run(t0.Add(40 * time.Minute))
	if want := []string{"WARN design-drift:.vibe-science/RQ-001-offtarget:02-data/raw/changeseq.csv"}; fmt.Sprint(drifts(got)) != fmt.Sprint(want) {
		t.Fatalf("after 31 actions: %q, want %q", drifts(got), want)
	}
	var msg string
	for _, a := range got {
		if a.Check == CheckDrift {
			msg = a.Message
		}
	}
	want := "Dataset 02-data/raw/changeseq.csv (planned in DESIGN.md, step 1) of .vibe-science/RQ-001-offtarget has not been read by any action or analysis script since vibe learned of it (40 min ago, 30 or more recorded actions since; design drift, and DC0 compares the design with what was done): use it in an analysis script, or log why it is not used as a deviation (### DEV-NNN: YYYY-MM-DD with what and why, naming the file) in .vibe-science/RQ-001-offtarget/DESIGN.md or .vibe-science/RQ-001-offtarget/DEVIATIONS.md."
	if msg != want {
		t.Fatalf("message\n%s\nwant\n%s", msg, want)
	}
	// Same situation, next run: not raised twice.
	if got := drifts(e.run(t0.Add(41 * time.Minute))); got != nil {
		t.Fatalf("raised twice: %q", got)
	}

	// A script under 03-analysis that loads it resolves the alert, at the
	// next search of the scripts (at most scriptRescan after the last).
	e.write("RQ-001-offtarget/03-analysis/compare.py", "import pandas as pd\nc = pd.read_csv('../02-data/raw/ChangeSeq.csv')\n", t0.Add(42*time.Minute))
	e.run(t0.Add(43 * time.Minute))
	if got := drifts(e.open()); len(got) != 1 {
		t.Fatalf("before the rescan: %q", got)
	}
	e.run(t0.Add(40*time.Minute + scriptRescan))
	if got := drifts(e.all()); fmt.Sprint(got) != "[WARN design-drift:.vibe-science/RQ-001-offtarget:02-data/raw/changeseq.csv (observer: the dataset was read, logged as a deviation, or is gone)]" {
		t.Fatalf("after the script: %q", got)
	}
}

func TestDesignDriftPlannedAbsent(t *testing.T) {
	// Both datasets planned, neither downloaded: a plan is not drift while
	// the work that should use it has not started.
	e := newEnv(t)
	e.write("RQ-001-offtarget/DESIGN.md", driftDesign, t0)
	e.run(t0)
	e.commands(t0.Add(time.Minute), texts(40, "$ search literature %d")...)
	if got := drifts(e.run(t0.Add(time.Hour))); got != nil {
		t.Fatalf("before any data is used: %q", got)
	}
	// GUIDE-seq arrives and is used: CHANGE-seq's clock starts then.
	e.write("RQ-001-offtarget/02-data/raw/guideseq.csv", "a\n1\n", t0.Add(time.Hour))
	e.commands(t0.Add(61*time.Minute), "$ python 03-analysis/train.py 02-data/raw/guideseq.csv")
	if got := drifts(e.run(t0.Add(62 * time.Minute))); got != nil {
		t.Fatalf("right after the first use: %q", got)
	}
	e.commands(t0.Add(63*time.Minute), texts(30, "$ python 03-analysis/train.py --seed %d")...)
	got := e.run(t0.Add(100 * time.Minute))
	if want := "[WARN design-drift:.vibe-science/RQ-001-offtarget:02-data/raw/changeseq.csv]"; fmt.Sprint(drifts(got)) != want {
		t.Fatalf("30 actions after the first use: %q, want %s", drifts(got), want)
	}
	if m := driftMessage(got); !strings.Contains(m, "(39 min ago, 30 or more recorded actions since;") {
		t.Errorf("message %q", m)
	}
}

func TestDesignDriftReadBeforePlanned(t *testing.T) {
	// changeseq.csv is read, then the design plans it: the read counts.
	e := newEnv(t)
	e.write("RQ-001-offtarget/02-data/raw/guideseq.csv", "a\n1\n", t0)
	e.run(t0)
	e.commands(t0.Add(time.Minute), "$ head 02-data/raw/changeseq.csv", "$ python 03-analysis/a.py raw/guideseq.csv")
	e.run(t0.Add(5 * time.Minute))
	e.write("RQ-001-offtarget/DESIGN.md", driftDesign, t0.Add(6*time.Minute))
	e.run(t0.Add(7 * time.Minute))
	e.commands(t0.Add(8*time.Minute), texts(31, "$ ls %d")...)
	if got := drifts(e.run(t0.Add(time.Hour))); got != nil {
		t.Fatalf("got %q", got)
	}
}

func TestDesignDriftDeviationAndHours(t *testing.T) {
	t.Run("a deviation naming the dataset accepts it", func(t *testing.T) {
		e := newEnv(t)
		e.write("RQ-001-offtarget/DESIGN.md", driftDesign, t0)
		e.write("RQ-001-offtarget/DEVIATIONS.md", "### DEV-001: 2026-11-22\n- step: 1\n- what: CHANGE-seq left out\n- why: its guides overlap none of ours\n- files: 02-data/raw/changeseq.csv\n", t0)
		e.run(t0)
		e.commands(t0.Add(time.Minute), texts(31, "$ python train.py guideseq.csv %d")...)
		if got := drifts(e.run(t0.Add(time.Hour))); got != nil {
			t.Fatalf("with the deviation: %q", got)
		}
	})
	t.Run("hours count too, and a read path counts as use", func(t *testing.T) {
		e := newEnv(t)
		e.write("RQ-001-offtarget/02-data/raw/guideseq.csv", "a\n1\n", t0)
		e.write("RQ-001-offtarget/02-data/raw/circleseq.tsv", "a\n1\n", t0)
		e.run(t0)
		e.commands(t0.Add(time.Minute), "read .vibe-science/RQ-001-offtarget/02-data/raw/guideseq.csv")
		if got := drifts(e.run(t0.Add(23 * time.Hour))); got != nil {
			t.Fatalf("23 h: %q", got)
		}
		got := e.run(t0.Add(25 * time.Hour))
		if want := "[WARN design-drift:.vibe-science/RQ-001-offtarget:02-data/raw/circleseq.tsv]"; fmt.Sprint(drifts(got)) != want {
			t.Fatalf("25 h: %q, want %s", drifts(got), want)
		}
		if m := driftMessage(got); !strings.HasPrefix(m, "Dataset 02-data/raw/circleseq.tsv (in 02-data/raw/) of .vibe-science/RQ-001-offtarget has not been read by any action or analysis script since vibe learned of it (25 h ago; design drift") {
			t.Errorf("message %q", m)
		}
	})
	t.Run("domain config sets the thresholds", func(t *testing.T) {
		e := newEnv(t)
		e.write("domain-config.json", `{"domain": "generic", "observer": {"design_drift_actions": 3, "design_drift_hours": 1000}}`, t0)
		e.write("RQ-001-offtarget/02-data/raw/guideseq.csv", "a\n1\n", t0)
		e.run(t0)
		e.commands(t0.Add(time.Minute), "$ ls", "$ ls", "$ ls")
		if got := drifts(e.run(t0.Add(5 * time.Minute))); len(got) != 1 {
			t.Fatalf("after 3 actions with design_drift_actions 3: %q", got)
		}
	})
}

func TestDesignDriftGlobsAndCollections(t *testing.T) {
	t.Run("a glob over the raw folder uses what it matches", func(t *testing.T) {
		e := newEnv(t)
		for _, n := range []string{"a.csv", "b.csv", "notes.tsv", "a.csv.md5", "README", "MANIFEST.txt"} {
			e.write("RQ-001-x/02-data/raw/"+n, "x\n", t0)
		}
		e.write("RQ-001-x/03-analysis/load.py", "import glob\nfiles = glob.glob('../02-data/raw/*.CSV')\n", t0)
		e.run(t0)
		e.commands(t0.Add(time.Minute), texts(31, "$ python 03-analysis/load.py %d")...)
		got := e.run(t0.Add(time.Hour))
		if want := "[WARN design-drift:.vibe-science/RQ-001-x:02-data/raw/notes.tsv]"; fmt.Sprint(drifts(got)) != want {
			t.Fatalf("got %q, want %s", drifts(got), want)
		}
	})
	t.Run("one alert per research question lists every unused dataset", func(t *testing.T) {
		e := newEnv(t)
		e.write("RQ-001-x/02-data/raw/a.csv", "x\n", t0)
		e.write("RQ-001-x/02-data/raw/b.csv", "x\n", t0)
		e.run(t0)
		e.commands(t0.Add(time.Minute), texts(31, "$ ls %d")...)
		got := e.run(t0.Add(time.Hour))
		if want := "[WARN design-drift:.vibe-science/RQ-001-x:02-data/raw/a.csv,02-data/raw/b.csv]"; fmt.Sprint(drifts(got)) != want {
			t.Fatalf("got %q, want %s", drifts(got), want)
		}
		if m := driftMessage(got); !strings.HasPrefix(m, "2 datasets of .vibe-science/RQ-001-x, 02-data/raw/a.csv (in 02-data/raw/), 02-data/raw/b.csv (in 02-data/raw/), have not been read") {
			t.Errorf("message %q", m)
		}
	})
	t.Run("a raw folder of many entries is a collection", func(t *testing.T) {
		e := newEnv(t)
		for i := 0; i <= maxRawEntries; i++ {
			e.write(fmt.Sprintf("RQ-001-x/02-data/raw/batch%03d/r.csv", i), "x\n", t0)
		}
		e.run(t0)
		e.commands(t0.Add(time.Minute), texts(31, "$ ls %d")...)
		if got := drifts(e.run(t0.Add(48 * time.Hour))); got != nil {
			t.Fatalf("got %q", got)
		}
	})
}

func TestRawGlobs(t *testing.T) {
	got := rawGlobs(strings.ToLower(`for f in 02-data/raw/*.csv; do x; done; read("raw/batch*/reads.fq") and raw/plain.csv`))
	if want := []string{"raw/*.csv", "raw/batch*/reads.fq"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rawGlobs = %q, want %q", got, want)
	}
	for _, c := range []struct {
		glob, rel string
		want      bool
	}{
		{"raw/*.csv", "02-data/raw/a.csv", true},
		{"raw/*.csv", "02-data/raw/a.tsv", false},
		{"raw/batch*/reads.fq", "02-data/raw/batch01", true},
		{"raw/*", "02-data/raw/sub/x.csv", false},
	} {
		if got := globUses(c.glob, c.rel); got != c.want {
			t.Errorf("globUses(%s, %s) = %v", c.glob, c.rel, got)
		}
	}
}

func TestRecordDownload(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p := e.write("RQ-001-offtarget/02-data/raw/changeseq.csv", "a,b\n1,2\n", t0)
	// Downloaded an hour before vibe first looks: the clock starts at the download.
	d, err := RecordDownload(ctx, e.st, e.proj, "s1", "https://example.org/changeseq.csv", p, "", t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a,b\n1,2\n"))
	if d.Path != ".vibe-science/RQ-001-offtarget/02-data/raw/changeseq.csv" || d.Size != 8 || d.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("download %+v", d)
	}
	got, err := e.st.Downloads(ctx, e.proj.Root)
	if err != nil || len(got) != 1 || got[0].SHA256 != d.SHA256 || got[0].URL != "https://example.org/changeseq.csv" {
		t.Fatalf("stored %+v, %v", got, err)
	}
	as := e.run(t0.Add(23*time.Hour + 30*time.Minute))
	if fmt.Sprint(drifts(as)) != "[WARN design-drift:.vibe-science/RQ-001-offtarget:02-data/raw/changeseq.csv]" {
		t.Fatalf("24.5 h after the download: %q", drifts(as))
	}
	if m := driftMessage(as); !strings.HasPrefix(m, "Dataset 02-data/raw/changeseq.csv (downloaded) of .vibe-science/RQ-001-offtarget has not been read by any action or analysis script since vibe learned of it (24 h ago; design drift") {
		t.Errorf("message %q", m)
	}
	// A file not there yet is recorded without a checksum; a given one is kept.
	d2, err := RecordDownload(ctx, e.st, e.proj, "s1", "https://example.org/x.bam", filepath.Join("a", "x.bam"), "ffee", t0)
	if err != nil || d2.Size != -1 || d2.SHA256 != "ffee" || d2.Path != "a/x.bam" {
		t.Fatalf("absent file: %+v %v", d2, err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}

// TestDesignDriftWithoutNames replays M2 in a project that names nothing
// as the skill does: the datasets are planned as what a step that reads
// nothing brings in and as inputs no step makes, one is downloaded to the
// project's own data folder, and the analysis scripts live at the
// project's analysis/, found through the commands that ran them.
func TestDesignDriftWithoutNames(t *testing.T) {
	const design = `# Design: cleavage at candidate sites
- rq: RQ-001

## Planned steps

### Step 1: Collect the assays
- inputs: none
- outputs: data/external/CHANGEseq_offtargets.tsv

### Step 2: Build the site matrix
- inputs: inputs/GUIDEseq_identifiedOfftargets.txt, data/external/CHANGEseq_offtargets.tsv
- outputs: tables/site_matrix.csv

### Step 3: Fit
- inputs: tables/site_matrix.csv
- outputs: out/scores.json

## Deviations

None yet.
`
	e := newEnv(t)
	e.write("RQ-001-sites/DESIGN.md", design, t0)
	e.write("RQ-001-sites/inputs/GUIDEseq_identifiedOfftargets.txt", "Targetsite\tbi.sum.mi\nEMX1\t12\n", t0)
	e.writeProject("analysis/build_matrix.py", "import pandas as pd\ng = pd.read_csv('.vibe-science/RQ-001-sites/inputs/GUIDEseq_identifiedOfftargets.txt', sep='\\t')\n", t0)
	p := e.writeProject("data/external/CHANGEseq_offtargets.tsv", "a\tb\n1\t2\n", t0)
	if _, err := RecordDownload(context.Background(), e.st, e.proj, "s1", "https://example.org/changeseq.tsv", p, "", t0); err != nil {
		t.Fatal(err)
	}
	e.run(t0)
	e.commands(t0.Add(time.Minute), texts(31, "$ python3 analysis/build_matrix.py --seed %d")...)
	got := e.run(t0.Add(time.Hour))
	if want := "[WARN design-drift:.vibe-science/RQ-001-sites:data/external/CHANGEseq_offtargets.tsv]"; fmt.Sprint(drifts(got)) != want {
		t.Fatalf("got %q, want %s", drifts(got), want)
	}
	if m := driftMessage(got); !strings.HasPrefix(m, "Dataset data/external/CHANGEseq_offtargets.tsv (planned in DESIGN.md, step 1) of .vibe-science/RQ-001-sites has not been read") {
		t.Errorf("message %q", m)
	}
	// What steps make from what they read is no dataset.
	planned, _ := plannedDatasets(mustDesign(t, design))
	if fmt.Sprint(planned) != "[data/external/CHANGEseq_offtargets.tsv inputs/GUIDEseq_identifiedOfftargets.txt]" {
		t.Errorf("planned %q", planned)
	}
}

// writeProject writes a file at the project root, outside .vibe-science.
func (e *env) writeProject(rel, content string, mtime time.Time) string {
	e.t.Helper()
	p := filepath.Join(e.proj.Root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	os.Chtimes(p, mtime, mtime)
	return p
}

func mustDesign(t *testing.T, text string) gate.Design {
	t.Helper()
	d, err := gate.ParseDesign([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
