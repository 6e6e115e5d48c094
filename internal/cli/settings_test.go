package cli

import (
	"context"
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
	err := runDoctor(context.Background(), &DoctorOptions{IO: f.IO, Factory: f})
	if err == nil || ExitCode(err) != 1 {
		t.Fatalf("err %v, want a failed check (exit 1)", err)
	}
	want := "FAIL settings           " + filepath.Join(home, "config.json") + ": breakers.databse: unknown dependency; did you mean database?\n" +
		"     fix: edit " + filepath.Join(home, "config.json") + " (`vibe help environment` says where VIBE_HOME is)\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("doctor printed:\n%s\nwant it to contain:\n%s", out, want)
	}
}

// TestDoctorChecksBuildPrerequisites: in a source checkout doctor checks
// the Go toolchain, a C compiler and sqlite3.h, as the README says; in an
// installed copy (no go.mod) it says they are not needed for running.
func TestDoctorChecksBuildPrerequisites(t *testing.T) {
	f, out, _ := setupFactory(t, nil)
	_ = runDoctor(context.Background(), &DoctorOptions{IO: f.IO, Factory: f})
	if !strings.Contains(out.String(), "ok   build tools        not needed for running (Go, a C compiler and sqlite3.h only build vibe from source)\n") {
		t.Fatalf("without go.mod:\n%s", out)
	}

	if err := os.WriteFile(filepath.Join(f.Root, "go.mod"), []byte("module x\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := sqliteHeaderDirs
	t.Cleanup(func() { sqliteHeaderDirs = saved })
	sqliteHeaderDirs = []string{t.TempDir()}
	out.Reset()
	_ = runDoctor(context.Background(), &DoctorOptions{IO: f.IO, Factory: f})
	for _, want := range []string{
		"FAIL Go toolchain       go not on PATH\n     fix: install Go 1.26 or newer (https://go.dev/dl/), needed to build vibe from " + f.Root + "\n",
		"FAIL C compiler         none of cc, gcc, clang on PATH\n     fix: install one (Debian: apt-get install gcc); cgo builds SQLite into vibe\n",
		"FAIL sqlite3.h          not found in " + sqliteHeaderDirs[0] + "\n     fix: Debian: apt-get install libsqlite3-dev (macOS: brew install sqlite)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sqlite3.h"), []byte("/* */"), 0o644); err != nil {
		t.Fatal(err)
	}
	sqliteHeaderDirs = []string{dir}
	f.LookPath = func(name string) (string, error) { return "/usr/bin/" + name, nil }
	f.Exec = func(_ context.Context, name string, args ...string) (string, error) {
		if name == "go" {
			return "go version go1.25.3 linux/amd64\n", nil
		}
		return "", nil
	}
	out.Reset()
	_ = runDoctor(context.Background(), &DoctorOptions{IO: f.IO, Factory: f})
	for _, want := range []string{
		"FAIL Go toolchain       /usr/bin/go is go1.25.3; go.mod needs go 1.26\n",
		"ok   C compiler         /usr/bin/cc\n",
		"ok   sqlite3.h          " + filepath.Join(dir, "sqlite3.h") + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}

// TestSetupReportsUnknownSettings: setup, which a user re-runs, fails on a
// config.json key vibe does not know, naming the nearest known one.
func TestSetupReportsUnknownSettings(t *testing.T) {
	f, out, home := setupFactory(t, nil)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"observer_evry": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runSetup(context.Background(), &SetupOptions{IO: f.IO, Factory: f})
	if err == nil || ExitCode(err) != 1 {
		t.Fatalf("err %v, want a failed setup (exit 1)", err)
	}
	want := "FAIL settings  " + filepath.Join(home, "config.json") + ": observer_evry: unknown key; did you mean observer_every?\n     fix: edit " + filepath.Join(home, "config.json") + "\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("setup printed:\n%s\nwant:\n%s", out, want)
	}
}

// TestDoctorChecksTheProjectConfigs: inside a project, doctor reads its
// permissions.json and domain-config.json and reports an unknown key with
// the command that lists every problem.
func TestDoctorChecksTheProjectConfigs(t *testing.T) {
	f, out, _ := setupFactory(t, nil)
	proj := mkVibeDir(t, t.TempDir())
	t.Chdir(proj)
	_ = runDoctor(context.Background(), &DoctorOptions{IO: f.IO, Factory: f})
	for _, want := range []string{
		"ok   permissions        " + filepath.Join(proj, ".vibe-science") + ": no permissions.json, the shipped policy applies\n",
		"ok   domain config      " + filepath.Join(proj, ".vibe-science") + ": no domain-config.json, the generic domain applies\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	os.WriteFile(filepath.Join(proj, ".vibe-science", "permissions.json"), []byte(`{"modde": "team"}`), 0o644)
	os.WriteFile(filepath.Join(proj, ".vibe-science", "domain-config.json"), []byte(`{"domain": "generic", "dq1": {"min_sample": 3}}`), 0o644)
	out.Reset()
	if err := runDoctor(context.Background(), &DoctorOptions{IO: f.IO, Factory: f}); err == nil {
		t.Fatal("doctor passed with broken project configs")
	}
	for _, want := range []string{
		"FAIL permissions        ",
		`unknown field "modde"; did you mean mode?`,
		"     fix: fix .vibe-science/permissions.json (`vibe permissions show` prints the policy in force)\n",
		"FAIL domain config      ",
		"dq1.min_sample: unknown key",
		"     fix: `vibe domain validate` lists each problem with its field\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
