package repro

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/store"
)

func TestNewCmdReproFlags(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want Options
	}{
		{[]string{}, Options{}},
		{[]string{"results/metrics.json", "--json", "--project", "/p"}, Options{Artifact: "results/metrics.json", JSON: true, Project: "/p"}},
		{[]string{"--packages", "m.json"}, Options{Artifact: "m.json", Packages: true}},
	} {
		f, _, _ := clitest.New(t, clitest.Options{})
		var got *Options
		cmd := NewCmdRepro(f, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.VibePaths, got.Store, got.Find = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
	for _, c := range []struct {
		argv []string
		want CheckOptions
	}{
		{[]string{}, CheckOptions{}},
		{[]string{"--json", "--no-env", "--project", "/p"}, CheckOptions{JSON: true, NoEnv: true, Project: "/p"}},
	} {
		f, _, _ := clitest.New(t, clitest.Options{})
		var got *CheckOptions
		cmd := NewCmdReproCheck(f, func(o *CheckOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.VibePaths, got.Store, got.Find, got.Now, got.Getenv = cli.IO{}, nil, nil, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("check %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

const trainScript = `import csv, json, random, sys
seed = int(sys.argv[sys.argv.index("--seed") + 1])
random.seed(seed)
rows = list(csv.DictReader(open("data/raw/sites.csv")))
hits = sum(1 for r in rows if r["cleaved"] == "1")
json.dump({"auc": round(0.5 + hits / (4.0 * len(rows)), 4), "n": len(rows)}, open("results/metrics.json", "w"))
`

// session drives the hooks in-process as the resident worker runs them
// (work after the reply runs once the reply is out, on the open
// database), carrying each Bash call out between PreToolUse and
// PostToolUse.
type session struct {
	t    *testing.T
	root string
	env  map[string]string
	st   *store.Store
	n    int
}

func (s *session) hook(spec hookrun.Spec, ev map[string]any) string {
	ev["session_id"], ev["cwd"], ev["transcript_path"] = "repro-1", s.root, "/tmp/t.jsonl"
	raw, _ := json.Marshal(ev)
	var out bytes.Buffer
	var later []func(context.Context)
	env := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{}, Now: time.Now,
		Getenv: func(k string) string { return s.env[k] }, After: func(f func(context.Context)) { later = append(later, f) }}
	env.UseStore(s.st)
	hookrun.Main(spec, env)
	for _, f := range later {
		f(context.Background())
	}
	return out.String()
}

func (s *session) bash(command string) string {
	s.t.Helper()
	s.n++
	id := fmt.Sprintf("toolu_%d", s.n)
	in := map[string]any{"command": command}
	if pre := s.hook(handler.PreToolUse, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": in}); strings.Contains(pre, "deny") {
		s.t.Fatalf("%s was denied: %s", command, pre)
	}
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = s.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", command, err, out)
	}
	return s.hook(handler.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id,
		"tool_input": in, "tool_response": map[string]any{"stdout": string(out)}, "duration_ms": 40})
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestReproOfAScriptRun (issue 34 item 2, acceptance): a metrics file a
// script writes through Bash gets a recipe with the command, the script's
// hash, the inputs with theirs, the versions, the seed and the commit;
// changing an input makes `vibe repro check` name it and fail.
func TestReproOfAScriptRun(t *testing.T) {
	for _, p := range []string{"python3", "git"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("this test runs %s; install it", p)
		}
	}
	f, out, errOut := clitest.New(t, clitest.Options{})
	root := clitest.Project(t)
	files := map[string]string{
		"analysis/train.py":  trainScript,
		"data/raw/sites.csv": "site,cleaved\nS1,1\nS2,0\nS3,1\nS4,1\n",
		"requirements.txt":   "numpy==1.26.4\n",
		"results/.keep":      "",
	}
	old := time.Now().Add(-time.Hour)
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		os.Chtimes(p, old, old)
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "analysis")
	commit := git(t, root, "rev-parse", "HEAD")

	st, err := f.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, root: root, env: map[string]string{"VIBE_HOME": f.Paths().Home, "HOME": f.Paths().Home, "VIBE_WORKER": "off"}, st: st}
	s.bash("ls")
	s.bash("python3 analysis/train.py --seed 42")

	sum := func(rel string) string {
		h, _, _ := lineage.HashFile(filepath.Join(root, rel), 1<<20)
		return h
	}
	o := &Options{IO: f.IO, VibePaths: f.Paths, Store: f.Store, Find: f.FindProject, Project: root, Artifact: filepath.Join(root, "results/metrics.json")}
	o.JSON = true
	if err := runRepro(o); err != nil {
		t.Fatalf("vibe repro --json: %v\n%s", err, errOut)
	}
	var rec lineage.Record
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Env == nil || !strings.HasPrefix(rec.Env.Version, "Python 3.") || rec.Env.Interpreter == "" {
		t.Fatalf("the record has no interpreter version: %+v", rec.Env)
	}
	out.Reset()
	o.JSON = false
	if err := runRepro(o); err != nil {
		t.Fatalf("vibe repro: %v\n%s", err, errOut)
	}
	packages := ""
	if rec.Env.Freeze != "" {
		packages = fmt.Sprintf("  %d packages  sha256 %s (vibe repro --packages results/metrics.json)\n", rec.Env.Packages, rec.Env.Freeze[:12])
	}
	want := fmt.Sprintf("results/metrics.json  sha256 %s  written %s by python3 analysis/train.py (computation)\n\n", sum("results/metrics.json")[:12], rec.At.UTC().Format("2006-01-02 15:04 UTC")) +
		"Re-run:\n" +
		"  cd " + root + "\n" +
		"  git checkout " + commit + "\n" +
		"  pip install -r requirements.txt    # requirements.txt sha256 " + sum("requirements.txt")[:12] + "\n" +
		"  python3 analysis/train.py --seed 42\n\n" +
		"Script:  analysis/train.py  sha256 " + sum("analysis/train.py")[:12] + "\n" +
		"Inputs:\n" +
		"  data/raw/sites.csv  sha256 " + sum("data/raw/sites.csv") + "\n" +
		"Seeds:   --seed 42\n" +
		"Environment:\n" +
		"  " + rec.Env.Interpreter + " (" + rec.Env.Version + ")\n" +
		"  requirements.txt  sha256 " + sum("requirements.txt") + "\n" +
		packages +
		"Commit:  " + commit + " on main\n"
	if out.String() != want {
		t.Errorf("vibe repro printed\n%s\nwant\n%s", out, want)
	}

	// Nothing changed yet.
	out.Reset()
	errOut.Reset()
	co := &CheckOptions{IO: f.IO, VibePaths: f.Paths, Store: f.Store, Find: f.FindProject, Now: time.Now, Getenv: func(string) string { return "" }, Project: root}
	if err := runReproCheck(co); err != nil || out.String() != "" || errOut.String() != "1 computed result checked, none changed since they were made\n" {
		t.Fatalf("repro check before any change: %v\n%s%s", err, out, errOut)
	}
	was := sum("data/raw/sites.csv")
	os.WriteFile(filepath.Join(root, "data/raw/sites.csv"), []byte("site,cleaved\nS1,1\nS2,0\nS3,0\nS4,1\n"), 0o644)
	out.Reset()
	errOut.Reset()
	err = runReproCheck(co)
	if want := "results/metrics.json: input data/raw/sites.csv changed: " + was[:12] + " → " + sum("data/raw/sites.csv")[:12] + "\n"; out.String() != want {
		t.Errorf("repro check after an input changed printed %q, want %q", out, want)
	}
	if wantErr := "repro check: 1 of 1 computed results changed since they were made; re-run their recipes (vibe repro RESULT)"; errOut.String() != "" ||
		err == nil || err.Error() != wantErr || cli.ExitCode(err) != 1 {
		t.Errorf("repro check: stderr %q, exit %d (%v)", errOut, cli.ExitCode(err), err)
	}

	// A fresh clone (no database) reads the project's mirror.
	f2, out2, _ := clitest.New(t, clitest.Options{})
	o2 := &Options{IO: f2.IO, VibePaths: f2.Paths, Store: nil, Find: f2.FindProject, Project: root, Artifact: "results/metrics.json"}
	if err := runRepro(o2); err != nil || out2.String() != want {
		t.Errorf("from the mirror: %v\n%s", err, out2)
	}
}

// TestReproOfAHandWrite: a result written by hand has no recipe: repro
// says so and fails; the listing names each result and its writer.
func TestReproOfAHandWrite(t *testing.T) {
	f, out, _ := clitest.New(t, clitest.Options{})
	root := clitest.Project(t)
	os.WriteFile(filepath.Join(root, "FINDINGS.json"), []byte(`{"rho": 0.58}`), 0o644)
	at := time.Date(2026, 11, 24, 10, 14, 0, 0, time.UTC)
	if err := lineage.AppendMirror(root, lineage.Record{Path: "FINDINGS.json", SHA256: lineage.Sum([]byte(`{"rho": 0.58}`)), Writer: lineage.Hand, By: "Write", At: at}, nil); err != nil {
		t.Fatal(err)
	}
	o := &Options{IO: f.IO, VibePaths: f.Paths, Find: f.FindProject, Project: root, Artifact: filepath.Join(root, "FINDINGS.json")}
	err := runRepro(o)
	if err == nil || err.Error() != "FINDINGS.json was written by hand (Write) at 2026-11-24 10:14 UTC: no computation made it, so there is nothing to re-run; re-run the script that computes it through Bash" {
		t.Errorf("repro of a hand write: %v", err)
	}
	if want := "FINDINGS.json  sha256 " + lineage.Sum([]byte(`{"rho": 0.58}`))[:12] + "  written 2026-11-24 10:14 UTC by Write (hand)\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out, want)
	}
	out.Reset()
	o.Artifact = ""
	if err := runRepro(o); err != nil {
		t.Fatal(err)
	}
	if want := "RESULT\tWRITER\tBY\tAT\tSHA256\nFINDINGS.json\thand\tWrite\t2026-11-24 10:14 UTC\t" + lineage.Sum([]byte(`{"rho": 0.58}`))[:12] + "\n"; out.String() != want {
		t.Errorf("listing %q, want %q", out, want)
	}
	o.Artifact = filepath.Join(root, "none.json")
	os.WriteFile(o.Artifact, []byte("{}"), 0o644)
	if err := runRepro(o); err == nil || !strings.HasPrefix(err.Error(), "no record of how none.json was made") {
		t.Errorf("repro of an unrecorded file: %v", err)
	}
	// `vibe repro chek` is a mistyped subcommand, not a missing result.
	o.Artifact = "chek"
	if err := runRepro(o); err == nil || err.Error() != "chek: no such file in "+root+"; did you mean `vibe repro check`?" || cli.ExitCode(err) != 2 {
		t.Errorf("repro chek: %v (exit %d)", err, cli.ExitCode(err))
	}
	o.Artifact = "results.json"
	if err := runRepro(o); err == nil || err.Error() != "results.json: no such file in "+root || cli.ExitCode(err) != 1 {
		t.Errorf("repro of a missing file: %v (exit %d)", err, cli.ExitCode(err))
	}
}
