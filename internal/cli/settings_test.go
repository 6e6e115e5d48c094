package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
				`zzz: unknown key (known: breakers, log_retention_days, model, observer_every, prompt_recall_tokens, recall_deadline_ms, session_start_tokens, stop_block_limit, worker_idle_unload_sec)`}},
		{"wrong type", `{"observer_every": "often"}`, []string{`observer_every: want a number, got "often"`}},
		{"not JSON", `{"observer_every": `, []string{`not valid JSON: unexpected end of JSON input`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := settingsProblems([]byte(c.json))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestDoctorReportsUnknownSettings: doctor fails on such a file and says
// which key to fix, in which file.
func TestDoctorReportsUnknownSettings(t *testing.T) {
	f, out, home := setupFactory(t, nil)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"breakers": {"databse": "fail"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runDoctor(nil, &DoctorOptions{IO: f.IO, Factory: f})
	if err == nil || ExitCode(err) != 1 {
		t.Fatalf("err %v, want a failed check (exit 1)", err)
	}
	want := "FAIL settings           " + filepath.Join(home, "config.json") + ": breakers.databse: unknown dependency; did you mean database?\n" +
		"     fix: edit " + filepath.Join(home, "config.json") + " (`vibe help environment` says where VIBE_HOME is)\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("doctor printed:\n%s\nwant it to contain:\n%s", out, want)
	}
}
