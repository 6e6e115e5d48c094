package permission

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ComputeGroup is the approval group of compute jobs (the policy's
// "compute" approvals: sbatch, qsub, bsub, srun, nohup, docker run --gpus,
// cloud job submissions). A batch job that requests a wall time within
// Request.Compute runs without asking.
const ComputeGroup = "compute"

// ComputeAllowance is what a project lets a compute job request without
// the user's approval (the domain config's compute section): a wall time of
// at most MaxHours and at most MaxGPUHours of GPU time. Zero allows nothing.
type ComputeAllowance struct {
	MaxHours    float64
	MaxGPUHours float64
}

// jobRequest is what a batch submission asks for.
type jobRequest struct {
	hours float64 // requested wall time, 0 when none is given
	gpus  float64 // GPUs requested, 0 when none
}

// within reports whether a batch submission (argv) requests a wall time,
// and GPU hours, inside the allowance. cwd resolves the job script, whose
// #SBATCH, #PBS and #BSUB lines count as options too (the command line
// wins). A job that requests no wall time is never within: its cost cannot
// be told.
func (a *ComputeAllowance) within(call []string, cwd string) bool {
	if a == nil || a.MaxHours <= 0 || len(call) == 0 {
		return false
	}
	prog := programName(call[0])
	var req jobRequest
	switch prog {
	case "sbatch", "srun", "salloc":
		req = slurmRequest(call[1:], scriptDirectives(call[1:], cwd, "#SBATCH"))
	case "qsub":
		req = pbsRequest(call[1:], scriptDirectives(call[1:], cwd, "#PBS"))
	case "bsub":
		req = lsfRequest(call[1:])
	default:
		return false // nohup, docker, cloud jobs: no wall time to judge
	}
	if req.hours <= 0 || req.hours > a.MaxHours {
		return false
	}
	return req.gpus == 0 || req.gpus*req.hours <= a.MaxGPUHours
}

// scriptDirectives reads the option lines (#SBATCH --time=1:00:00) of the
// job script argv names: the first argument that is an existing file.
func scriptDirectives(args []string, cwd, prefix string) []string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.ContainsRune(a, '=') {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		defer f.Close()
		var out []string
		sc := bufio.NewScanner(f)
		for n := 0; sc.Scan() && n < 200; n++ {
			line := strings.TrimSpace(sc.Text())
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				out = append(out, strings.Fields(rest)...)
			}
		}
		return out
	}
	return nil
}

// slurmRequest reads --time/-t and --gpus/-G/--gres=gpu of sbatch, srun and
// salloc; the command line's options come after the script's and win.
func slurmRequest(args, script []string) jobRequest {
	var r jobRequest
	opts := append(append([]string(nil), script...), args...)
	for i := 0; i < len(opts); i++ {
		name, val, next := option(opts, i, "--time", "-t")
		if name != "" {
			if h, ok := slurmHours(val); ok {
				r.hours = h
			}
			i = next
			continue
		}
		if name, val, next = option(opts, i, "--gpus", "-G"); name != "" {
			r.gpus = gpuCount(val)
			i = next
			continue
		}
		if name, val, next = option(opts, i, "--gres", ""); name != "" {
			for _, g := range strings.Split(val, ",") {
				if parts := strings.Split(g, ":"); parts[0] == "gpu" {
					r.gpus = gpuCount(parts[len(parts)-1])
				}
			}
			i = next
		}
	}
	return r
}

// pbsRequest reads -l walltime=… and ngpus=/gpus= of qsub.
func pbsRequest(args, script []string) jobRequest {
	var r jobRequest
	opts := append(append([]string(nil), script...), args...)
	for i := 0; i < len(opts); i++ {
		name, val, next := option(opts, i, "", "-l")
		if name == "" {
			continue
		}
		i = next
		for _, res := range strings.Split(val, ",") { // select=1:ngpus=4,walltime=01:00:00
			if v, ok := strings.CutPrefix(res, "walltime="); ok {
				if h, ok := clockHours(v); ok {
					r.hours = h
				}
				continue
			}
			for _, kv := range strings.Split(res, ":") {
				if k, v, _ := strings.Cut(kv, "="); k == "ngpus" || k == "gpus" {
					r.gpus = gpuCount(v)
				}
			}
		}
	}
	return r
}

// lsfRequest reads -W [HH:]MM and -gpu "num=N" of bsub.
func lsfRequest(args []string) jobRequest {
	var r jobRequest
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-W" && i+1 < len(args):
			i++
			if h, ok := clockHours(args[i]); ok {
				if !strings.Contains(args[i], ":") {
					h /= 60 // -W 30 is minutes: clockHours read it as hours
				}
				r.hours = h
			}
		case args[i] == "-gpu" && i+1 < len(args):
			i++
			for _, kv := range strings.Split(args[i], ":") {
				if v, ok := strings.CutPrefix(kv, "num="); ok {
					r.gpus = gpuCount(v)
				}
			}
		}
	}
	return r
}

// option reads the option at opts[i] if it is long (--name=v or --name v)
// or short (-x v or -xv); next is the index of its last word.
func option(opts []string, i int, long, short string) (name, val string, next int) {
	a := opts[i]
	if long != "" {
		if v, ok := strings.CutPrefix(a, long+"="); ok {
			return long, v, i
		}
		if a == long && i+1 < len(opts) {
			return long, opts[i+1], i + 1
		}
	}
	if short != "" {
		if a == short && i+1 < len(opts) {
			return short, opts[i+1], i + 1
		}
		if v, ok := strings.CutPrefix(a, short); ok && v != "" && !strings.HasPrefix(a, "--") {
			return short, strings.TrimPrefix(v, "="), i
		}
	}
	return "", "", i
}

// slurmHours reads Slurm's time formats: minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes and
// days-hours:minutes:seconds.
func slurmHours(v string) (float64, bool) {
	if d, rest, ok := strings.Cut(v, "-"); ok {
		days, err := strconv.ParseFloat(d, 64)
		h, ok := clockHours(rest) // hours[:minutes[:seconds]]
		return days*24 + h, err == nil && ok
	}
	h, ok := clockHours(v)
	switch strings.Count(v, ":") {
	case 0:
		return h / 60, ok // minutes
	case 1:
		return h / 60, ok // minutes:seconds, read as hours:minutes
	}
	return h, ok
}

// clockHours reads [[HH:]MM:]SS-style clock times as PBS and LSF write them
// (HH:MM:SS, HH:MM); a bare number is hours.
func clockHours(v string) (float64, bool) {
	parts := strings.Split(v, ":")
	h := 0.0
	for i, p := range parts {
		n, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return 0, false
		}
		h += n / []float64{1, 60, 3600}[min(i, 2)]
	}
	return h, true
}

// gpuCount reads a GPU count ("2", "a100:2" handled by the caller), 1 when
// the value names GPUs without a number.
func gpuCount(v string) float64 {
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		v = v[i+1:]
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 {
		return 1
	}
	return n
}
