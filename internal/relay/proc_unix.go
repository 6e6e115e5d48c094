//go:build unix

package relay

import (
	"sync"
	_ "unsafe" // go:linkname
)

// The process's arguments and environment, read as the Go runtime holds
// them. Package os would give them at the cost of its start-up; syscall's
// first Getenv or Environ copies the whole environment into a map (25 µs,
// a fiftieth of an empty Go binary's run) and /proc/self/cmdline takes
// four system calls (20 µs). The runtime hands both lists to os and
// syscall through these two functions, which it exports for that purpose
// (a renamed one fails the build, it cannot misbehave).

//go:linkname runtimeArgs os.runtime_args
func runtimeArgs() []string

//go:linkname runtimeEnvs syscall.runtime_envs
func runtimeEnvs() []string

// thisProcess is this process's environment: what the hook reads,
// forwards to the worker and passes to the local handler, with what
// setenv added.
var thisProcess procEnv

type procEnv struct {
	once sync.Once
	mu   sync.Mutex
	vars []string // KEY=VALUE, in the runtime's order
}

func (p *procEnv) load() { p.once.Do(func() { p.vars = runtimeEnvs() }) }

// getenv is the value of the first k in the environment, as getenv(3).
func (p *procEnv) getenv(k string) string {
	p.load()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, kv := range p.vars {
		if v, ok := cutPrefix(kv, k); ok && hasPrefix(v, "=") {
			return v[1:]
		}
	}
	return ""
}

// setenv sets k for the rest of this process and what it runs.
func (p *procEnv) setenv(k, v string) error {
	p.load()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, kv := range p.vars {
		if hasPrefix(kv, k+"=") {
			p.vars[i] = k + "=" + v
			return nil
		}
	}
	p.vars = append(p.vars, k+"="+v)
	return nil
}

// environ is a copy of the environment.
func (p *procEnv) environ() []string {
	p.load()
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.vars...)
}

// args are the process's arguments after its name.
func args() []string {
	if a := runtimeArgs(); len(a) > 1 {
		return a[1:]
	}
	return nil
}
