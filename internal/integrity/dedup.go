package integrity

import "github.com/vibe-science/vibe/internal/verdict"

// Dedup returns the verdicts of vs whose decision hash was neither seen
// before (seen may be nil) nor already taken earlier in vs, in their order.
// A verdict without a hash cannot be recognised again and is always kept.
// vs is not modified.
func Dedup(vs []verdict.Verdict, seen func(hash string) bool) []verdict.Verdict {
	out := make([]verdict.Verdict, 0, len(vs))
	taken := make(map[string]struct{}, len(vs))
	for _, v := range vs {
		h := v.DecisionHash
		if h == "" {
			out = append(out, v)
			continue
		}
		if _, dup := taken[h]; dup {
			continue
		}
		taken[h] = struct{}{}
		if seen != nil && seen(h) {
			continue
		}
		out = append(out, v)
	}
	return out
}
