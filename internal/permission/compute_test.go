package permission

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// computeCase is one line of testdata/compute.jsonl (see compute.md).
type computeCase struct {
	ID      string            `json:"id"`
	Source  string            `json:"source"`
	Command string            `json:"command"`
	Files   map[string]string `json:"files"`
	Bare    Action            `json:"bare"`   // without an allowance
	Within  Action            `json:"within"` // with corpusAllowance
	Note    string            `json:"note"`
}

// corpusAllowance is the allowance compute.jsonl's "within" column is
// judged under: {"max_time": "01:00:00", "max_gpu_hours": 2}.
var corpusAllowance = &Allowance{MaxTime: time.Hour, MaxGPUHours: 2}

func readComputeCorpus(t *testing.T) []computeCase {
	t.Helper()
	f, err := os.Open("testdata/compute.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []computeCase
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var c computeCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("compute.jsonl:%d: %v", n, err)
		}
		if c.ID == "" || ids[c.ID] || c.Command == "" || c.Bare == "" || c.Within == "" {
			t.Fatalf("compute.jsonl:%d: id, command, bare and within are required and ids unique", n)
		}
		ids[c.ID] = true
		out = append(out, c)
	}
	return out
}

// TestComputeCorpus: the job submissions of compute.jsonl, written the
// way Slurm's, PBS's and LSF's documentation shows them, are asked
// without an allowance and asked or let through under one as the corpus
// says; the ordinary commands beside them are never asked.
func TestComputeCorpus(t *testing.T) {
	corpus := readComputeCorpus(t)
	if len(corpus) < 100 {
		t.Fatalf("the corpus has %d commands, want at least 100", len(corpus))
	}
	p := Default()
	counts := map[string]int{}
	for _, c := range corpus {
		t.Run(c.ID, func(t *testing.T) {
			prj := newProject(t)
			for name, text := range c.Files {
				if err := os.WriteFile(filepath.Join(prj.root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, al := range []*Allowance{nil, corpusAllowance} {
				want := c.Bare
				if al != nil {
					want = c.Within
				}
				req := prj.request("", "Bash", bash(c.Command), "")
				req.Compute = al
				d := p.Check(req)
				counts[c.Source+" "+string(want)]++
				switch {
				case want == Ask && (d.Action != Ask || d.Rule != "approval.compute"):
					t.Errorf("allowance %v: %s by %s, want ask by approval.compute (%s)\n%s", al != nil, d.Action, d.Rule, c.Note, d.Reason)
				case want == Allow && d.Action != Allow:
					t.Errorf("allowance %v: %s by %s, want allow (%s)\n%s", al != nil, d.Action, d.Rule, c.Note, d.Reason)
				case want == Ask && !strings.Contains(d.Reason, "approve it") && !strings.Contains(d.Reason, AllowanceKey):
					t.Errorf("the ask says neither how to allow it nor to approve it: %s", d.Reason)
				}
			}
		})
	}
	t.Logf("%v", counts)
}

// TestComputeMessages pins what an ask says: the command, what it asks
// for, and the allowance that would let it run, with real values.
func TestComputeMessages(t *testing.T) {
	prj := newProject(t)
	p := Default()
	for _, c := range []struct {
		cmd  string
		al   *Allowance
		want string
	}{
		{"sbatch --gres=gpu:4 -t 12:00:00 train.sh", nil,
			`researcher wants to run "sbatch --gres=gpu:4 -t 12:00:00 train.sh", which needs the user's approval (rule approval.compute): a Slurm job (sbatch) for 12:00:00 with 4 GPUs (48 GPU-hours); the project sets no compute allowance; to let jobs this size run without asking, the user can set "compute" in .vibe-science/domain-config.json to {"max_time": "12:00:00", "max_gpu_hours": 48}.`},
		{"sbatch -t 90 job.sh", corpusAllowance,
			`researcher wants to run "sbatch -t 90 job.sh", which needs the user's approval (rule approval.compute): a Slurm job (sbatch) for 01:30:00; the project's allowance is max_time 01:00:00, max_gpu_hours 2; to let jobs this size run without asking, the user can set "compute" in .vibe-science/domain-config.json to {"max_time": "01:30:00", "max_gpu_hours": 2}.`},
		{"qsub run.pbs", corpusAllowance,
			`researcher wants to run "qsub run.pbs", which needs the user's approval (rule approval.compute): a PBS job (qsub) with no time limit; give it a time limit (qsub -l walltime=HH:MM:SS or a #PBS -l walltime line) within the allowance ("compute" in .vibe-science/domain-config.json, e.g. {"max_time": "01:00:00"}).`},
		{"nohup python train.py > log 2>&1 &", nil,
			`researcher wants to run "nohup python train.py > log 2>&1 &", which needs the user's approval (rule approval.compute): a detached run with no time limit; give it a time limit (run it through timeout, e.g. timeout 1h python ...) within the allowance ("compute" in .vibe-science/domain-config.json, e.g. {"max_time": "01:00:00"}).`},
		{"docker run --gpus all img", corpusAllowance,
			`researcher wants to run "docker run --gpus all img", which needs the user's approval (rule approval.compute): a container with GPUs (docker run) with a GPU count that cannot be told; how long a container runs is not bounded by its command, so the allowance does not cover it: approve it if the project needs it.`},
		{"sbatch --array=1-10 -t 5 s.sh", corpusAllowance,
			`researcher wants to run "sbatch --array=1-10 -t 5 s.sh", which needs the user's approval (rule approval.compute): a Slurm job (sbatch) for 00:05:00, as an array of jobs; an array of jobs is always asked, whatever the allowance: approve it if the project needs it.`},
		{"aws batch submit-job --job-name x --job-queue q --job-definition d", corpusAllowance,
			`researcher wants to run "aws batch submit-job --job-name x --job-queue q --job-definition d", which needs the user's approval (rule approval.compute): a job on a cluster, a GPU or the cloud spends the user's time, money or quota; approve it if the project needs it.`},
	} {
		req := prj.request("", "Bash", bash(c.cmd), "")
		req.Compute = c.al
		if d := p.Check(req); d.Reason != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.cmd, d.Reason, c.want)
		}
	}
}

// TestComputeNotAskedInManPages: no command of the man-page corpus (1710
// commands their authors wrote, some sent to the background) is taken for
// a compute run.
func TestComputeNotAskedInManPages(t *testing.T) {
	prj := newProject(t)
	p := Default()
	for _, c := range readManCorpus(t) {
		if d := p.Check(prj.request("", "Bash", bash(c.Command), "")); d.Rule == "approval.compute" {
			t.Errorf("%s (%s): asked as a compute run: %s", c.ID, c.Command, d.Reason)
		}
	}
}

// TestComputeAllowanceEdges: the allowance's bounds are inclusive, and an
// allowance without max_time covers nothing.
func TestComputeAllowanceEdges(t *testing.T) {
	for _, c := range []struct {
		al   *Allowance
		j    jobAsk
		want bool
	}{
		{corpusAllowance, jobAsk{time: time.Hour, gpus: 2}, true},
		{corpusAllowance, jobAsk{time: time.Hour + time.Second}, false},
		{corpusAllowance, jobAsk{time: time.Hour, gpus: 3}, false},
		{corpusAllowance, jobAsk{time: 40 * time.Minute, gpus: 3}, true},
		{corpusAllowance, jobAsk{time: time.Minute, gpus: -1}, false},
		{corpusAllowance, jobAsk{time: 0}, false},
		{corpusAllowance, jobAsk{time: time.Minute, array: true}, false},
		{corpusAllowance, jobAsk{time: time.Minute, fixed: "container"}, false},
		{&Allowance{MaxGPUHours: 10}, jobAsk{time: time.Minute, gpus: 1}, false},
		{&Allowance{MaxTime: time.Hour}, jobAsk{time: time.Minute, gpus: 1}, false},
		{nil, jobAsk{time: time.Minute}, false},
	} {
		if got := c.al.covers(&c.j); got != c.want {
			t.Errorf("%+v covers %+v = %v, want %v", c.al, c.j, got, c.want)
		}
	}
}
