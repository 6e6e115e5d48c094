package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/vibehome"
	"github.com/vibe-science/vibe/internal/wire"
	"github.com/vibe-science/vibe/internal/worker"
)

// postEvent's project folder does not exist: with "/tmp" the post-tool-use
// handler scanned every file under it, which under -race on a busy machine
// outlasted its budget.
const postEvent = `{"session_id":"relay-1","cwd":"/nonexistent/relay-project","hook_event_name":"PostToolUse","tool_name":"Bash",` +
	`"tool_input":{"command":"python train.py"},"tool_response":{"stdout":"auc 0.81"},"tool_use_id":"toolu_relay"}`

type run struct {
	code           int
	stdout, stderr string
}

// runMain runs Main in the test process; the local handler, when it is
// reached, runs as a child (OSEnv's exec would replace the test binary).
func runMain(t *testing.T, hookName, event string, env map[string]string, exe string) run {
	t.Helper()
	return runMainTrusting(t, hookName, event, env, exe, os.Executable)
}

// starts records what a client asked Env.Start to start.
type starts struct {
	calls []string // "daemon home"
	err   error    // what Start returns
}

func (s *starts) start(daemon string, p vibehome.Paths) error {
	s.calls = append(s.calls, daemon+" "+p.Home)
	return s.err
}

// runMainStarting is runMain with Env.Start recorded in s.
func runMainStarting(t *testing.T, hookName, event string, env map[string]string, exe string, s *starts) run {
	t.Helper()
	return runEnv(t, hookName, event, env, exe, os.Executable, s.start)
}

// runMainTrusting is runMain with the daemon the client trusts: runMain
// trusts the test binary, which hosts the workers startWorker opens.
func runMainTrusting(t *testing.T, hookName, event string, env map[string]string, exe string, daemon func() (string, error)) run {
	t.Helper()
	return runEnv(t, hookName, event, env, exe, daemon, nil)
}

// runEnv runs Main with the daemon the client trusts and its Env.Start.
func runEnv(t *testing.T, hookName, event string, env map[string]string, exe string, daemon func() (string, error), start func(string, vibehome.Paths) error) run {
	t.Helper()
	// The events name made-up folders: enforcement is on everywhere
	// (config.EnforceVar), as in a project that ran `vibe init`.
	if _, set := env["VIBE_ENFORCE"]; !set {
		env["VIBE_ENFORCE"] = "everywhere"
	}
	var out, errOut bytes.Buffer
	e := Env{
		Stdin: strings.NewReader(event), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var kv []string
			for k, v := range env {
				kv = append(kv, k+"="+v)
			}
			return kv
		},
		Executable: func() (string, error) {
			if exe == "" {
				return "", errors.New("no executable")
			}
			return exe, nil
		},
		Daemon: daemon,
		Start:  start,
		Run: func(full, hookName string, data []byte, note string) (int, error) {
			cmd := exec.Command(full, hookName)
			cmd.Env = append(os.Environ(), NoteVar+"="+note)
			cmd.Stdin = bytes.NewReader(data)
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exit.ExitCode(), nil
			}
			return 0, err
		},
	}
	return run{Main(hookName, e), out.String(), errOut.String()}
}

// startWorker runs a worker for home until the test ends or stop is called;
// stop returns once the work hooks left for after their replies is done
// (a relayed hook records some of what it saw after answering).
func startWorker(t *testing.T, home string) (paths config.Paths, stop func()) {
	t.Helper()
	paths = config.Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	w := worker.New(worker.Config{Paths: paths})
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return paths, func() { w.Close() }
}

// TestRelayRunsTheHookInTheWorker: with a worker up, the event is handled
// there; no local handler exists, so a fallback would have failed.
func TestRelayRunsTheHookInTheWorker(t *testing.T) {
	home := t.TempDir()
	paths, stop := startWorker(t, home)
	r := runMain(t, "post-tool-use", postEvent, map[string]string{"VIBE_HOME": home, "VIBE_WORKER": "off"}, "")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("relay: %+v", r)
	}
	stop()
	st, err := store.Open(context.Background(), paths.DB, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	es, err := st.Spine(context.Background(), record.SpineFilter{Session: "relay-1"})
	if err != nil || len(es) != 1 || es[0].ActionType != "MODEL_TRAIN" {
		t.Fatalf("spine %+v %v", es, err)
	}
}

