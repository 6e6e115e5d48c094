package lineage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestCaptureAndCheck: the record of a script run names its command,
// script, inputs, seeds, environment and commit; changing an input makes
// Check name it.
func TestCaptureAndCheck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := project(t)
	gitRun(t, root, "init", "-q", "-b", "main")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "start")
	commit := gitRun(t, root, "rev-parse", "HEAD")

	since := time.Now().Add(-time.Second)
	write(t, root, "results/metrics.json", `{"auc": 0.8734}`)
	c := shellCall(root, root, "python3 analysis/train.py --seed 42")
	c.Since = since
	content, _ := os.ReadFile(filepath.Join(root, "results/metrics.json"))
	cl := Classify(c, content)
	rec := Record{Path: "results/metrics.json", SHA256: Sum(content), Size: int64(len(content)), Writer: cl.Writer, By: cl.By, Command: c.Command}
	Capture(context.Background(), c, cl, &rec, Options{Now: time.Now()})

	sum := func(rel string) string {
		s, _, _ := HashFile(filepath.Join(root, rel), MaxHashBytes)
		return s
	}
	if rec.Program != "python3" || rec.Cwd != "." || !reflect.DeepEqual(rec.Argv, []string{"python3", "analysis/train.py", "--seed", "42"}) {
		t.Errorf("step: %q %q in %q", rec.Program, rec.Argv, rec.Cwd)
	}
	if want := (&File{Path: "analysis/train.py", SHA256: sum("analysis/train.py"), Size: 239}); !reflect.DeepEqual(rec.Script, want) {
		t.Errorf("script = %+v, want %+v", rec.Script, want)
	}
	if want := []File{{Path: "data/raw/a.csv", SHA256: sum("data/raw/a.csv"), Size: 8}}; !reflect.DeepEqual(rec.Inputs, want) {
		t.Errorf("inputs = %+v, want %+v (the output it wrote is none)", rec.Inputs, want)
	}
	if want := []string{"--seed 42", "np.random.seed(1)", "random_state=0"}; !reflect.DeepEqual(rec.Seeds, want) {
		t.Errorf("seeds = %q, want %q", rec.Seeds, want)
	}
	if rec.Env == nil || !reflect.DeepEqual(rec.Env.Files, []File{{Path: "requirements.txt", SHA256: sum("requirements.txt"), Size: 14}}) {
		t.Errorf("environment = %+v, want requirements.txt", rec.Env)
	}
	if rec.Git == nil || rec.Git.Commit != commit || rec.Git.Branch != "main" || rec.Git.Dirty != nil {
		t.Errorf("git = %+v, want %s on main, dirty unknown without exec", rec.Git, commit)
	}

	if got := Check(context.Background(), root, rec, Options{}); len(got) != 0 {
		t.Errorf("Check before any change = %v", got)
	}
	was := sum("data/raw/a.csv")
	write(t, root, "data/raw/a.csv", "1,2\n3,5\n")
	got := Check(context.Background(), root, rec, Options{})
	want := []Change{{What: "input", File: "data/raw/a.csv", Was: was, Now: sum("data/raw/a.csv")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Check after editing the input = %v, want %v", got, want)
	}
	if s := got[0].String(); s != "input data/raw/a.csv changed: "+was[:12]+" → "+sum("data/raw/a.csv")[:12] {
		t.Errorf("change reads %q", s)
	}
	os.Remove(filepath.Join(root, "requirements.txt"))
	if got := Check(context.Background(), root, rec, Options{}); len(got) != 2 || got[1].What != "environment file" || got[1].Now != "" {
		t.Errorf("Check after removing the lock file = %v", got)
	}
}

// TestCaptureRunsPrograms: with Exec, the interpreter's version, its
// package list and whether the tree is dirty.
func TestCaptureRunsPrograms(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := project(t)
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-q", "-m", "start")
	write(t, root, "analysis/train.py", "print('changed')\n")
	c := shellCall(root, root, "python3 analysis/train.py")
	cl := Classify(c, []byte(`{"auc": 0.8734}`))
	rec := Record{Path: "results/metrics.json"}
	cache := t.TempDir()
	list := Capture(context.Background(), c, cl, &rec, Options{Exec: true, Cache: cache, Now: time.Now()})
	if rec.Env == nil || !strings.HasPrefix(rec.Env.Version, "Python 3.") || rec.Env.Interpreter == "" {
		t.Fatalf("environment = %+v (python3 is %s)", rec.Env, py)
	}
	if rec.Git == nil || rec.Git.Dirty == nil || !*rec.Git.Dirty || !reflect.DeepEqual(rec.Git.Changed, []string{"analysis/train.py"}) {
		t.Errorf("git = %+v, want dirty with analysis/train.py", rec.Git)
	}
	if list != nil {
		if rec.Env.Freeze != Sum(list) || rec.Env.Packages == 0 {
			t.Errorf("freeze %s of %d packages, list hashes to %s", rec.Env.Freeze, rec.Env.Packages, Sum(list))
		}
		cached, _ := filepath.Glob(filepath.Join(cache, "freeze-*.txt"))
		if len(cached) != 1 {
			t.Errorf("cache holds %v, want one package list", cached)
		}
	}
}

func TestMirror(t *testing.T) {
	root := t.TempDir()
	at := time.Date(2026, 11, 24, 10, 14, 0, 0, time.UTC)
	a := Record{Path: "FINDINGS.json", SHA256: "aa", Writer: Hand, By: "Write", At: at}
	b := Record{Path: "results/metrics.json", SHA256: "bb", Writer: Computation, By: "python3 a.py", At: at.Add(time.Minute),
		Env: &Env{Freeze: "ff"}}
	c := Record{Path: "FINDINGS.json", SHA256: "cc", Writer: Computation, By: "python3 b.py", At: at.Add(2 * time.Minute),
		Env: &Env{Freeze: "ff"}}
	if err := AppendMirror(root, a, nil); err != nil {
		t.Fatal(err)
	}
	if err := AppendMirror(root, b, []byte("numpy==1.26.4\n")); err != nil {
		t.Fatal(err)
	}
	if err := AppendMirror(root, c, []byte("numpy==1.26.4\n")); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(root, MirrorFile))
	if n := strings.Count(string(raw), `"freeze_sha256":"ff","packages"`); n != 1 {
		t.Errorf("the package list is written %d times, want once:\n%s", n, raw)
	}
	m, err := ReadMirror(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Records) != 3 || m.Freezes["ff"] != "numpy==1.26.4\n" {
		t.Fatalf("mirror = %+v", m)
	}
	if got := m.Rows("aa"); !reflect.DeepEqual(got, []Row{{Path: "FINDINGS.json", SHA256: "aa", Writer: Hand, By: "Write", At: at}}) {
		t.Errorf("Rows(aa) = %+v", got)
	}
	if got, ok := m.Latest("FINDINGS.json"); !ok || got.SHA256 != "cc" {
		t.Errorf("Latest = %+v, %v", got, ok)
	}
	if got := m.Paths(); !reflect.DeepEqual(got, []string{"FINDINGS.json", "results/metrics.json"}) {
		t.Errorf("Paths = %q", got)
	}
	if m, err := ReadMirror(t.TempDir()); err != nil || len(m.Records) != 0 {
		t.Errorf("a project without a mirror: %+v, %v", m, err)
	}
}
