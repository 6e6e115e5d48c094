package permission

import (
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/internal/walltime"
)

// Compute runs that need the user's approval (the "compute" approval
// group, issue 34): what a command starts that spends time on a cluster, a
// GPU or the user's machine after the call returns.
//
//   - A batch job: sbatch, srun and salloc (Slurm), qsub (PBS, Torque),
//     bsub (LSF). Its wall time and GPUs are read from the command line
//     and, for the script it submits (sbatch's and qsub's script operand,
//     a script fed on stdin), from the script's #SBATCH, #PBS or #BSUB
//     lines; the command line wins.
//   - A container with GPUs: docker, podman or nvidia-docker run with
//     --gpus, a --device nvidia.com/gpu=…, or --runtime nvidia.
//   - A detached analysis run: a command sent to the background (a
//     trailing "&"), or run through nohup or setsid, whose program is an
//     analysis run: python running a script or a module (not a server or a
//     tool: http.server, pip, pytest, jupyter, ...; not a script whose name
//     holds "serve"), Rscript or julia running a script, R CMD BATCH, R -f
//     or R reading a file on stdin, octave running a script, matlab -batch
//     or -r, and the launchers torchrun, deepspeed, horovodrun, mpirun,
//     mpiexec, accelerate launch, snakemake and nextflow run. Anything else
//     sent to the background (sleep 1 &, a server for a test, a build) is
//     not a compute run; a foreground python train.py is not asked either.
//     A job sent to the background that the same command then waits for
//     (wait) or ends (kill $!, kill %1) is not detached: the call does not
//     leave it running. nohup and setsid always detach.
//   - Cloud jobs are plain command words in the policy's "compute" group
//     (gcloud ai custom-jobs create, aws batch submit-job, sky launch, ...).
//
// A job the project's Allowance covers runs without asking: see covers.

// Allowance is the compute a project lets one job ask for without the
// user's approval: the domain config's "compute" block, which the caller
// reads (internal/gate) and passes in Request.Compute. A nil Allowance, or
// one without MaxTime, covers no job.
type Allowance struct {
	MaxTime     time.Duration // longest wall time
	MaxGPUHours float64       // most GPUs × wall time, in hours
}

// ComputeAllowance is the project's allowance: the "compute" block of its
// domain config (the shipped domain's, where the project sets none). Nil
// when the config cannot be read: every job is then asked, and the
// config's error is reported when a gate reads it.
func ComputeAllowance(root string) *Allowance {
	d, err := gate.LoadDomain(root)
	if err != nil {
		return nil
	}
	return &Allowance{MaxTime: d.Compute.Limit(), MaxGPUHours: d.Compute.MaxGPUHours}
}

// ComputeAllowanceCheck is the check name of a change that raises the
// domain config's compute allowance.
const ComputeAllowanceCheck = "compute-allowance"

// ComputeRaiseVerdict is a change of rel that raises the compute allowance
// (raise, gate.ComputeRaise's words): the agent would otherwise approve its
// own jobs. Warn is PreToolUse's ask before a Write or Edit; Block is the
// safety net's, after a command made the change (it is undone).
func ComputeRaiseVerdict(rel, raise string, res verdict.Result) verdict.Verdict {
	reason := fmt.Sprintf("this write to %s raises %s, which lets larger jobs run without the user's approval; the user decides the allowance, so approve it only if they asked for it.", rel, raise)
	if res.Blocks() {
		reason = fmt.Sprintf("it raised %s, which would let larger jobs run without the user's approval; only the user sets the allowance.", raise)
	}
	v := verdict.New(ComputeAllowanceCheck, res, verdict.Med, reason, map[string]string{"path": rel, "raise": raise})
	v.Recommendation = "leave the compute allowance to the user; submit the job and let them approve it."
	return v
}

// AllowanceKey is where the allowance is set, for messages.
const AllowanceKey = `"compute" in .vibe-science/domain-config.json`

