package calibrate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/vibe-science/vibe/internal/claim"
)

// readYAML reads a YAML R2 report with a YAML parser, so comments, quoting,
// flow collections and block scalars mean what YAML says (a line reader
// took "mode: SHADOW" inside a notes block for the mode). The fields are
// those readText documents; claims are every claim id the file cites. ok is
// false when the file is not a YAML mapping; the error says why.
func readYAML(relPath string, content []byte) (r Review, ok bool, err error) {
	var doc map[string]any
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return Review{}, false, err
	}
	if doc == nil {
		return Review{}, false, fmt.Errorf("the file holds no YAML mapping")
	}
	r = Review{Kind: KindR2Report, Claims: claim.CitedClaims(content), SFIMissed: []string{}, Problems: []string{}}
	if r.Claims == nil {
		r.Claims = []string{}
	}
	fields := normaliseKeys(doc)
	if s, ok := scalar(fields["review_id"]); ok {
		r.ReviewID = strings.TrimSpace(s)
	}
	if s, ok := scalar(fields["mode"]); ok {
		if m := strings.ToUpper(strings.TrimSpace(s)); isWord(m) {
			r.Mode = m
		}
	}
	switch v := fields["reviewed_at"].(type) {
	case time.Time:
		r.At = v.UTC()
	case string:
		r.At = parseTime(v)
	}

	// The tally: an sfi: (or seeded_faults:) mapping, or flat sfi_* /
	// seeded_faults_* keys.
	tally := map[string]any{}
	for _, block := range []string{"sfi", "seeded_faults"} {
		if m, ok := fields[block].(map[string]any); ok {
			for k, v := range normaliseKeys(m) {
				tally[k] = v
			}
		}
		for _, k := range []string{"injected", "caught", "missed"} {
			if v, ok := fields[block+"_"+k]; ok {
				tally[k] = v
			}
		}
	}
	injected, hasInjected := yamlCount(tally["injected"])
	caught, hasCaught := yamlCount(tally["caught"])
	missed, hasMissed := yamlList(tally["missed"])
	if hasInjected || hasCaught || hasMissed {
		r.SFIKnown = true
		r.SFICaught = caught
		if hasMissed {
			r.SFIMissed = missed
		}
		if hasInjected {
			r.SFIInjected = injected
		} else {
			r.SFIInjected = r.SFICaught + len(r.SFIMissed)
		}
	}
	if r.ReviewID == "" {
		r.ReviewID = stem(relPath)
	}
	return r, true, nil
}

// normaliseKeys lower-cases keys and writes hyphens and spaces as
// underscores, as readText does.
func normaliseKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	r := strings.NewReplacer("-", "_", " ", "_")
	for k, v := range m {
		out[r.Replace(strings.ToLower(strings.TrimSpace(k)))] = v
	}
	return out
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// yamlCount reads a count given as a number, a list (its length) or a list in
// a string ("a; b").
func yamlCount(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case []any:
		return len(x), true
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, true
		}
		if items := splitList(x); len(items) > 0 {
			return len(items), true
		}
	}
	return 0, false
}

// yamlList reads a list of ids given as a YAML list or a string ("a; b").
func yamlList(v any) ([]string, bool) {
	switch x := v.(type) {
	case []any:
		out := []string{}
		for _, item := range x {
			if s, ok := scalar(item); ok && strings.TrimSpace(s) != "" {
				out = append(out, strings.TrimSpace(s))
			}
		}
		return out, true
	case string:
		return splitList(x), true
	case nil:
		return nil, false
	}
	return nil, false
}
