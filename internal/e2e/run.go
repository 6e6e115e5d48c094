package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// PinnedVersion is the Claude Code release the suite is written against;
// .ci/install-claude.sh installs exactly this one.
const PinnedVersion = "2.1.332"

// DefaultTimeout bounds one Claude Code run when RunOptions.Timeout is zero.
const DefaultTimeout = 45 * time.Second

// RunOptions describes one `claude -p` session against a fresh mock.
type RunOptions struct {
	// Prompt is the -p prompt.
	Prompt string
	// PluginDir is passed as --plugin-dir when not empty.
	PluginDir string
	// Script is what the mock answers.
	Script Script
	// ProjectDir is the working directory; a fresh temp dir when empty. Pass
	// one when the script needs absolute paths inside it.
	ProjectDir string
	// MaxTurns is passed as --max-turns when above zero.
	MaxTurns int
	// AllowedTools is passed as --allowedTools when not empty; -p sessions
	// deny tools that would prompt, and acceptEdits does not cover Bash.
	AllowedTools []string
	// Args are appended to the command line.
	Args []string
	// Env adds KEY=VALUE entries to the environment, after the defaults.
	Env []string
	// Timeout bounds the run; DefaultTimeout when zero.
	Timeout time.Duration
	// Home is the client's HOME (its ~/.claude: settings, installed
	// plugins); a fresh temp dir when empty.
	Home string
}

// Result is what one run produced.
type Result struct {
	// ExitCode is the process exit code, or -1 when it was killed.
	ExitCode int
	// Stdout and Stderr are the process output.
	Stdout, Stderr string
	// Output is Stdout decoded (--output-format json); zero when it did
	// not decode.
	Output Output
	// Debug is the --debug-file log.
	Debug string
	// Requests are the requests the mock received.
	Requests []Request
	// Mock is the server of this run, closed, for its query methods.
	Mock *Mock
	// Home, ProjectDir and VibeHome are the directories the run used.
	Home, ProjectDir, VibeHome string
}

// Output is the part of `--output-format json` the tests look at.
type Output struct {
	Type              string            `json:"type"`
	Subtype           string            `json:"subtype"`
	IsError           bool              `json:"is_error"`
	Result            string            `json:"result"`
	SessionID         string            `json:"session_id"`
	NumTurns          int               `json:"num_turns"`
	StopReason        string            `json:"stop_reason"`
	TerminalReason    string            `json:"terminal_reason"`
	PermissionDenials []json.RawMessage `json:"permission_denials"`
}

// RunClaude runs the real Claude Code client once, as `claude -p` in
// acceptEdits mode, against a new Mock playing opts.Script, with an
// isolated HOME and VIBE_HOME. It skips the test when no client is
// installed, unless VIBE_E2E_REQUIRE is set, in which case it fails.
func RunClaude(t testing.TB, opts RunOptions) Result {
	t.Helper()
	bin := RequireClaude(t)

	mock, err := NewMock(opts.Script)
	if err != nil {
		t.Fatalf("RunClaude: %v", err)
	}
	defer func() {
		if err := mock.Close(); err != nil {
			t.Errorf("RunClaude: %v", err)
		}
	}()

	res := Result{Mock: mock, Home: opts.Home, VibeHome: TempDir(t), ProjectDir: opts.ProjectDir}
	if res.Home == "" {
		res.Home = TempDir(t)
	}
	// A failed test shows what vibe logged (hooks and worker), which is
	// all there is to go on when it fails only in CI.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		logs, _ := filepath.Glob(filepath.Join(res.VibeHome, "logs", "*"))
		for _, l := range logs {
			if b, err := os.ReadFile(l); err == nil {
				t.Logf("%s:\n%s", filepath.Base(l), tail(string(b), 4000))
			}
		}
	})
	if res.ProjectDir == "" {
		res.ProjectDir = TempDir(t)
	}
	debugFile := filepath.Join(TempDir(t), "debug.log")

	args := []string{"-p", opts.Prompt,
		"--permission-mode", "acceptEdits",
		"--output-format", "json",
		"--debug-file", debugFile,
	}
	if opts.PluginDir != "" {
		args = append(args, "--plugin-dir", opts.PluginDir)
	}
	if opts.MaxTurns > 0 {
		args = append(args, "--max-turns", fmt.Sprint(opts.MaxTurns))
	}
	if len(opts.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(opts.AllowedTools, ","))
	}
	args = append(args, opts.Args...)

	env := append(isolatedEnv(res.Home),
		"ANTHROPIC_BASE_URL="+mock.URL,
		"ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"VIBE_HOME="+res.VibeHome,
		// No detached embed worker may outlive a test; a test that wants one
		// passes VIBE_WORKER=on in RunOptions.Env (later entries win).
		"VIBE_WORKER=off",
		// A plugin without binaries downloads its release
		// (plugin/bootstrap.sh); from a port nothing listens on, unless a
		// test serves one.
		"VIBE_RELEASE_URL=http://127.0.0.1:1/no-release",
		// Claude Code keeps task output and shell snapshots under
		// $TMPDIR/claude-<uid>; a per-run TMPDIR keeps them out of /tmp.
		"TMPDIR="+TempDir(t),
	)
	env = append(env, opts.Env...)

	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	code, stdout, stderr, err := runProcess(bin, args, res.ProjectDir, env, timeout)
	if err != nil {
		t.Fatalf("RunClaude: %v", err)
	}
	res.ExitCode, res.Stdout, res.Stderr = code, stdout, stderr
	if b, err := os.ReadFile(debugFile); err == nil {
		res.Debug = string(b)
	}
	_ = json.Unmarshal([]byte(stdout), &res.Output)
	res.Requests = mock.Requests()
	if code == -1 {
		t.Errorf("RunClaude: claude was killed after %s; stderr:\n%s", timeout, stderr)
	}
	return res
}