// jobAsk is what a compute run asks for, as far as the command tells.
type jobAsk struct {
	what  string        // "a Slurm job", "a container with GPUs", "a detached run", ...
	time  time.Duration // its wall-time limit; 0 when none is given
	gpus  int           // GPUs it asks for; -1 when that cannot be told
	array bool          // an array of jobs (sbatch --array, qsub -J/-t, bsub -J "x[1-10]")
	fixed string        // why no allowance can cover it ("" when one can)
	// timeHow is how to give this kind of job a time limit.
	timeHow string
	// reapable: sent to the background by "&" alone, so a later wait or
	// kill of the job in the same command keeps it attached.
	reapable bool
	// repeat is the program that starts the job over and over (xargs and
	// parallel once per input, watch every few seconds); "" when it runs once.
	repeat string
}

// covers reports whether the allowance lets job run without asking: its
// wall time is given and at or below MaxTime, its GPU count is known, and
// a job with GPUs asks for at most MaxGPUHours GPU-hours. Arrays, and
// runs whose length no option bounds (containers), are never covered.
func (al *Allowance) covers(j *jobAsk) bool {
	if al == nil || al.MaxTime <= 0 || j.fixed != "" || j.array || j.repeat != "" || j.time <= 0 || j.gpus < 0 || j.time > al.MaxTime {
		return false
	}
	return j.gpus == 0 || gpuHours(j) <= al.MaxGPUHours+1e-9
}

func gpuHours(j *jobAsk) float64 { return float64(j.gpus) * j.time.Hours() }

// describe says what the job asks for and how the user can let such jobs
// run without asking, with the values that would cover this one.
func (j *jobAsk) describe(al *Allowance) string {
	var b strings.Builder
	b.WriteString(j.what)
	if j.time > 0 {
		fmt.Fprintf(&b, " for %s", walltime.Format(j.time))
	}
	switch {
	case j.gpus < 0:
		b.WriteString(" with a GPU count that cannot be told")
	case j.gpus > 0:
		if fmt.Fprintf(&b, " with %d GPU", j.gpus); j.gpus > 1 {
			b.WriteString("s")
		}
		if j.time > 0 {
			fmt.Fprintf(&b, " (%s GPU-hours)", hours(gpuHours(j)))
		}
	}
	if j.time <= 0 && j.fixed == "" {
		if j.gpus != 0 {
			b.WriteString(" and no time limit")
		} else {
			b.WriteString(" with no time limit")
		}
	}
	if j.array {
		b.WriteString(", as an array of jobs")
	}
	if j.repeat != "" {
		fmt.Fprintf(&b, ", started again and again by %s", j.repeat)
	}
	b.WriteString("; ")
	switch {
	case j.fixed != "":
		b.WriteString(j.fixed)
	case j.repeat != "":
		b.WriteString("jobs started in a loop are always asked, whatever the allowance: approve it if the project needs it, or submit one job (an array, sbatch --array, is asked once)")
	case j.array:
		b.WriteString("an array of jobs is always asked, whatever the allowance: approve it if the project needs it")
	case j.time <= 0:
		fmt.Fprintf(&b, "give it a time limit (%s) within the allowance (%s, e.g. {\"max_time\": \"01:00:00\"})", j.timeHow, AllowanceKey)
	case j.gpus < 0:
		fmt.Fprintf(&b, "approve it if the project needs it, or name the number of GPUs it uses so that the allowance (%s) can cover it", AllowanceKey)
	default:
		maxTime, maxGPU := j.time, 0.0
		if al != nil && al.MaxTime > maxTime {
			maxTime = al.MaxTime
		}
		if al != nil {
			maxGPU = al.MaxGPUHours
		}
		if j.gpus > 0 && gpuHours(j) > maxGPU {
			maxGPU = math.Ceil(gpuHours(j)*100) / 100
		}
		if al == nil || al.MaxTime <= 0 {
			b.WriteString("the project sets no compute allowance")
		} else {
			fmt.Fprintf(&b, "the project's allowance is max_time %s, max_gpu_hours %s", walltime.Format(al.MaxTime), hours(al.MaxGPUHours))
		}
		fmt.Fprintf(&b, "; to let jobs this size run without asking, the user can set %s to {\"max_time\": %q", AllowanceKey, walltime.Format(maxTime))
		if maxGPU > 0 {
			fmt.Fprintf(&b, ", \"max_gpu_hours\": %s", hours(maxGPU))
		}
		b.WriteString("}")
	}
	return b.String()
}

