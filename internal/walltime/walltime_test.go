package walltime

import (
	"testing"
	"time"
)

func TestSpellings(t *testing.T) {
	h, m, s := time.Hour, time.Minute, time.Second
	for _, c := range []struct {
		name string
		read func(string) (time.Duration, bool)
		in   string
		want time.Duration // 0: not a bound
	}{
		{"slurm", Slurm, "30", 30 * m},
		{"slurm", Slurm, "30:15", 30*m + 15*s},
		{"slurm", Slurm, "01:00:00", h},
		{"slurm", Slurm, "12:30:00", 12*h + 30*m},
		{"slurm", Slurm, "2-00:00:00", 48 * h},
		{"slurm", Slurm, "1-12", 36 * h},
		{"slurm", Slurm, "1-2:30", 26*h + 30*m},
		{"slurm", Slurm, "UNLIMITED", 0},
		{"slurm", Slurm, "infinite", 0},
		{"slurm", Slurm, "0", 0},
		{"slurm", Slurm, "1:2:3:4", 0},
		{"slurm", Slurm, "", 0},
		{"slurm", Slurm, "-5", 0},
		{"pbs", PBS, "01:00:00", h},
		{"pbs", PBS, "3600", h},
		{"pbs", PBS, "90:00", 90 * m},
		{"pbs", PBS, "48:00:00", 48 * h},
		{"pbs", PBS, "10:00.5", 10 * m},
		{"pbs", PBS, "x", 0},
		{"lsf", LSF, "30", 30 * m},
		{"lsf", LSF, "2:30", 2*h + 30*m},
		{"lsf", LSF, "1:00/hostA", h},
		{"lsf", LSF, "1:2:3", 0},
		{"timeout", Timeout, "90", 90 * s},
		{"timeout", Timeout, "30m", 30 * m},
		{"timeout", Timeout, "1.5h", 90 * m},
		{"timeout", Timeout, "2d", 48 * h},
		{"timeout", Timeout, "0", 0},
		{"timeout", Timeout, "10x", 0},
	} {
		got, ok := c.read(c.in)
		if !ok {
			got = 0
		}
		if got != c.want || ok != (c.want > 0) {
			t.Errorf("%s(%q) = %v, %v; want %v", c.name, c.in, got, ok, c.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour:                             "01:00:00",
		90 * time.Minute:                      "01:30:00",
		50*time.Hour + time.Second:            "50:00:01",
		30*time.Minute + 500*time.Millisecond: "00:30:01",
	} {
		if got := Format(d); got != want {
			t.Errorf("Format(%v) = %q, want %q", d, got, want)
		}
		if back, ok := Slurm(Format(d)); !ok || back != d.Round(time.Second) {
			t.Errorf("Slurm(Format(%v)) = %v, %v", d, back, ok)
		}
	}
}
