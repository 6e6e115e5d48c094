package walltime

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Slurm reads a time limit as sbatch, srun and salloc take it: "minutes",
// "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes" or "days-hours:minutes:seconds". "UNLIMITED",
// "INFINITE", 0 and anything else are not a bound: ok is false.
func Slurm(s string) (d time.Duration, ok bool) {
	s = strings.TrimSpace(s)
	days := 0
	if dd, rest, dash := strings.Cut(s, "-"); dash {
		n, ok := number(dd)
		if !ok {
			return 0, false
		}
		days = n
		f, ok := fields(rest, 3)
		if !ok {
			return 0, false
		}
		// days-hours[:minutes[:seconds]]
		units := []time.Duration{time.Hour, time.Minute, time.Second}
		d = time.Duration(days) * 24 * time.Hour
		for i, v := range f {
			d += time.Duration(v) * units[i]
		}
		return d, d > 0
	}
	f, ok := fields(s, 3)
	if !ok {
		return 0, false
	}
	switch len(f) {
	case 1:
		d = time.Duration(f[0]) * time.Minute
	case 2:
		d = time.Duration(f[0])*time.Minute + time.Duration(f[1])*time.Second
	default:
		d = time.Duration(f[0])*time.Hour + time.Duration(f[1])*time.Minute + time.Duration(f[2])*time.Second
	}
	return d, d > 0
}

// PBS reads a walltime as qsub's -l walltime= takes it:
// "[[hours:]minutes:]seconds", a plain number being seconds; a fraction of
// a second is dropped.
func PBS(s string) (time.Duration, bool) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), ".")
	f, ok := fields(s, 3)
	if !ok {
		return 0, false
	}
	var d time.Duration
	for _, v := range f {
		d = d*60 + time.Duration(v)
	}
	d *= time.Second
	return d, d > 0
}

// LSF reads bsub's -W run limit: "[hours:]minutes", optionally followed by
// "/host" (the host whose speed normalises it, ignored here).
func LSF(s string) (time.Duration, bool) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "/")
	f, ok := fields(s, 2)
	if !ok {
		return 0, false
	}
	d := time.Duration(f[len(f)-1]) * time.Minute
	if len(f) == 2 {
		d += time.Duration(f[0]) * time.Hour
	}
	return d, d > 0
}

// Timeout reads timeout(1)'s duration: a number (a fraction allowed) with
// an optional unit s, m, h or d (seconds by default). 0 means no limit.
func Timeout(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	unit := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			unit, s = time.Minute, s[:len(s)-1]
		case 'h':
			unit, s = time.Hour, s[:len(s)-1]
		case 'd':
			unit, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 1e6 {
		return 0, false
	}
	return time.Duration(v * float64(unit)), true
}

// Format writes d as Slurm's "hours:minutes:seconds" (hours may pass 24),
// the spelling the domain config's compute.max_time takes.
func Format(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// fields splits s at ':' into at most max non-negative integers.
func fields(s string, max int) ([]int, bool) {
	parts := strings.Split(s, ":")
	if len(parts) > max {
		return nil, false
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// number reads a non-negative decimal integer of at most 7 digits (no
// time limit needs more; longer ones would overflow a Duration).
func number(s string) (int, bool) {
	if s == "" || len(s) > 7 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
