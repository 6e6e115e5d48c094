//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMarketplaceInstallWithoutToolchain (issue 35, item 2; acceptance):
// the README's two /plugin commands, run as `claude plugin ...` by the
// pinned client, install vibe from its GitHub repository with no Go, no C
// compiler and no make on the PATH, and the first Write of the first
// session in an initialised project is judged by vibe.
//
// GitHub is one loopback server: the repository (a commit of this
// checkout's files as git sees them, so without bin/, served by `git
// http-backend`; the client's `git clone` reaches it through the HOME's
// url.insteadOf) and its release (the archive `make dist` builds here,
// with RELEASE_TAG as the release workflow runs it, and checksums.txt;
// VIBE_RELEASE_URL points the bootstrap at it). The session's SessionStart
// downloads, checks and installs the binaries; the first Write reports a
// number its FINDINGS.json does not hold, which only vibe's own findings
// gate refuses (the bootstrap's answer without binaries lets it through).
// A second session runs the binaries without hook.sh, as the bootstrap
// rewrote hooks.json, and downloads nothing.
func TestMarketplaceInstallWithoutToolchain(t *testing.T) {
	claude := RequireClaude(t)
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	version := pluginVersion(t)

	// The release, as the workflow builds it.
	dist := TempDir(t)
	start := time.Now()
	if out, err := exec.Command("make", "-s", "-C", root, "dist", "DIST="+dist, "RELEASE_TAG=v"+version).CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, tail(string(out), 3000))
	}
	t.Logf("make dist: %s", time.Since(start).Round(time.Second))
	archive := archiveName(version)

	// The repository, as GitHub would serve it.
	repos := TempDir(t)
	commitCheckout(t, gitBin, root, filepath.Join(repos, "vibe-science", "vibe.git"))

	var mu sync.Mutex
	hits := map[string]int{}
	releases := "/vibe-science/vibe/releases/download/v" + version + "/"
	mux := http.NewServeMux()
	mux.Handle("/vibe-science/vibe.git/", &cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + repos, "GIT_HTTP_EXPORT_ALL=1"}})
	mux.Handle(releases, http.StripPrefix(releases, http.FileServer(http.Dir(dist))))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()
	count := func(p string) int { mu.Lock(); defer mu.Unlock(); return hits[p] }

	home := TempDir(t)
	mustWrite(t, filepath.Join(home, ".gitconfig"), "[url \""+srv.URL+"/\"]\n\tinsteadOf = https://github.com/\n")
	path := toolsOnly(t)
	env := append(isolatedEnv(home), "PATH="+path, "GIT_TERMINAL_PROMPT=0", "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "TMPDIR="+TempDir(t))

	// The README's install lines.
	cmds := readmePluginCommands(t)
	if want := []string{"/plugin marketplace add vibe-science/vibe", "/plugin install vibe@vibe-science"}; !slices.Equal(cmds, want) {
		t.Fatalf("the README's /plugin lines are %q, want %q", cmds, want)
	}
	for _, c := range cmds {
		args := append([]string{"plugin"}, strings.Fields(strings.TrimPrefix(c, "/plugin "))...)
		code, stdout, stderr, err := runProcess(claude, args, home, env, 2*time.Minute)
		if err != nil || code != 0 {
			t.Fatalf("claude %s: exit %d %v\n%s%s", strings.Join(args, " "), code, err, stdout, stderr)
		}
		t.Logf("claude %s: %s", strings.Join(args, " "), strings.TrimSpace(stdout))
	}
	if count("/vibe-science/vibe.git/info/refs") == 0 {
		t.Fatalf("the marketplace was not cloned from the loopback server: %v", hits)
	}
	installed := filepath.Join(home, ".claude", "plugins", "cache", "vibe-science", "vibe", version)
	if _, err := os.Stat(filepath.Join(installed, "bin")); !os.IsNotExist(err) {
		t.Fatalf("the installed plugin has a bin/ before its first session (%v)", err)
	}

	// An initialised project, made by the release's own vibe.
	unpacked := TempDir(t)
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dist, archive), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	project := TempDir(t)
	initCmd := exec.Command(filepath.Join(unpacked, "bin", "vibe"), "init", "--project", project, "--rq", "auc")
	initCmd.Env = []string{"PATH=" + path, "HOME=" + TempDir(t), "VIBE_HOME=" + TempDir(t)}
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("vibe init: %v\n%s", err, out)
	}
	results := filepath.Join(project, ".vibe-science", "RQ-001-auc", "04-results")
	mustWrite(t, filepath.Join(results, "FINDINGS.json"), `{"auc": 0.812, "n": 1240}`)
	findings := filepath.Join(results, "FINDINGS.md")

	session := func(id string) Result {
		t.Helper()
		res := RunClaude(t, RunOptions{
			Prompt: "report the results", Home: home, ProjectDir: project,
			Env: []string{"PATH=" + path, "GIT_TERMINAL_PROMPT=0", "VIBE_RELEASE_URL=" + srv.URL + "/vibe-science/vibe/releases/download"},
			Script: Script{Turns: []Turn{
				{Tool("Write", map[string]any{"file_path": findings, "content": "# Findings\n\nAUC 0.87 on held-out guides (n = 1240).\n"}).WithID(id)},
				{Tool("Write", map[string]any{"file_path": findings, "content": "# Findings\n\nAUC 0.81 on held-out guides (n = 1240).\n"}).WithID(id + "_fixed")},
				{Text("done")},
			}},
			Timeout: 2 * time.Minute,
		})
		if res.ExitCode != 0 {
			t.Fatalf("claude exit %d\n%s\n%s\ndebug tail: %s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000), tail(res.Debug, 4000))
		}
		r := toolResult(t, res.Mock, id)
		t.Logf("the first Write: %q", r.Text)
		if !r.IsError || !strings.Contains(r.Text, "0.87") || !strings.Contains(r.Text, "DQ4") || strings.Contains(r.Text, "not installed") {
			t.Errorf("vibe's findings gate did not judge the first Write: %+v", r)
		}
		if b, _ := os.ReadFile(findings); !strings.Contains(string(b), "AUC 0.81") {
			t.Errorf("the corrected findings did not land: %q", b)
		}
		return res
	}

	first := session("toolu_first")
	if !strings.Contains(first.Debug, "plugin/hook.sh vibe-session-start") || !strings.Contains(first.Debug, "plugin/hook.sh vibe-pre-tool-use") {
		t.Errorf("the first session did not run the hooks through plugin/hook.sh:\n%s", grepLines(first.Debug, "Hooks:"))
	}
	if n, s := count(releases+archive), count(releases+"checksums.txt"); n != 1 || s != 1 {
		t.Errorf("archive fetched %d times, checksums %d times: %v", n, s, hits)
	}
	out, err := exec.Command(filepath.Join(installed, "bin", "vibe"), "version", "--json").Output()
	var v struct {
		Version string
		Plugin  struct{ Version, Root string }
	}
	if err != nil || json.Unmarshal(out, &v) != nil || v.Version != version || v.Plugin.Version != version || v.Plugin.Root != installed {
		t.Errorf("the installed vibe reports %s (%v), want version %s of the plugin at %s", out, err, version, installed)
	}

	second := session("toolu_second")
	if strings.Contains(second.Debug, "plugin/hook.sh") || !strings.Contains(second.Debug, "bin/vibe-pre-tool-use") {
		t.Errorf("the second session did not run the binaries directly:\n%s", grepLines(second.Debug, "Hooks:"))
	}
	if n := count(releases + archive); n != 1 {
		t.Errorf("the second session downloaded the archive again (%d requests)", n)
	}
}

