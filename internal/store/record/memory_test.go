package record

import (
	"testing"
	"time"
)

// TestTrustOf: an explicit trust wins (0 stays 0), else the source type's
// default, else the default source type of where the memory came from.
func TestTrustOf(t *testing.T) {
	tests := []struct {
		name string
		m    NewMemory
		want float64
	}{
		{"explicit", NewMemory{Source: "hook", SourceType: SourceModel, Trust: Trust(0.7)}, 0.7},
		{"explicit zero", NewMemory{Source: "cli", Trust: Trust(0)}, 0},
		{"source type", NewMemory{Source: "cli", SourceType: SourceBlog}, 0.5},
		{"a hook records code", NewMemory{Source: "hook"}, 1},
		{"a person's note", NewMemory{Source: "cli"}, 1},
		{"unknown source type: a person's", NewMemory{Source: "cli", SourceType: "rumour"}, SourceTrust[SourcePerson]},
		{"model output", NewMemory{Source: "import", SourceType: SourceModel}, 0.35},
		{"a paper with a DOI in its ref", NewMemory{Source: "cli", SourceType: SourcePaper, Ref: "https://doi.org/10.1038/nbt.3437"}, 0.85},
		{"a paper with a PMID in its text", NewMemory{Source: "cli", SourceType: SourcePaper, Text: "20 nt guides (PMID: 26780180)"}, 0.85},
		{"a paper without an id, trust given", NewMemory{Source: "cli", SourceType: SourcePaper, Trust: Trust(0.9)}, 0.9},
	}
	for _, tt := range tests {
		if got := TrustOf(tt.m); got != tt.want {
			t.Errorf("%s: TrustOf = %v, want %v", tt.name, got, tt.want)
		}
	}
	if DefaultSourceType("bench") != SourceCode || DefaultSourceType("import") != SourcePerson {
		t.Error("bench runs are code's observations and imports a person's notes")
	}
}

// TestContentHash: the same text of the same kind hashes the same whatever
// its surrounding blanks; another kind or text does not.
func TestContentHash(t *testing.T) {
	h := ContentHash(KindNote, "batch key is the day")
	if ContentHash(KindNote, "  batch key is the day\n") != h {
		t.Error("surrounding blanks changed the hash")
	}
	if ContentHash(KindDecision, "batch key is the day") == h || ContentHash(KindNote, "batch key is the run") == h {
		t.Error("another kind or text kept the hash")
	}
	if len(h) != 32 {
		t.Errorf("hash %q, want 32 hex digits", h)
	}
}

func TestAlertCountsTotal(t *testing.T) {
	if n := (AlertCounts{Halt: 1, Warn: 2, Info: 3}).Total(); n != 6 {
		t.Errorf("Total = %d, want 6", n)
	}
}

// TestOutranksAndTrustLabel: trust first, then the newer (by the
// millisecond, then the id); and the source a disputing memory's trust
// names.
func TestOutranksAndTrustLabel(t *testing.T) {
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		got  bool
		want bool
	}{
		{"more trusted, older", Outranks(0.85, at, 1, 0.35, at.Add(time.Hour), 2), true},
		{"less trusted, newer", Outranks(0.35, at.Add(time.Hour), 2, 0.85, at, 1), false},
		{"equal trust, newer", Outranks(1, at.Add(time.Hour), 2, 1, at, 1), true},
		{"equal trust, same millisecond, larger id", Outranks(1, at.Add(time.Microsecond), 2, 1, at, 3), false},
		{"equal trust, same millisecond, larger id wins", Outranks(1, at, 3, 1, at.Add(time.Microsecond), 2), true},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	for trust, want := range map[float64]string{0.35: "model-sourced", 0.5: "blog-sourced", 0.85: "paper-sourced",
		TrustPaperNoID: "unidentified-paper", 0.42: "trust 0.42"} {
		if got := TrustLabel(trust); got != want {
			t.Errorf("TrustLabel(%v) = %q, want %q", trust, got, want)
		}
	}
}
