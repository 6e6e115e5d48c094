package cli

import (
	"reflect"
	"testing"
)

// TestSettingsProblems: config.json keys vibe does not know are reported
// with the nearest known key, also inside "breakers" (issue 16, finding 3:
// "databse" in breakers was silently ignored).
func TestSettingsProblems(t *testing.T) {
	cases := []struct {
		name, json string
		want       []string
	}{
		{"clean", `{"observer_every": 5, "breakers": {"database": "fail", "vec": "Warn"}}`, nil},
		{"typo in breakers", `{"breakers": {"databse": "fail"}}`,
			[]string{`breakers.databse: unknown dependency; did you mean database?`}},
		{"bad mode", `{"breakers": {"worker": "explode"}}`,
			[]string{`breakers.worker: "explode" is not one of skip, warn, fail`}},
		{"typo at the top", `{"observer_evry": 5, "zzz": 1}`,
			[]string{`observer_evry: unknown key; did you mean observer_every?`,
				`zzz: unknown key (known: breakers, enforce, log_retention_days, model, observer_every, prompt_recall_tokens, recall_deadline_ms, session_start_tokens, stop_block_limit, worker_idle_exit_sec, worker_idle_unload_sec)`}},
		{"wrong type", `{"observer_every": "often"}`, []string{`observer_every: want a number, got "often"`}},
		{"enforce", `{"enforce": "everywhere"}`, nil},
		{"bad enforce", `{"enforce": "everywher"}`, []string{`enforce: "everywher" is not "projects" or "everywhere"`}},
		{"not JSON", `{"observer_every": `, []string{`not valid JSON: unexpected end of JSON input`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SettingsProblems([]byte(c.json))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}
