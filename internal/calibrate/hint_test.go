package calibrate

import (
	"testing"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/store/record"
)

func judged(score int, weak ...string) record.R2Review {
	if weak == nil {
		weak = []string{}
	}
	return record.R2Review{J0Score: &score, Weaknesses: weak}
}

func ip(n int) *int { return &n }

func tallied(injected, caught int, missed ...string) record.R2Review {
	return record.R2Review{SFIKnown: true, SFIInjected: injected, SFICaught: caught, SFIMissed: missed}
}

func TestHintFrom(t *testing.T) {
	tests := []struct {
		name string
		rs   []record.R2Review // newest first
		want string
	}{
		{"nothing", nil, ""},
		{"reviews without judge or tally", []record.R2Review{{Mode: "BATCH"}, {Mode: "INLINE"}}, ""},
		{"a weakness seen once is not a pattern; two scores are too few", []record.R2Review{
			judged(10, "escalation"), judged(12)}, ""},
		{"early data", []record.R2Review{judged(10, "escalation"), judged(12, "escalation"), judged(13)},
			"[R2 CALIBRATION] R2 weakest on escalation (2/3 judged). J0: early data (3 scored)."},
		{"declining, two weaknesses, ties in rubric order", []record.R2Review{
			judged(8, "counter_evidence_search", "confounder_analysis"), judged(9, "counter_evidence_search", "escalation"),
			judged(10, "confounder_analysis", "escalation"), judged(13), judged(12, "counter_evidence_search"), judged(14)},
			"[R2 CALIBRATION] R2 weakest on counter-evidence search (3/6 judged), confounder analysis (2). J0 declining 13.0→9.0 (6 scored): be stricter."},
		{"improving", []record.R2Review{judged(15), judged(14), judged(13), judged(9), judged(9), judged(10), judged(8)},
			"[R2 CALIBRATION] J0 improving 9.0→14.0 (7 scored)."},
		{"stable", []record.R2Review{judged(12), judged(12), judged(12), judged(12), judged(12), judged(12)},
			"[R2 CALIBRATION] J0 stable 12.0→12.0 (6 scored)."},
		{"everything at once stays short", []record.R2Review{
			{J0Score: ip(8), Weaknesses: []string{"counter_evidence_search", "falsification_demand"}, SFIKnown: true, SFIInjected: 3, SFIMissed: []string{"SFI-06a", "META-01b"}},
			{J0Score: ip(9), Weaknesses: []string{"counter_evidence_search", "falsification_demand"}, SFIKnown: true, SFIInjected: 2, SFICaught: 1, SFIMissed: []string{"SFI-06b"}},
			judged(10, "counter_evidence_search"), judged(13), judged(12), judged(14)},
			"[R2 CALIBRATION] R2 weakest on counter-evidence search (3/6 judged). Missed planted faults: fabricated or misattributed citation SFI-06 (2×); caught 1/5; plant these first at FORCED reviews. J0 declining 13.0→9.0 (6 scored): be stricter."},
		{"missed categories (SFI targeting)", []record.R2Review{
			tallied(3, 1, "SFI-08a", "SFI-01b"), tallied(2, 1, "SFI-01a"), tallied(2, 2), {Mode: "BATCH"}},
			"[R2 CALIBRATION] Missed planted faults: confounded claim SFI-01 (2×), missing control SFI-08 (1×); caught 4/7; plant these first at FORCED reviews."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hintFrom(tt.rs)
			if got != tt.want {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > MaxHintRunes {
				t.Errorf("hint is %d characters; keep it near 60 tokens", n)
			}
		})
	}
}

func TestPatternsFrom(t *testing.T) {
	long := "fix the off-by-one in the fold split of the leave-one-guide-out cross validation loop again"
	tests := []struct {
		name  string
		fixes []record.PatternCount
		gates []record.PatternCount
		want  string
	}{
		{"none", nil, nil, ""},
		{"fixes", []record.PatternCount{{Key: long, Count: 3}, {Key: "guard empty guide list", Count: 2}}, nil,
			`[RESEARCHER] Same fix made repeatedly: "fix the off-by-one in the fold split of the leave-one-guide…" (3×), "guard empty guide list" (2×); its cause may still be there.`},
		{"gates", nil, []record.PatternCount{{Key: "DQ4", Count: 4}, {Key: "DQ1", Count: 2}},
			"[RESEARCHER] Gates failing most: DQ4 (4×), DQ1 (2×); change the step upstream, not the threshold."},
		{"both", []record.PatternCount{{Key: "rename column", Count: 2}}, []record.PatternCount{{Key: "DD0", Count: 3}},
			`[RESEARCHER] Same fix made repeatedly: "rename column" (2×); its cause may still be there. Gates failing most: DD0 (3×); change the step upstream, not the threshold.`},
	}
	for _, tt := range tests {
		if got := patternsFrom(tt.fixes, tt.gates); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
