package recall

import (
	"math"
	"reflect"
	"testing"
)

func TestSubject(t *testing.T) {
	tests := []struct {
		text  string
		words []string
		qs    []quantity
	}{
		{"Use a 1% read threshold", []string{"use", "a", "read", "threshold"}, []quantity{{0.01, ""}}},
		{"lr 3e-4, batch 32", []string{"lr", "batch", "batch 32"}, []quantity{{3e-4, ""}}},
		{"cohort size n=120", []string{"cohort", "size", "n"}, []quantity{{120, ""}}},
		{"timeout 500 ms", []string{"timeout"}, []quantity{{0.5, "s"}}},
		{"timeout 2s", []string{"timeout"}, []quantity{{2, "s"}}},
		{"38,112 sites, delta -0.5", []string{"sites", "delta"}, []quantity{{38112, ""}, {-0.5, ""}}},
		// Identifiers, years, dates and glued words are words.
		{"Gate DQ2 passed for C-12", []string{"gate", "dq2", "passed", "for", "c", "c 12"}, nil},
		{"chromosome 2 hotspot", []string{"chromosome", "chromosome 2", "hotspot"}, nil},
		{"Lazzarotto 2020 uses hg19", []string{"lazzarotto", "2020", "uses", "hg19"}, nil},
		{"run on 2026-04-09 at 09:30", []string{"run", "on", "2026", "2026 04", "09", "at", "09", "30"}, nil},
		{"v1.2 of the pipeline", []string{"v1", "2", "of", "the", "pipeline"}, nil},
		{"the 10x PBMC 3k set", []string{"the", "pbmc", "3k", "set"}, []quantity{{10, "x"}}},
	}
	for _, tt := range tests {
		words, qs := subject(tt.text)
		if !reflect.DeepEqual(words, tt.words) || !reflect.DeepEqual(qs, tt.qs) {
			t.Errorf("subject(%q) = %q %v, want %q %v", tt.text, words, qs, tt.words, tt.qs)
		}
	}
}

func TestContradictsNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Use a 1% read threshold for off-target calls", "Use a 0.1% read threshold for off-target calls", true},
		{"Default lr 3e-4 for the ViT runs", "Default lr 1e-3 for the ViT runs", true},
		{"Cohort size n=120 after QC", "Cohort size n=95 after QC", true},
		{"Alignment timeout is 500 ms per read", "Alignment timeout is 2 s per read", true},
		// The same value in other words or units.
		{"Use a 1% read threshold for off-target calls", "Use a 0.01 read threshold for off-target calls", false},
		{"Alignment timeout is 500 ms per read", "Alignment timeout is 0.5 s per read", false},
		// A value added, not changed.
		{"AUROC 0.91 for the held-out guides", "AUROC 0.91 for the held-out guides on 120 sites", false},
		// Different subjects with different numbers.
		{"Use a 1% read threshold for off-target calls", "Mapping quality threshold of 20 for amplicon reads", false},
		{"The chromosome 2 hotspot holds 14 sites", "The chromosome 5 hotspot holds 9 sites", false},
		{"Gate DQ1 failed on claim C-3: R² was 0.41", "Gate DQ1 failed on claim C-7: R² was 0.88", false},
		// Different classes are not compared.
		{"Sweep took 40 s over 3 GB", "Sweep took 40 s over 5 x", false},
	}
	for _, tt := range tests {
		for _, pair := range [][2]string{{tt.a, tt.b}, {tt.b, tt.a}} {
			if got := Contradicts(pair[0], pair[1]); got != tt.want {
				t.Errorf("Contradicts(%q, %q) = %v, want %v", pair[0], pair[1], got, tt.want)
			}
		}
	}
}

// FuzzSubject: any text splits without panicking, and every quantity is
// a finite number.
func FuzzSubject(f *testing.F) {
	for _, s := range []string{"lr 3e-4", "n=120", "1%", "C-12", "2026-04-09 09:30", "3e", "1,", "38,112.5e+3 ms", "-", "°C 5°", "µs 5µs", "5 s.", "0.1%% x", "1e308 TB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, qs := subject(text)
		for _, q := range qs {
			if math.IsNaN(q.value) || math.IsInf(q.value, 0) {
				t.Fatalf("subject(%q): quantity %v", text, q)
			}
		}
	})
}