func hours(h float64) string {
	return strconv.FormatFloat(math.Ceil(h*100)/100, 'f', -1, 64)
}

// launch is what runs the command being analysed: the statement sent to
// the background ("&"), nohup or setsid, timeout's limit.
type launch struct {
	bg     string        // the text of the statement sent to the background
	detach string        // the nohup or setsid command that runs it
	limit  time.Duration // timeout's duration, 0 when none
	repeat string        // xargs, parallel or watch, which start it again and again
	remote bool          // run on another host (ssh): its files are not this project's
}

// launcher notes what a wrapper program changes about how the command it
// runs is launched, and returns the function that undoes it.
func (a *shellAnalyzer) launcher(prog string, args []word, raw string) func() {
	saved := a.launch
	switch prog {
	case "nohup", "setsid", "screen", "tmux":
		if a.launch.detach == "" {
			a.launch.detach = raw
		}
	case "xargs", "watch":
		a.launch.repeat = prog
	case "timeout":
		p := optionsUntilOperand(args, "sk", "signal", "kill-after")
		if len(p.ops) == 0 {
			return nil
		}
		v, _ := p.ops[0].single()
		d, ok := walltime.Timeout(v)
		if !ok {
			return nil
		}
		a.launch.limit = d
	default:
		return nil
	}
	return func() { a.launch = saved }
}

// compute finds the compute run a command starts, if any, and records it
// as a hit of the "compute" group.
func (a *shellAnalyzer) compute(prog string, args []word, st *shellState, in stdinSrc, raw string) {
	a.reap(prog, args)
	var j *jobAsk
	switch prog {
	case "sbatch", "srun", "salloc":
		j = a.slurmJob(prog, args, st, in)
	case "qsub":
		j = a.pbsJob(args, st, in)
	case "bsub":
		j = a.lsfJob(args, st, in)
	case "docker", "podman", "nvidia-docker", "docker-compose", "podman-compose":
		j = a.containerJob(prog, args, st)
	case "at", "batch":
		j = scheduledJob(prog, args, in)
	case "crontab":
		j = crontabJob(args)
	case "kubectl":
		j = a.kubeJob(args, st)
	case "systemd-run":
		if j = a.systemdRun(args, st, in, raw); j == nil {
			return
		}
	case "ssh":
		a.remoteRun(args, st, raw)
		return
	case "parallel":
		a.parallelRun(args, st, in, raw)
		return
	default:
		if (a.launch.bg != "" || a.launch.detach != "") && analysisRun(prog, args, in) {
			j = &jobAsk{what: "a detached run", time: a.launch.limit, reapable: a.launch.detach == "",
				timeHow: "run it through timeout, e.g. timeout 1h " + prog + " ..."}
		}
	}
	if j == nil {
		return
	}
	if j.repeat == "" {
		j.repeat = a.launch.repeat
	}
	text := raw
	switch {
	case a.launch.bg != "":
		text = a.launch.bg
	case a.launch.detach != "":
		text = a.launch.detach
	}
	a.eff.hits = append(a.eff.hits, hit{group: "compute", text: shorten(text), job: j})
}

// reap drops the detached runs sent to the background so far when the
// command waits for its jobs or kills one (wait, kill $!, kill %1).
func (a *shellAnalyzer) reap(prog string, args []word) {
	switch prog {
	case "wait":
	case "kill":
		job := false
		for _, w := range args {
			job = job || w.raw == "$!" || w.raw == "${!}" || strings.HasPrefix(w.raw, "%")
		}
		if !job {
			return
		}
	default:
		return
	}
	kept := a.eff.hits[:0]
	for _, h := range a.eff.hits {
		if h.job == nil || !h.job.reapable {
			kept = append(kept, h)
		}
	}
	a.eff.hits = kept
}

// opts are a scheduler's options up to its first operand, by long name
// (short letters mapped through the scheduler's aliases); a flag has the
// value "". Later values of an option come after earlier ones.
type opts map[string][]string

