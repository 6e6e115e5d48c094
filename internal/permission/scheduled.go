package permission

import "strings"

// The compute runs started through programs other than a scheduler or a
// trailing "&" (compute.go holds the rule and the allowance): a run
// scheduled for later (at, batch, a crontab), a transient service
// (systemd-run), a run on another host (ssh), a job started once per input
// (parallel), a detached container and a Kubernetes job.

// schedulers are the programs that submit batch jobs.
var schedulers = setOf("sbatch", "srun", "salloc", "qsub", "bsub")

// later is why no allowance covers a run the call leaves for later.
const later = "a run left to start later, or again and again, is not bounded by the allowance: approve it if the project needs it"

// scheduledJob reads at and batch: they queue the commands on stdin or in
// -f FILE to run later. Listing, removing and printing queued jobs (-l,
// -r, -d, -c, atq, atrm) queue nothing.
func scheduledJob(prog string, args []word, in stdinSrc) *jobAsk {
	o, _ := getopt(strs(args), "fqtmM", nil, nil)
	if quiet(o, "l", "r", "d", "c", "V", "help", "version") {
		return nil
	}
	if _, file := o["f"]; !file && !in.known && !in.piped && in.file == "" {
		return nil // no job text: Bash's stdin is empty
	}
	return &jobAsk{what: "a run scheduled for later (" + prog + ")", fixed: later}
}

// crontabJob reads crontab: installing a table (a file, or "-" and no
// operand for stdin) schedules its commands; -l, -r, -e and -i list,
// remove or edit and install nothing the command names.
func crontabJob(args []word) *jobAsk {
	o, _ := getopt(strs(args), "uc", nil, nil)
	if quiet(o, "l", "r", "e", "i", "T", "V", "help", "version") {
		return nil
	}
	return &jobAsk{what: "a crontab (crontab), which runs its commands on a schedule", fixed: later}
}

// kubeKinds are the Kubernetes kinds that run a job to completion (the
// batch API and the training operators'), by their "kind:" line.
var kubeKinds = setOf("Job", "CronJob", "PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob",
	"TrainJob", "RayJob", "RayCluster", "Workflow", "CronWorkflow", "VolcanoJob", "JobSet")

// kubeJob reads kubectl apply, create and replace -f FILE: a manifest in
// the project that declares a job (kubeKinds) or asks for GPUs
// (nvidia.com/gpu, amd.com/gpu) starts one. kubectl create job and kubectl
// run are plain words of the compute group; get, logs, delete, ... start
// nothing, nor does a manifest of a service or a config map.
func (a *shellAnalyzer) kubeJob(args []word, st *shellState) *jobAsk {
	argv := strs(args)
	sub := ""
	var files []string
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		switch {
		case s == "-f" || s == "--filename":
			if i+1 < len(argv) {
				files = append(files, argv[i+1])
				i++
			}
		case strings.HasPrefix(s, "--filename="):
			files = append(files, strings.TrimPrefix(s, "--filename="))
		case strings.HasPrefix(s, "-f") && len(s) > 2 && s[2] != '-':
			files = append(files, s[2:])
		case s == "--dry-run" || strings.HasPrefix(s, "--dry-run=") && s != "--dry-run=none":
			return nil
		case sub == "" && s != "" && s[0] != '-':
			sub = s
		}
	}
	if sub != "apply" && sub != "create" && sub != "replace" {
		return nil
	}
	for _, f := range files {
		text := a.readScript(f, st)
		if kubeStartsJob(text) {
			return &jobAsk{what: "a Kubernetes job (kubectl " + sub + " -f " + f + ")", gpus: -1,
				fixed: "how long a Kubernetes job runs is not bounded by its command, so the allowance does not cover it: approve it if the project needs it"}
		}
	}
	return nil
}

func kubeStartsJob(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if k, ok := strings.CutPrefix(line, "kind:"); ok && kubeKinds[strings.Trim(strings.TrimSpace(k), `"'`)] {
			return true
		}
		if strings.Contains(line, "nvidia.com/gpu") || strings.Contains(line, "amd.com/gpu") {
			return true
		}
	}
	return false
}

// systemd-run's options that take a value, and the ones that start the
// command on a timer or trigger instead of now.
var (
	systemdVal = setOf("unit", "property", "description", "slice", "setenv", "uid", "gid", "nice", "working-directory",
		"service-type", "machine", "host", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive",
		"on-calendar", "path-property", "socket-property", "timer-property", "background", "shell")
	systemdLater = []string{"on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "on-calendar",
		"on-clock-change", "on-timezone-change", "path-property", "socket-property", "timer-property"}
)

// systemdRun reads systemd-run: the command runs as a transient service
// that outlives the call (a detached run), unless --scope, --wait, --pty
// or --pipe keep it attached; with a timer (--on-calendar, ...) it is a
// run scheduled for later. The command it runs is judged as a compute run
// started that way (and analysed as if typed: it runs on this machine).
// It returns the job to record, or nil when the command
// it runs was judged (or runs nothing).
func (a *shellAnalyzer) systemdRun(args []word, st *shellState, in stdinSrc, raw string) *jobAsk {
	argv := strs(args)
	o, rest := getopt(argv, "upEMH", systemdVal, nil)
	i := len(argv) - len(rest)
	if quiet(o, "help", "version", "h") || i >= len(args) {
		return nil
	}
	if quiet(o, systemdLater...) {
		if name, ok := args[i].single(); ok && (analysisRun(programName(name), args[i+1:], in) || schedulers[programName(name)]) {
			return &jobAsk{what: "a run on a timer (systemd-run)", fixed: later}
		}
		return nil
	}
	saved := a.launch
	if !quiet(o, "scope", "wait", "W", "pty", "t", "pipe", "P", "shell", "S") && a.launch.detach == "" {
		a.launch.detach = raw
	}
	a.run(args[i:], st, in, "")
	a.launch = saved
	return nil
}