// ValidatePlugin runs `claude plugin validate dir` (with --strict when
// strict is set) and returns its combined output; the error is non-nil when
// the validator rejects the plugin. It skips like RunClaude.
func ValidatePlugin(t testing.TB, dir string, strict bool) (string, error) {
	t.Helper()
	bin := RequireClaude(t)
	args := []string{"plugin", "validate", dir}
	if strict {
		args = append(args, "--strict")
	}
	env := append(isolatedEnv(TempDir(t)), "TMPDIR="+TempDir(t))
	code, stdout, stderr, err := runProcess(bin, args, dir, env, DefaultTimeout)
	if err != nil {
		t.Fatalf("ValidatePlugin: %v", err)
	}
	out := stdout + stderr
	if code != 0 {
		return out, fmt.Errorf("claude plugin validate %s: exit code %d", dir, code)
	}
	return out, nil
}

// RequireClaude returns the path of the pinned client, or skips the test
// (fails it when VIBE_E2E_REQUIRE is set) with the reason it is missing.
func RequireClaude(t testing.TB) string {
	t.Helper()
	bin, err := FindClaude()
	if err == nil {
		return bin
	}
	if os.Getenv("VIBE_E2E_REQUIRE") != "" {
		t.Fatalf("VIBE_E2E_REQUIRE is set but %v", err)
	}
	t.Skipf("skipping: %v", err)
	return ""
}

var find struct {
	once sync.Once
	bin  string
	err  error
}

// FindClaude locates the Claude Code binary, once per process: the path in
// VIBE_CLAUDE_BIN, else the install script's cache path
// ($VIBE_E2E_CACHE or ~/.cache/vibe-e2e, then claude-<PinnedVersion>/
// node_modules/.bin/claude). It checks that `claude --version` reports
// PinnedVersion, because the assertions depend on what that release sends.
func FindClaude() (string, error) {
	find.once.Do(func() { find.bin, find.err = findClaude() })
	return find.bin, find.err
}

func findClaude() (string, error) {
	bin := os.Getenv("VIBE_CLAUDE_BIN")
	if bin == "" {
		cache := os.Getenv("VIBE_E2E_CACHE")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("no Claude Code client: VIBE_CLAUDE_BIN is unset and the home directory is unknown (%v); run .ci/install-claude.sh and set VIBE_CLAUDE_BIN to the path it prints", err)
			}
			cache = filepath.Join(home, ".cache", "vibe-e2e")
		}
		bin = filepath.Join(cache, "claude-"+PinnedVersion, "node_modules", ".bin", "claude")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no Claude Code client at %s; run .ci/install-claude.sh and set VIBE_CLAUDE_BIN to the path it prints", bin)
	}
	home, err := os.MkdirTemp("", "vibe-e2e-version-")
	if err != nil {
		return "", fmt.Errorf("check claude version: %w", err)
	}
	defer os.RemoveAll(home)
	code, stdout, stderr, err := runProcess(bin, []string{"--version"}, home, isolatedEnv(home), 30*time.Second)
	if err != nil || code != 0 {
		return "", fmt.Errorf("%s --version failed (exit %d, %v): %s", bin, code, err, strings.TrimSpace(stderr))
	}
	if got := strings.Fields(stdout); len(got) == 0 || got[0] != PinnedVersion {
		return "", fmt.Errorf("%s reports version %q, want %s; run .ci/install-claude.sh", bin, strings.TrimSpace(stdout), PinnedVersion)
	}
	return bin, nil
}

// inheritedEnv lists the variables passed through from the test's
// environment. Everything else, above all the CLAUDE_* and ANTHROPIC_*
// variables of a Claude Code session that may be running the tests, is
// dropped so the client under test sees only the mock.
var inheritedEnv = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"}

func isolatedEnv(home string) []string {
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runProcess runs bin in its own process group and kills the whole group
// on timeout, so hook processes the client started do not outlive the test.
// err reports only a failure to start; a non-zero exit is in code, and a
// kill gives code -1.
func runProcess(bin string, args []string, dir string, env []string, timeout time.Duration) (code int, stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil // claude -p reads stdin when it is not a terminal; give it EOF
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second

	runErr := cmd.Run()
	stdout, stderr = out.String(), errb.String()
	var exitErr *exec.ExitError
	switch {
	case runErr == nil:
		return 0, stdout, stderr, nil
	case ctx.Err() != nil:
		return -1, stdout, stderr, nil
	case errors.As(runErr, &exitErr):
		return exitErr.ExitCode(), stdout, stderr, nil
	default:
		return 0, stdout, stderr, fmt.Errorf("run %s: %w", bin, runErr)
	}
}

// TempDir is t.TempDir with symlinks resolved, so paths compare equal to
// the ones Claude Code reports (macOS puts temp dirs behind /var → /private/var).
// Use it for a RunOptions.ProjectDir whose paths a script names.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatalf("resolve temp dir: %v", err)
	}
	return dir
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