// commitCheckout commits the checkout's files as git sees them (tracked
// and untracked but not ignored: no bin/, no dist/) into a new
// repository and clones it bare to bare.
func commitCheckout(t *testing.T, gitBin, root, bare string) {
	t.Helper()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@localhost", "GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@localhost"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	src := TempDir(t)
	for _, rel := range strings.Split(git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00") {
		if rel == "" {
			continue
		}
		if info, err := os.Lstat(filepath.Join(root, rel)); err != nil || !info.Mode().IsRegular() {
			continue // deleted in the checkout, or a link
		}
		copyFile(t, filepath.Join(root, rel), filepath.Join(src, rel))
	}
	git(src, "init", "-q", "-b", "main")
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "the checkout under test")
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		t.Fatal(err)
	}
	git(src, "clone", "-q", "--bare", src, bare)
}

// toolsOnly is a PATH folder holding links to the programs a user without
// a toolchain has (a shell, coreutils, git, curl, tar), and nothing that
// builds Go or C.
func toolsOnly(t *testing.T) string {
	t.Helper()
	dir := TempDir(t)
	for _, name := range []string{"sh", "bash", "dash", "env", "git", "curl", "wget", "tar", "gzip", "sha256sum", "shasum",
		"awk", "sed", "grep", "head", "tail", "cut", "tr", "cat", "ls", "mkdir", "mv", "cp", "rm", "chmod", "find", "mktemp",
		"sleep", "uname", "setsid", "dirname", "basename", "ps", "which", "id", "date", "wc", "sort", "xargs", "readlink"} {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"go", "gcc", "cc", "clang", "make", "ld"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Fatalf("%s is on the tools-only PATH", name)
		}
	}
	cmd := exec.Command("/bin/sh", "-c", "command -v go || command -v gcc || command -v cc || command -v make")
	cmd.Env = []string{"PATH=" + dir}
	if out, err := cmd.Output(); err == nil {
		t.Fatalf("the tools-only PATH finds a toolchain: %s", out)
	}
	return dir
}

// readmePluginCommands are the README's lines that start with "/plugin ".
func readmePluginCommands(t *testing.T) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(repoFile(t, "README.md")))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "/plugin ") {
			out = append(out, l)
		}
	}
	return out
}

// grepLines is the lines of s that contain sub.
func grepLines(s, sub string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