func (o opts) last(name string) (string, bool) {
	v := o[name]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// getopt reads Slurm's and PBS's options (getopt_long: clustered short
// flags, a short option's value attached or in the next word, --name=value
// or --name value) up to the first operand, and returns them with the
// operands. Words not known before the command runs are "\x00".
func getopt(argv []string, shortVal string, long map[string]bool, alias map[byte]string) (opts, []string) {
	o := opts{}
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		if s == "--" {
			return o, argv[i+1:]
		}
		if len(s) < 2 || s[0] != '-' {
			return o, argv[i:]
		}
		if strings.HasPrefix(s, "--") {
			name, val, eq := strings.Cut(s[2:], "=")
			if !eq && long[name] && i+1 < len(argv) {
				val = argv[i+1]
				i++
			}
			o[name] = append(o[name], val)
			continue
		}
		for k := 1; k < len(s); k++ {
			c := s[k]
			name := alias[c]
			if name == "" {
				name = string(c)
			}
			if strings.IndexByte(shortVal, c) < 0 {
				o[name] = append(o[name], "")
				continue
			}
			val := s[k+1:]
			if val == "" && i+1 < len(argv) {
				val = argv[i+1]
				i++
			}
			o[name] = append(o[name], val)
			break
		}
	}
	return o, nil
}

func merged(directives, command opts) opts {
	out := opts{}
	for k, v := range directives {
		out[k] = v
	}
	for k, v := range command {
		out[k] = append(append([]string(nil), out[k]...), v...)
	}
	return out
}

// strs is argv as the analysis knows it: "\x00" for a word not known
// before the command runs.
func strs(args []word) []string {
	out := make([]string, len(args))
	for i, w := range args {
		if v, ok := w.single(); ok {
			out[i] = v
		} else {
			out[i] = "\x00"
		}
	}
	return out
}

// Slurm's options (sbatch, srun and salloc share them).
var (
	slurmShortVal = "AabBcCdDeFGiJLMmNnopqrSstTwx"
	slurmAlias    = map[byte]string{'A': "account", 'a': "array", 'b': "begin", 'B': "extra-node-info", 'c': "cpus-per-task",
		'C': "constraint", 'd': "dependency", 'D': "chdir", 'e': "error", 'F': "nodefile", 'G': "gpus", 'i': "input",
		'J': "job-name", 'L': "licenses", 'M': "clusters", 'm': "distribution", 'N': "nodes", 'n': "ntasks", 'o': "output",
		'p': "partition", 'q': "qos", 'r': "relative", 'S': "core-spec", 't': "time", 'T': "threads", 'w': "nodelist",
		'x': "exclude", 'h': "help", 'V': "version"}
	slurmLong = setOf("account", "array", "begin", "extra-node-info", "cpus-per-task", "constraint", "dependency", "chdir",
		"error", "nodefile", "gpus", "gres", "input", "job-name", "licenses", "clusters", "distribution", "nodes", "ntasks",
		"output", "partition", "qos", "relative", "core-spec", "time", "time-min", "threads", "nodelist", "exclude",
		"mem", "mem-per-cpu", "mem-per-gpu", "ntasks-per-node", "ntasks-per-socket", "ntasks-per-core", "gpus-per-node",
		"gpus-per-task", "gpus-per-socket", "cpus-per-gpu", "wrap", "export", "mail-type", "mail-user", "reservation",
		"signal", "comment", "container", "wckey", "tmp", "gpu-bind", "gpu-freq", "mpi", "priority", "profile",
		"propagate", "switches", "uid", "gid", "open-mode", "cluster-constraint", "bb", "bbf", "deadline", "delay-boot",
		"acctg-freq", "mcs-label", "network", "power", "cpu-freq", "prefer", "het-group", "tres-per-task", "tres-bind",
		"export-file", "cores-per-socket", "sockets-per-node", "threads-per-core", "burst-buffer", "dependency")
)