// TestRelayAnswersWithTheHandlersReply: a denial computed in the worker
// reaches stdout as the hook binary would print it.
func TestRelayAnswersWithTheHandlersReply(t *testing.T) {
	home := t.TempDir()
	startWorker(t, home)
	pre := `{"session_id":"relay-2","cwd":"` + t.TempDir() + `","hook_event_name":"PreToolUse","agent_id":"a","agent_type":"vibe:reviewer2",` +
		`"tool_name":"Bash","tool_input":{"command":"echo x >> CLAIM-LEDGER.md"},"tool_use_id":"t"}`
	r := runMain(t, "pre-tool-use", pre, map[string]string{"VIBE_HOME": home, "VIBE_WORKER": "off"}, "")
	if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "reviewer2 may not write CLAIM-LEDGER.md") {
		t.Fatalf("relay: %+v", r)
	}
}

// TestRelayFallsBackToTheLocalHandler: without a worker (or with the relay
// switched off) the handler binary next to the hook runs on the same bytes.
func TestRelayFallsBackToTheLocalHandler(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"local $1 $(cat | wc -c)\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, FullBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "vibe-post-tool-use")
	home := t.TempDir()
	for name, env := range map[string]map[string]string{
		"no worker": {"VIBE_HOME": home},
		"relay off": {"VIBE_HOME": home, "VIBE_RELAY": "off"},
	} {
		r := runMain(t, "post-tool-use", postEvent, env, exe)
		want := "local post-tool-use " + strconv.Itoa(len(postEvent)) + "\n"
		if r.code != 3 || r.stdout != want {
			t.Errorf("%s: %+v, want exit 3 and %q", name, r, want)
		}
	}
}

// TestRelayRefusesAnotherBuild: the worker will not run a hook of another
// build (its handlers may decide differently); the client then runs locally.
func TestRelayRefusesAnotherBuild(t *testing.T) {
	home := t.TempDir()
	paths, _ := startWorker(t, home)
	frame := wire.AppendHookRequest(nil, wire.HookRequest{Hook: "post-tool-use", Version: "other-build", Stdin: []byte(postEvent)})
	self, _ := os.Executable()
	rep, err := roundTrip(paths.Socket, frame, 5000, self)
	if err != nil || rep.Code != wire.CodeVersion || !strings.Contains(rep.Error, "the hook other-build") {
		t.Fatalf("want a version refusal, got %+v %v", rep, err)
	}
}

// TestMissingHandler: with no worker and no handler binary, PreToolUse
// refuses the call (exit 2, reason on stderr); other hooks let the session
// go on and say why.
func TestMissingHandler(t *testing.T) {
	home := t.TempDir()
	exe := filepath.Join(t.TempDir(), "vibe-pre-tool-use")
	r := runMain(t, "pre-tool-use", postEvent, map[string]string{"VIBE_HOME": home}, exe)
	if r.code != 2 || !strings.Contains(r.stderr, "this call was refused to keep protected files safe") {
		t.Errorf("pre-tool-use: %+v", r)
	}
	r = runMain(t, "post-tool-use", postEvent, map[string]string{"VIBE_HOME": home}, exe)
	if r.code != 0 || !strings.Contains(r.stdout, `"systemMessage":"vibe: the post-tool-use handler could not run`) {
		t.Errorf("post-tool-use: %+v", r)
	}
}

func TestForwardedEnvironment(t *testing.T) {
	got := forwarded([]string{"VIBE_HOME=/v", "CLAUDE_PROJECT_DIR=/p", "HOME=/h", "PATH=/bin", "SECRET=x", "VIBE_EMPTY="})
	want := []string{"VIBE_HOME=/v", "CLAUDE_PROJECT_DIR=/p", "HOME=/h", "VIBE_EMPTY="}
	if !slices.Equal(got, want) {
		t.Errorf("forwarded %v, want %v", got, want)
	}
}