// sshVal are ssh's options that take a value.
const sshVal = "BbcDEeFIiJLlmOopQRSWw"

// remoteRun reads ssh HOST COMMAND...: the remote command (the words
// after the host, joined by spaces as ssh joins them) is judged for the
// compute runs it starts, as if typed on that host, and only for those:
// its files are not this project's, so nothing else of it is judged here
// and the scripts it names are not read.
func (a *shellAnalyzer) remoteRun(args []word, st *shellState, raw string) {
	argv := strs(args)
	_, rest := getopt(argv, sshVal, nil, nil)
	i := len(argv) - len(rest)
	if i+1 >= len(args) || !allKnown(args[i+1:]) {
		return
	}
	sub := &shellAnalyzer{eff: &effects{}, root: a.root, home: a.home, launch: a.launch, depth: a.depth + 1}
	sub.launch.remote = true
	sub.nested(wordsText(args[i+1:]), st.clone())
	for _, h := range sub.eff.hits {
		if h.group == "compute" && h.job != nil {
			h.job.what += " on " + argv[i]
			h.job.reapable = false
			h.text = shorten(raw)
			a.eff.hits = append(a.eff.hits, h)
		}
	}
}

// parallelRun reads GNU parallel's command (the words before ":::" or
// "::::"; none when the commands come from stdin): a compute run it
// starts is started once per input.
func (a *shellAnalyzer) parallelRun(args []word, st *shellState, in stdinSrc, raw string) {
	argv := strs(args)
	i := 0
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-") && !strings.HasPrefix(argv[i], ":::"); i++ {
		if s := argv[i]; s == "-j" || s == "-S" || s == "--jobs" || s == "--sshlogin" || s == "-a" || s == "--arg-file" {
			i++
		}
	}
	end := i
	for end < len(argv) && !strings.HasPrefix(argv[end], ":::") {
		end++
	}
	if i >= end {
		return
	}
	name, ok := args[i].single()
	if !ok {
		return
	}
	saved := a.launch
	a.launch.repeat = "parallel"
	a.compute(programName(name), args[i+1:end], st, in, raw)
	a.launch = saved
}

// detachedContainer reads docker or podman run without GPUs: a container
// started detached (-d, --detach) that runs an analysis (its command, the
// words after the image, is a detached run's program: python train.py,
// torchrun, ...) keeps computing after the call. A detached database or
// web server for a test is not a compute run.
func detachedContainer(prog string, args []word) *jobAsk {
	argv := strs(args)
	detached := false
	for k, s := range argv {
		switch {
		case s == "--detach" || s == "--detach=true":
			detached = true
		case len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.Trim(s[1:], "ditP") == "" && strings.Contains(s, "d"):
			detached = true
		}
		if !detached || strings.HasPrefix(s, "-") {
			continue
		}
		if analysisRun(programName(s), args[k+1:], stdinSrc{}) {
			return &jobAsk{what: "a detached container (" + prog + " run -d)",
				fixed: "how long a container runs is not bounded by its command, so the allowance does not cover it: approve it if the project needs it"}
		}
	}
	return nil
}

// composeFiles are the files docker compose reads when no -f names one.
var composeFiles = []string{"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"}

// composeJob reads docker compose up -d (or docker-compose, podman-compose):
// services started detached from a compose file in the project that
// reserves GPUs (a device with capabilities [gpu] or driver nvidia, gpus:)
// or whose command is an analysis run.
func (a *shellAnalyzer) composeJob(prog string, args []word, st *shellState) *jobAsk {
	argv := strs(args)
	var files []string
	up, detached := false, false
	for i := 0; i < len(argv); i++ {
		switch s := argv[i]; {
		case s == "-f" || s == "--file":
			if i+1 < len(argv) {
				files = append(files, argv[i+1])
				i++
			}
		case strings.HasPrefix(s, "--file="):
			files = append(files, strings.TrimPrefix(s, "--file="))
		case s == "up" || s == "run":
			up = true
		case up && (s == "-d" || s == "--detach" || s == "--wait"):
			detached = true
		}
	}
	if !up || !detached {
		return nil
	}
	if len(files) == 0 {
		files = composeFiles
	}
	for _, f := range files {
		if composeComputes(a.readScript(f, st)) {
			return &jobAsk{what: "detached containers that compute (" + prog + " up -d, " + f + ")",
				fixed: "how long a container runs is not bounded by its command, so the allowance does not cover it: approve it if the project needs it"}
		}
	}
	return nil
}

func composeComputes(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, "capabilities: [gpu") || strings.Contains(line, "driver: nvidia") ||
			strings.HasPrefix(line, "gpus:") || strings.Contains(line, "nvidia.com/gpu") {
			return true
		}
		cmd, ok := strings.CutPrefix(line, "command:")
		if !ok {
			continue
		}
		cmd = strings.TrimSpace(cmd)
		if strings.HasPrefix(cmd, "[") {
			cmd = strings.NewReplacer("[", "", "]", "", ",", " ").Replace(cmd)
		}
		for _, s := range pipeline(cmd) {
			if w := literalArgs(s); len(w) > 0 && analysisRun(programName(w[0]), lits(w[1:]), stdinSrc{}) {
				return true
			}
		}
	}
	return false
}

func lits(v []string) []word {
	out := make([]word, len(v))
	for i, s := range v {
		out[i] = lit(s)
	}
	return out
}
