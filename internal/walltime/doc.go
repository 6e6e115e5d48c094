// Package walltime holds the spellings of a job's time limit that batch
// schedulers and timeout(1) accept (Slurm's --time, PBS's walltime, LSF's
// -W, timeout's duration) and reads them as durations, so that the shell
// analyser (internal/permission) and the domain config (internal/gate)
// read a limit the same way. It imports only the standard library.
package walltime