// slurmJob reads what sbatch, srun or salloc asks for. sbatch reads the
// #SBATCH lines of its script (the first operand, or stdin without one).
func (a *shellAnalyzer) slurmJob(prog string, args []word, st *shellState, in stdinSrc) *jobAsk {
	cmd, ops := getopt(strs(args), slurmShortVal, slurmLong, slurmAlias)
	if quiet(cmd, "help", "usage", "version", "test-only") {
		return nil
	}
	o := cmd
	if prog == "sbatch" {
		if _, wrap := cmd["wrap"]; !wrap {
			d, _ := getopt(a.directives(ops, st, in, "#SBATCH"), slurmShortVal, slurmLong, slurmAlias)
			o = merged(d, cmd)
		}
	}
	j := &jobAsk{what: "a Slurm job (" + prog + ")", timeHow: prog + " --time=HH:MM:SS or an #SBATCH --time line"}
	if v, ok := o.last("time"); ok {
		j.time, _ = walltime.Slurm(v)
	}
	_, j.array = o["array"]
	j.gpus = slurmGPUs(o)
	return j
}

// quiet reports whether a scheduler command only prints or checks
// (--help, --version, --test-only) instead of starting a job.
func quiet(o opts, names ...string) bool {
	for _, n := range names {
		if _, ok := o[n]; ok {
			return true
		}
	}
	return false
}

// slurmGPUs counts the GPUs of a Slurm job: --gpus for the whole job, else
// --gres=gpu[:type][:n] and --gpus-per-node per node, --gpus-per-task per
// task; -1 when a count is not a number.
func slurmGPUs(o opts) int {
	if v, ok := o.last("gpus"); ok {
		return typedCount(v)
	}
	nodes, tasks := 1, 1
	if v, ok := o.last("nodes"); ok {
		// "2" or a range "2-4": the most it may get.
		_, hi, _ := strings.Cut(v, "-")
		if hi == "" {
			hi = v
		}
		if nodes = atoi(hi); nodes < 0 {
			return -1
		}
	}
	if v, ok := o.last("ntasks"); ok {
		tasks = atoi(v)
	} else if v, ok := o.last("ntasks-per-node"); ok {
		tasks = atoi(v) * nodes
	}
	total := 0
	add := func(n, times int) bool {
		if n < 0 || times < 0 {
			return false
		}
		total += n * times
		return true
	}
	if v, ok := o.last("gres"); ok {
		for _, g := range strings.Split(v, ",") {
			g = strings.TrimPrefix(g, "gres/")
			if g, _, _ = strings.Cut(g, "("); g != "gpu" && !strings.HasPrefix(g, "gpu:") {
				continue
			}
			n := 1
			if parts := strings.Split(g, ":"); len(parts) > 1 {
				if n = atoi(parts[len(parts)-1]); n < 0 && len(parts) == 2 {
					n = 1 // gpu:a100, a type without a count
				}
			}
			if !add(n, nodes) {
				return -1
			}
		}
	}
	if v, ok := o.last("gpus-per-node"); ok && !add(typedCount(v), nodes) {
		return -1
	}
	if v, ok := o.last("gpus-per-task"); ok && !add(typedCount(v), tasks) {
		return -1
	}
	return total
}

// typedCount reads "[type:]count".
func typedCount(v string) int {
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		v = v[i+1:]
	}
	return atoi(v)
}

// atoi reads a count; -1 when it is not one.
func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > 1<<20 {
		return -1
	}
	return n
}

// PBS's options (qsub of PBS Pro, OpenPBS and Torque).
var (
	pbsShortVal = "aAcCeJjklmMNoPpqrSstuvW"
	pbsAlias    = map[byte]string{'J': "array", 't': "array"}
)

// pbsJob reads what qsub asks for: -l resources (walltime, select chunks
// with ngpus, Torque's nodes=N:gpus=G, ngpus), also from the script's #PBS
// lines.
func (a *shellAnalyzer) pbsJob(args []word, st *shellState, in stdinSrc) *jobAsk {
	cmd, ops := getopt(strs(args), pbsShortVal, setOf("version"), pbsAlias)
	if quiet(cmd, "version", "help") {
		return nil
	}
	d, _ := getopt(a.directives(ops, st, in, "#PBS"), pbsShortVal, nil, pbsAlias)
	o := merged(d, cmd)
	j := &jobAsk{what: "a PBS job (qsub)", timeHow: "qsub -l walltime=HH:MM:SS or a #PBS -l walltime line"}
	_, j.array = o["array"]
	gpus, known := 0, true
	for _, l := range o["l"] {
		for _, res := range strings.Split(l, ",") {
			k, v, _ := strings.Cut(res, "=")
			switch k {
			case "walltime":
				j.time, _ = walltime.PBS(v)
			case "ngpus", "gpus":
				n := atoi(v)
				known = known && n >= 0
				gpus += n
			case "select", "nodes":
				n, ok := pbsChunks(v)
				known = known && ok
				gpus += n
			}
		}
	}
	j.gpus = gpus
	if !known {
		j.gpus = -1
	}
	return j
}

