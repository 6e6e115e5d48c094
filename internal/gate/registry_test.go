package gate

import (
	"io/fs"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/skill"
)

var wantOrder = []string{"G0", "G1", "G2", "G3", "G4", "G5", "G6", "L-1", "L0", "L1", "L2", "D0", "D1", "D2",
	"T0", "T1", "T2", "T3", "B0", "S1", "S2", "S3", "S4", "S5", "DQ1", "DQ2", "DQ3", "DQ4", "DD0", "DC0", "V0", "J0"}

// TestRegistryCount pins the 32 gates the methodology defines (the
// blueprint's "34" counts two v5.0 gates no document defines; see doc.go).
func TestRegistryCount(t *testing.T) {
	reg := Registry()
	var ids []string
	seen := map[string]bool{}
	for _, g := range reg {
		if seen[g.ID] {
			t.Errorf("gate %s listed twice", g.ID)
		}
		seen[g.ID] = true
		ids = append(ids, g.ID)
	}
	if len(reg) != 32 {
		t.Fatalf("registry has %d gates, want 32", len(reg))
	}
	if !reflect.DeepEqual(ids, wantOrder) {
		t.Errorf("order %q, want %q", ids, wantOrder)
	}
}

func TestRegistryKinds(t *testing.T) {
	want := map[Kind][]string{
		KindCode:   {"L-1", "DQ1", "DQ2", "DQ3", "DQ4", "DD0", "DC0"},
		KindSchema: {"L0", "L2", "D1", "D2", "B0", "S4", "S5", "V0", "J0"},
		KindPrompt: {"G0", "G1", "G2", "G3", "G4", "G5", "G6", "L1", "D0", "T0", "T1", "T2", "T3", "S1", "S2", "S3"},
	}
	got := map[Kind][]string{}
	for _, g := range Registry() {
		got[g.Kind] = append(got[g.Kind], g.ID)
		if g.Name == "" || g.Purpose == "" || g.Trigger == "" || g.Enforced == "" {
			t.Errorf("%s lacks a name, purpose, trigger or enforcement", g.ID)
		}
		switch g.Kind {
		case KindSchema:
			if g.Schema == "" || g.Command == "" {
				t.Errorf("schema gate %s lacks its schema or command", g.ID)
			}
			if _, err := fs.Stat(skill.FS, "vibe/schemas/"+g.Schema); err != nil {
				t.Errorf("schema gate %s: %s is not in skill/vibe/schemas: %v", g.ID, g.Schema, err)
			}
		case KindCode:
			if g.Command == "" || g.Enforced == "prompt" {
				t.Errorf("code gate %s lacks a command or an enforcement point", g.ID)
			}
		case KindPrompt:
			if g.Command != "" || g.Schema != "" || g.Enforced != "prompt" {
				t.Errorf("prompt gate %s claims code enforcement", g.ID)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	thresholds := map[string]map[string]any{
		"J0": {"min_total": 12, "max_total": 18, "min_dimension": 1, "min_counter_evidence": 2, "max_consecutive_failures": 2},
		"T3": {"min_good_ratio": 0.2, "min_exploration_ratio": 0.2, "fail_exploration_ratio": 0.1},
		"V0": {"min_rms": 0.8, "max_far": 0.1, "max_attempts": 3},
	}
	for id, th := range thresholds {
		g, _ := Lookup(id)
		if !reflect.DeepEqual(g.Thresholds, th) {
			t.Errorf("%s thresholds %v, want %v", id, g.Thresholds, th)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{{"dq1", "DQ1", true}, {" DQ4 ", "DQ4", true}, {"l-1", "L-1", true}, {"L-1+", "L-1", true}, {"j0", "J0", true}, {"DQ5", "", false}, {"", "", false}} {
		g, ok := Lookup(tt.in)
		if ok != tt.ok || g.ID != tt.want {
			t.Errorf("Lookup(%q) = %q, %v", tt.in, g.ID, ok)
		}
	}
	// Registry and Lookup hand out copies.
	g, _ := Lookup("DQ1")
	g.Thresholds["min_samples"] = 0
	r := Registry()
	r[0].ID = "X"
	if g2, _ := Lookup("DQ1"); g2.Thresholds["min_samples"] != 10 || Registry()[0].ID != "G0" {
		t.Errorf("registry was modified through a copy")
	}
}

// TestRegistryMatchesGatesDoc holds skill/vibe/gates.md and the registry to
// the same ids, in the same order, with the same enforcement level.
func TestRegistryMatchesGatesDoc(t *testing.T) {
	raw, err := fs.ReadFile(skill.FS, "vibe/gates.md")
	if err != nil {
		t.Skip("skill/vibe/gates.md not present")
	}
	heads := regexp.MustCompile(`(?m)^## (\S+) — `).FindAllStringSubmatch(string(raw), -1)
	levels := regexp.MustCompile(`(?m)^- \*\*Enforcement:\*\* (code|schema|prompt)`).FindAllStringSubmatch(string(raw), -1)
	var ids []string
	for _, h := range heads {
		ids = append(ids, h[1])
	}
	if !reflect.DeepEqual(ids, wantOrder) {
		t.Fatalf("gates.md lists %q, registry %q", ids, wantOrder)
	}
	if len(levels) != len(ids) {
		t.Fatalf("gates.md has %d enforcement lines for %d gates", len(levels), len(ids))
	}
	for i, id := range ids {
		g, _ := Lookup(id)
		if string(g.Kind) != levels[i][1] {
			t.Errorf("%s: gates.md says %s, registry %s", id, levels[i][1], g.Kind)
		}
		if g.Schema != "" && !strings.Contains(string(raw), "`"+g.Schema+"`") {
			t.Errorf("%s: gates.md does not name %s", id, g.Schema)
		}
	}
}