// TestMaxEventMatchesHook: the relay reads exactly one byte more than a
// handler accepts, so an oversized event is refused by the handler rather
// than cut short here.
func TestMaxEventMatchesHook(t *testing.T) {
	if maxEvent != hook.MaxEvent {
		t.Fatalf("relay reads %d bytes, hook.MaxEvent is %d", maxEvent, hook.MaxEvent)
	}
}

// TestMissingHandlerMessageIsJSON: the fallback's systemMessage stays valid
// JSON whatever the error says.
func TestMissingHandlerMessageIsJSON(t *testing.T) {
	var out bytes.Buffer
	missing("stop", Env{Stdout: &out}, errors.New("quote \" backslash \\ tab \t nul \x00 é"))
	var m map[string]string
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || !strings.Contains(m["systemMessage"], "quote \" backslash \\ tab \t nul \x00 é") {
		t.Fatalf("%q: %v %v", out.String(), m, err)
	}
}

// TestNoProjectNoHandler: with CLAUDE_PROJECT_DIR naming a folder that did
// not opt in to vibe, a hook answers nothing and runs no handler (even a
// missing one: PreToolUse does not refuse); in an opted-in folder, with
// VIBE_ENFORCE=everywhere, or with a config.json the handler must read, the
// handler runs.
func TestNoProjectNoHandler(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FullBinary), []byte("#!/bin/sh\necho \"local $1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "vibe-pre-tool-use")
	plain, research, home := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(research, ".vibe-science"), 0o755)
	for _, c := range []struct {
		name string
		env  map[string]string
		exe  string
		want string
	}{
		{"plain", map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "", "CLAUDE_PROJECT_DIR": plain}, exe, ""},
		{"plain, no handler binary", map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "", "CLAUDE_PROJECT_DIR": plain},
			filepath.Join(t.TempDir(), "vibe-pre-tool-use"), ""},
		{"plain, projects only", map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "projects", "CLAUDE_PROJECT_DIR": plain}, exe, ""},
		{"opted in", map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "", "CLAUDE_PROJECT_DIR": research}, exe, "local pre-tool-use\n"},
		{"everywhere", map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "Everywhere", "CLAUDE_PROJECT_DIR": plain}, exe, "local pre-tool-use\n"},
		{"no project named", map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": ""}, exe, "local pre-tool-use\n"},
	} {
		r := runMain(t, "pre-tool-use", postEvent, c.env, c.exe)
		if r.code != 0 || r.stdout != c.want || r.stderr != "" {
			t.Errorf("%s: %+v, want exit 0 and %q", c.name, r, c.want)
		}
	}
	// Setup, run on purpose with `claude --init`, is answered in a plain
	// folder too; a SessionStart there is not.
	setupEv := `{"session_id": "s", "hook_event_name" : "Setup", "trigger": "init", "cwd": "` + plain + `"}`
	if r := runMain(t, "session-start", setupEv, map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "", "CLAUDE_PROJECT_DIR": plain}, exe); r.stdout != "local session-start\n" {
		t.Errorf("Setup in a plain folder: %+v, want the handler", r)
	}
	startEv := `{"session_id": "s", "hook_event_name": "SessionStart", "source": "Setup", "cwd": "` + plain + `"}`
	if r := runMain(t, "session-start", startEv, map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "", "CLAUDE_PROJECT_DIR": plain}, exe); r.stdout != "" {
		t.Errorf("SessionStart in a plain folder: %+v, want nothing", r)
	}
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"enforce": "everywhere"}`), 0o600)
	r := runMain(t, "pre-tool-use", postEvent, map[string]string{"VIBE_HOME": home, "VIBE_ENFORCE": "", "CLAUDE_PROJECT_DIR": plain}, exe)
	if r.stdout != "local pre-tool-use\n" {
		t.Errorf("with a config.json the handler decides: %+v", r)
	}
}