// pbsChunks counts the GPUs of a select statement ("2:ncpus=8:ngpus=1+1:
// ngpus=2") or Torque's nodes ("2:ppn=4:gpus=2"): each chunk's count
// times its GPUs.
func pbsChunks(v string) (int, bool) {
	total := 0
	for _, chunk := range strings.Split(v, "+") {
		parts := strings.Split(chunk, ":")
		n := 1
		if c := atoi(parts[0]); c >= 0 {
			n = c
		}
		for _, p := range parts[1:] {
			k, val, _ := strings.Cut(p, "=")
			if k == "ngpus" || k == "gpus" {
				g := atoi(val)
				if g < 0 {
					return 0, false
				}
				total += n * g
			}
		}
	}
	return total, true
}

// LSF's bsub options that take a value (its options are words, not
// letters: -gpu, -We, -app).
var lsfVal = setOf("-J", "-W", "-gpu", "-R", "-n", "-q", "-o", "-e", "-oo", "-eo", "-M", "-P", "-G", "-app", "-cwd",
	"-env", "-Jd", "-sla", "-m", "-u", "-w", "-E", "-Ep", "-L", "-i", "-is", "-f", "-b", "-c", "-C", "-D", "-F", "-k",
	"-g", "-sp", "-U", "-We", "-v", "-S", "-T", "-Lp", "-ext", "-outdir", "-data", "-hostfile", "-pack", "-ptl", "-jsdl",
	"-jsdl_strict", "-mig", "-rnc", "-s", "-stage", "-t", "-datagrp", "-eptl", "-alloc_flags", "-cn_cu", "-cn_mem",
	"-core_isolation", "-csm", "-nnodes", "-smt", "-step_cgroup", "-freq", "-Q")

// lsfJob reads what bsub asks for: -W (run limit), -gpu, -J with an
// array index, also from #BSUB lines of a script fed on stdin (bsub <
// job.sh).
func (a *shellAnalyzer) lsfJob(args []word, st *shellState, in stdinSrc) *jobAsk {
	read := func(argv []string) (opts, []string) {
		o := opts{}
		for i := 0; i < len(argv); i++ {
			s := argv[i]
			if len(s) < 2 || s[0] != '-' {
				return o, argv[i:]
			}
			if lsfVal[s] && i+1 < len(argv) {
				o[s] = append(o[s], argv[i+1])
				i++
				continue
			}
			o[s] = append(o[s], "")
		}
		return o, nil
	}
	cmd, ops := read(strs(args))
	if quiet(cmd, "-h", "-V") {
		return nil
	}
	o := cmd
	if len(ops) == 0 {
		d, _ := read(a.directives(nil, st, in, "#BSUB"))
		o = merged(d, cmd)
	}
	j := &jobAsk{what: "an LSF job (bsub)", timeHow: "bsub -W [hours:]minutes or a #BSUB -W line"}
	if v, ok := o.last("-W"); ok {
		j.time, _ = walltime.LSF(v)
	}
	if v, ok := o.last("-J"); ok && strings.Contains(v, "[") {
		j.array = true
	}
	v, gpu := o.last("-gpu")
	if !gpu {
		if r, _ := o.last("-R"); strings.Contains(strings.ToLower(r), "gpu") {
			j.gpus = -1 // GPUs asked for through a resource string
		}
		return j
	}
	perHost := 1
	perTask := false
	for _, kv := range strings.Split(v, ":") {
		k, val, _ := strings.Cut(kv, "=")
		if k == "num" {
			val, unit, _ := strings.Cut(val, "/")
			perHost, perTask = atoi(val), unit == "task"
		}
	}
	slots := 1
	if n, ok := o.last("-n"); ok {
		_, hi, _ := strings.Cut(n, ",")
		if hi == "" {
			hi = n
		}
		slots = atoi(hi)
	}
	r, _ := o.last("-R")
	switch {
	case perHost < 0 || slots < 0:
		j.gpus = -1
	case perTask:
		j.gpus = perHost * slots
	case slots <= 1 || strings.Contains(strings.ReplaceAll(r, " ", ""), "span[hosts=1]"):
		j.gpus = perHost
	default:
		j.gpus = -1 // per host, on hosts the command does not count
	}
	return j
}

