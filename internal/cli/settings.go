package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/integrity"
)

// breakerDeps are the dependencies config.json's "breakers" may name.
var breakerDeps = []string{integrity.DepBrief, integrity.DepDatabase, integrity.DepVec, integrity.DepWorker}

// SettingsProblems lists what is wrong in a VIBE_HOME/config.json: keys
// vibe does not know (with the nearest known one: a misspelt key silently
// keeps its default otherwise), values of the wrong type, unknown
// circuit-breaker dependencies and modes. Nil means the file is fine.
func SettingsProblems(raw []byte) []string {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return []string{"not valid JSON: " + err.Error()}
	}
	fields := map[string]reflect.Type{}
	t := reflect.TypeOf(config.Settings{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = t.Field(i).Type
		}
	}
	var problems []string
	for _, key := range SortedKeysOf(top) {
		typ, ok := fields[key]
		if !ok {
			problems = append(problems, key+": unknown key"+suggestion(key, SortedKeysOf(fields)))
			continue
		}
		if key == "breakers" {
			problems = append(problems, breakerProblems(top[key])...)
			continue
		}
		if err := json.Unmarshal(top[key], reflect.New(typ).Interface()); err != nil {
			var str string
			if typ.Kind() == reflect.String && json.Unmarshal(top[key], &str) == nil {
				// A string the setting's own type refuses says why.
				problems = append(problems, fmt.Sprintf("%s: %v", key, err))
				continue
			}
			want := "a number"
			if typ.Kind() == reflect.String {
				want = "a string"
			}
			problems = append(problems, fmt.Sprintf("%s: want %s, got %s", key, want, top[key]))
		}
	}
	return problems
}

func breakerProblems(raw json.RawMessage) []string {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return []string{`breakers: want an object such as {"database": "warn"}, got ` + string(raw)}
	}
	var problems []string
	for _, dep := range SortedKeysOf(in) {
		known := false
		for _, d := range breakerDeps {
			known = known || d == dep
		}
		if !known {
			problems = append(problems, "breakers."+dep+": unknown dependency"+suggestion(dep, breakerDeps))
			continue
		}
		var m integrity.Mode
		if err := json.Unmarshal(in[dep], &m); err != nil {
			var s string
			if json.Unmarshal(in[dep], &s) == nil {
				problems = append(problems, fmt.Sprintf("breakers.%s: %q is not one of skip, warn, fail", dep, s))
			} else {
				problems = append(problems, fmt.Sprintf("breakers.%s: want one of \"skip\", \"warn\", \"fail\", got %s", dep, in[dep]))
			}
		}
	}
	return problems
}

// suggestion is "; did you mean X?" for the known words nearest to word,
// else the list of known words.
func suggestion(word string, known []string) string {
	if s := Nearest(word, known); len(s) > 0 {
		return "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return " (known: " + strings.Join(known, ", ") + ")"
}

// Nearest are the known words closest to word, compared without regard to
// case: those at the smallest edit distance when it is at most 2, else
// those word is a prefix of (3 letters at least).
func Nearest(word string, known []string) []string {
	w := strings.ToLower(word)
	best, out := 3, []string(nil)
	for _, k := range known {
		d := editDistance(w, strings.ToLower(k))
		switch {
		case d < best:
			best, out = d, []string{k}
		case d == best:
			out = append(out, k)
		}
	}
	if out == nil && len(w) >= 3 {
		for _, k := range known {
			if strings.HasPrefix(strings.ToLower(k), w) {
				out = append(out, k)
			}
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// SortedKeysOf is m's keys in order, for messages that list the known ones.
func SortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
