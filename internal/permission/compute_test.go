package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// TestComputeJobsAreAsked: job submissions in the forms the Slurm, PBS and
// LSF manuals show (written here in our own words) are asked about; with a
// domain allowance the batch jobs that request a wall time (and GPU hours)
// within it run, and those that request more, or no wall time, or are no
// batch job (nohup, a GPU container, a cloud job) are still asked.
func TestComputeJobsAreAsked(t *testing.T) {
	prj := newProject(t)
	script := "#!/bin/bash\n#SBATCH --job-name=fit\n#SBATCH --time=00:45:00\n#SBATCH --gres=gpu:a100:1\npython fit.py\n"
	if err := os.WriteFile(filepath.Join(prj.root, "train.sbatch"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	long := "#!/bin/bash\n#SBATCH --time=2-00:00:00\npython fit.py\n"
	if err := os.WriteFile(filepath.Join(prj.root, "long.sbatch"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	allow := &ComputeAllowance{MaxHours: 1, MaxGPUHours: 2}
	tests := []struct {
		cmd          string
		none, within Action
	}{
		{"sbatch train.sbatch", Ask, Allow},                                  // 45 min, 1 GPU, from the script
		{"sbatch --time=30 --gpus=2 train.sbatch", Ask, Allow},               // the command line wins: 30 min × 2 GPUs
		{"sbatch -t 0-04:00 train.sbatch", Ask, Ask},                         // 4 hours
		{"sbatch long.sbatch", Ask, Ask},                                     // two days
		{"sbatch --gres=gpu:8 -t 59 train.sbatch", Ask, Ask},                 // 8 GPUs × ~1 h > 2 GPU hours
		{"srun --time=10 -n 4 python sweep.py", Ask, Allow},                  // 10 minutes
		{"srun -n 4 python sweep.py", Ask, Ask},                              // no wall time: cost unknown
		{"salloc -t 1:00:00 --gpus=1", Ask, Allow},                           // one hour, one GPU
		{"qsub -l walltime=00:30:00 job.pbs", Ask, Allow},                    // PBS
		{"qsub -l select=1:ngpus=4,walltime=01:00:00 job.pbs", Ask, Ask},     // 4 GPU hours
		{"bsub -W 20 -n 2 python fit.py", Ask, Allow},                        // LSF: 20 minutes
		{"bsub -W 3:00 python fit.py", Ask, Ask},                             // 3 hours
		{"nohup python train.py > train.log 2>&1 &", Ask, Ask},               // detached: no wall time
		{"setsid python train.py", Ask, Ask},                                 //
		{"docker run --rm --gpus all pytorch/pytorch python -c 1", Ask, Ask}, // a GPU container
		{"aws batch submit-job --job-name fit --job-queue q --job-definition d", Ask, Ask},
		{"gcloud ai custom-jobs create --region=us-central1 --display-name=fit", Ask, Ask},
		{"squeue -u $USER", Allow, Allow}, // looking at jobs is no job
		{"sacct -j 1234", Allow, Allow},
		{"docker run --rm alpine echo hi", Allow, Allow},
		{"python train.py --epochs 1", Allow, Allow},
		{"python train.py &", Allow, Allow}, // a background run in the session is not detached
	}
	for _, tc := range tests {
		for _, c := range []struct {
			allow *ComputeAllowance
			want  Action
		}{{nil, tc.none}, {allow, tc.within}} {
			req := prj.request("", "Bash", bash(tc.cmd), "")
			req.Compute = c.allow
			d := Default().Check(req)
			if d.Action != c.want || (c.want == Ask && d.Rule != "approval.compute") {
				t.Errorf("%q (allowance %v): got %s by %s, want %s", tc.cmd, c.allow != nil, d.Action, d.Rule, c.want)
			}
		}
	}
}

// TestSlurmTimes: Slurm's time formats.
func TestSlurmTimes(t *testing.T) {
	for in, want := range map[string]float64{"90": 1.5, "30:00": 0.5, "1:30:00": 1.5, "2-00": 48, "1-12:00": 36, "0-00:30:00": 0.5} {
		if got, ok := slurmHours(in); !ok || got != want {
			t.Errorf("slurmHours(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	if _, ok := slurmHours("UNLIMITED"); ok {
		t.Error("UNLIMITED read as a time")
	}
}