// directives reads the scheduler directive lines (prefix "#SBATCH") at
// the top of the script a job submits: the first operand, else the
// heredoc, here-string or file on stdin. The lines are read up to the
// first line that is not a comment or blank, as the schedulers do, and
// split into words as the shell would.
func (a *shellAnalyzer) directives(ops []string, st *shellState, in stdinSrc, prefix string) []string {
	var text string
	switch {
	case len(ops) > 0:
		text = a.readScript(ops[0], st)
	case in.known:
		text = in.text
	case in.file != "":
		text = a.readScript(in.file, st)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		if stmts := pipeline(rest); len(stmts) == 1 {
			out = append(out, literalArgs(stmts[0])...)
		}
	}
	return out
}

// maxScriptRead is the most of a job script read for its directives.
const maxScriptRead = 64 << 10

// readScript returns the beginning of the file the word names, "" when it
// cannot be read.
func (a *shellAnalyzer) readScript(v string, st *shellState) string {
	if v == "\x00" || a.launch.remote {
		return ""
	}
	abs, ok := a.abs(v, st)
	if !ok {
		return ""
	}
	f, err := os.Open(filepath.FromSlash(abs))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxScriptRead))
	return string(b)
}

// containerJob reads docker, podman or nvidia-docker run: a container
// with GPUs is a compute run; one without is not.
func (a *shellAnalyzer) containerJob(prog string, args []word, st *shellState) *jobAsk {
	argv := strs(args)
	if len(argv) == 0 {
		return nil
	}
	if strings.HasSuffix(prog, "-compose") {
		return a.composeJob(prog, args, st)
	}
	sub := 0
	if argv[0] == "container" && len(argv) > 1 || argv[0] == "compose" {
		sub = 1
	}
	if argv[0] == "compose" {
		return a.composeJob(prog+" compose", args[1:], st)
	}
	if argv[sub] != "run" {
		return nil
	}
	gpus, gpu := 0, prog == "nvidia-docker"
	unknown := gpu
	for i := sub + 1; i < len(argv); i++ {
		name, val, eq := strings.Cut(argv[i], "=")
		switch name {
		case "--gpus", "--device", "--runtime":
		default:
			continue
		}
		if !eq {
			if i+1 >= len(argv) {
				break
			}
			i++
			val = argv[i]
		}
		val = strings.Trim(val, `"'`)
		switch name {
		case "--gpus":
			gpu = true
			n := gpuList(val)
			if n < 0 {
				unknown = true
			}
			gpus += max(n, 0)
		case "--device":
			dev, sel, _ := strings.Cut(val, "=")
			if dev != "nvidia.com/gpu" && !strings.HasPrefix(dev, "/dev/nvidia") {
				continue
			}
			gpu = true
			if sel == "all" || dev == "nvidia.com/gpu" && sel == "" {
				unknown = true
				continue
			}
			if !strings.HasPrefix(dev, "/dev/nvidia") || isDigits(strings.TrimPrefix(dev, "/dev/nvidia")) {
				gpus++
			}
		case "--runtime":
			if val == "nvidia" {
				gpu, unknown = true, true
			}
		}
	}
	if !gpu {
		return detachedContainer(prog, args[sub+1:])
	}
	j := &jobAsk{what: "a container with GPUs (" + prog + " run)", gpus: gpus,
		fixed: "how long a container runs is not bounded by its command, so the allowance does not cover it: approve it if the project needs it"}
	if unknown {
		j.gpus = -1
	}
	return j
}

// gpuList counts docker's --gpus value: "all" (-1, not known), a number,
// "device=0,1", or "count=2,capabilities=…".
func gpuList(v string) int {
	if v == "all" {
		return -1
	}
	if n := atoi(v); n >= 0 {
		return n
	}
	if devices, ok := strings.CutPrefix(v, "device="); ok {
		return len(strings.Split(devices, ","))
	}
	for _, kv := range strings.Split(v, ",") {
		if k, val, _ := strings.Cut(kv, "="); k == "count" {
			return atoi(val) // "all" is -1
		}
	}
	return -1
}

