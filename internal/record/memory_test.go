package record

import "testing"

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