// serverModules are the python modules run with -m that serve, install or
// test rather than compute.
var serverModules = setOf("http.server", "simplehttpserver", "uvicorn", "gunicorn", "flask", "jupyter", "jupyterlab",
	"notebook", "mkdocs", "pydoc", "pip", "venv", "virtualenv", "pytest", "unittest", "smtpd", "aiosmtpd", "webbrowser",
	"tensorboard", "ipykernel", "mlflow", "http", "json.tool", "timeit", "doctest")

// launchers are programs that exist to start a (distributed) computation.
var launchers = setOf("torchrun", "deepspeed", "horovodrun", "mpirun", "mpiexec")

// analysisRun reports whether a detached command runs an analysis (the
// rule in the comment at the top of this file).
func analysisRun(prog string, args []word, in stdinSrc) bool {
	if launchers[prog] {
		return true
	}
	switch prog {
	case "python", "pypy", "ipython":
		p := optionsUntilOperand(args, "cmWXQ")
		if len(p.value('c')) > 0 {
			return false
		}
		if mods := p.value('m'); len(mods) > 0 {
			m, _ := mods[0].single()
			return !serverModules[strings.ToLower(m)] && !serverModules[strings.ToLower(strings.SplitN(m, ".", 2)[0])]
		}
		return scriptOperand(p)
	case "rscript":
		p := optionsUntilOperand(args, "e")
		return len(p.value('e')) == 0 && scriptOperand(p)
	case "julia":
		p := optionsUntilOperand(args, "eECJLpt", "project", "threads", "procs", "load", "sysimage", "eval", "print")
		return len(p.value('e', "eval")) == 0 && len(p.value('E', "print")) == 0 && scriptOperand(p)
	case "octave":
		p := optionsUntilOperand(args, "p", "eval", "path")
		return len(p.value(0, "eval")) == 0 && scriptOperand(p)
	case "matlab":
		return hasWord(args, "-batch") || hasWord(args, "-r")
	case "r":
		v := strs(args)
		return len(v) > 2 && v[0] == "CMD" && v[1] == "BATCH" || hasWord(args, "-f") ||
			anyPrefix(v, "--file=") || in.file != ""
	case "accelerate":
		return len(args) > 0 && args[0].raw == "launch"
	case "snakemake":
		return true
	case "nextflow":
		return len(args) > 0 && args[0].raw == "run"
	}
	return false
}

// optionsUntilOperand is parseArgs stopped at the first operand: the
// words after a script belong to the script, not the interpreter.
func optionsUntilOperand(args []word, shortVal string, longVal ...string) *args {
	end := len(args)
	for i := 0; i < len(args); i++ {
		s, ok := args[i].single()
		if !ok || len(s) < 2 || s[0] != '-' {
			end = i
			break
		}
		if s == "--" {
			end = i + 1
			break
		}
		if strings.HasPrefix(s, "--") {
			if name, _, eq := strings.Cut(s[2:], "="); !eq && slices.Contains(longVal, name) {
				i++
			}
			continue
		}
		if k := strings.IndexAny(s[1:], shortVal); shortVal != "" && k >= 0 && k+2 == len(s) {
			i++ // the value is the next word
		}
	}
	if end > len(args) {
		end = len(args)
	}
	p := parseArgs(args[:end], shortVal, longVal...)
	p.ops = append(p.ops, args[end:]...)
	return p
}

// scriptOperand reports whether the interpreter runs a script file whose
// name does not say it serves (server.py, serve.py).
func scriptOperand(p *args) bool {
	if len(p.ops) == 0 {
		return false
	}
	v, ok := p.ops[0].single()
	if !ok {
		return true // a script named at run time
	}
	if v == "-" {
		return false
	}
	return !strings.Contains(strings.ToLower(path.Base(toSlash(v))), "serve")
}

func hasWord(args []word, w string) bool {
	for _, a := range args {
		if a.raw == w {
			return true
		}
	}
	return false
}

func anyPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
