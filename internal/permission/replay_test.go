package permission

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/blueprints"
)

// minReplayed is how many adversarial cases must really be replayed: run
// on a scratch copy of the project and shown to change a file the role may
// not write.
const minReplayed = 150

// TestAdversarialReplay proves the corpus: each attack is run for real
// (the Bash command with bash, a Write or Edit or MCP call by doing what
// the tool does) on a fresh copy of the project, its own home folder and
// VIBE_HOME, and must change at least one file the role may not write.
// The policy's decision is checked again on that copy. A case is not
// replayed only when it says why (no_replay) or when a program it needs is
// missing here, which is logged by name.
func TestAdversarialReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays run programs")
	}
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: the replay needs it")
	}
	_, gitErr := exec.LookPath("git")
	cases := readCorpus(t, "adversarial.jsonl")
	var mu sync.Mutex
	replayed, missing, declined := 0, map[string][]string{}, 0
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.ID, func(t *testing.T) {
				t.Parallel()
				if c.NoReplay != "" {
					mu.Lock()
					declined++
					mu.Unlock()
					t.Skipf("not replayed: %s", c.NoReplay)
				}
				prj := newProject(t)
				distinctContent(t, prj)
				home := replayHome(t, prj)
				p := replayPolicy(t, home, c.Mode)
				req := caseRequest(prj, c, home)
				if d := p.Check(req); d.Action != Deny || d.Rule != c.Rule {
					t.Fatalf("on the scratch copy: got %s by %s, want deny by %s (%s)", d.Action, d.Rule, c.Rule, d.Reason)
				}
				cmd := commandOf(c, req)
				if needsGit(cmd+c.Then) && gitErr == nil {
					gitProject(t, prj)
				}
				// The whole scratch tree: the project, the folder beside it, the
				// home folder, and what a relative escape reaches above them.
				roots := []string{filepath.Dir(filepath.Dir(prj.root))}
				before := snapshot(roots)
				if prog, err := replay(t, bashPath, prj, home, c, req); err != nil {
					if prog != "" {
						mu.Lock()
						missing[prog] = append(missing[prog], c.ID)
						mu.Unlock()
						t.Skipf("replay skipped: %s is not installed (%v)", prog, err)
					}
					t.Logf("the call failed (what it changed is still checked): %v", err)
				}
				changed := diffSnapshots(before, snapshot(roots))
				role := p.RoleFor(c.Agent, p.TeamMode())
				var hit []string
				for _, abs := range changed {
					if protectedChange(p, role, prj.root, abs) {
						hit = append(hit, abs)
					}
				}
				if len(hit) == 0 {
					t.Errorf("the replay changed no file %s may not write; changed: %v", role, changed)
					return
				}
				mu.Lock()
				replayed++
				mu.Unlock()
			})
		}
	})
	for prog, ids := range missing {
		t.Logf("not replayed, %s is missing: %s", prog, strings.Join(ids, ", "))
	}
	t.Logf("replayed %d of %d attacks (%d declined with a reason)", replayed, len(cases), declined)
	skipped := 0
	for _, ids := range missing {
		skipped += len(ids)
	}
	if !t.Failed() && replayed+skipped < minReplayed {
		t.Errorf("replayed %d attacks, want at least %d", replayed, minReplayed)
	}
}

// protectedChange reports whether a changed physical path is one role may
// not write.
func protectedChange(p *Policy, role, root, abs string) bool {
	root = resolve(toSlash(root), nil)
	rel, inside := relativeTo(root, toSlash(abs))
	if !inside {
		rel = toSlash(abs)
	}
	return p.ProtectedFor(role, rel)
}

// distinctContent gives every file of the scratch project its own text,
// with the words the corpus's edits look for, so that a write of "x" or a
// sed of REJECT really changes a file.
func distinctContent(t *testing.T, prj project) {
	t.Helper()
	for _, root := range []string{prj.root, prj.out} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			return os.WriteFile(p, []byte("original "+filepath.Base(p)+"\nverdict: REJECTED REJECT a\n"), 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	_ = filepath.WalkDir(prj.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			_ = os.Chtimes(p, past, past) // so touch changes the time
		}
		return nil
	})
}

// replayHome builds the scratch home folder: Claude Code's settings and a
// plugin, and VIBE_HOME with its files.
func replayHome(t *testing.T, prj project) string {
	t.Helper()
	home := filepath.Join(filepath.Dir(prj.root), "home")
	for _, f := range []string{
		".claude/settings.json", ".claude/plugins/vibe/hooks/hooks.json", ".claude/plans/.keep",
		".vibe-science/config.json", ".vibe-science/worker.pid", ".vibe-science/db/vibe-science.db",
	} {
		path := filepath.Join(home, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// replayPolicy is the default policy (in TEAM mode when asked) with home
// as the home folder and home/.vibe-science as VIBE_HOME.
func replayPolicy(t *testing.T, home, mode string) *Policy {
	t.Helper()
	raw, err := fs.ReadFile(blueprints.FS, DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := decodeTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	if mode != "" {
		tree["mode"] = mode
	}
	p, err := fromTree(tree, places{home: toSlash(home), vibeHome: toSlash(filepath.Join(home, ".vibe-science"))})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// caseRequest builds the request of a corpus case, with $HOME the given
// home folder.
func caseRequest(prj project, c corpusCase, home string) Request {
	expand := func(s string) string {
		return strings.NewReplacer("$ROOT", prj.root, "$OUT", prj.out, "$HOME", home).Replace(s)
	}
	req := Request{ProjectRoot: prj.root, Cwd: prj.root, AgentType: c.Agent, ToolName: c.Tool,
		ToolInput: json.RawMessage(expand(string(c.Input)))}
	if c.Cwd != "" {
		req.Cwd = join(toSlash(req.Cwd), c.Cwd)
	}
	return req
}

func commandOf(c corpusCase, req Request) string {
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(req.ToolInput, &in)
	return in.Command
}

func needsGit(cmd string) bool { return strings.Contains(cmd, "git ") }

// gitProject makes the scratch project a repository whose last commit
// differs from the work tree: the ledger and a review hold uncommitted
// changes, raw data is untracked. A git command that resets, stashes,
// cleans or checks out files then really changes them.
func gitProject(t *testing.T, prj project) {
	t.Helper()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = prj.root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("add", "-A", ".", ":!RQ-001/02-data/raw", ":!data/raw")
	run("commit", "-qm", "fixture")
	for _, f := range []string{"CLAIM-LEDGER.md", "RQ-001/05-reviewer2/R2-001.yaml", "SERENDIPITY.md"} {
		p := filepath.Join(prj.root, filepath.FromSlash(f))
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(p, append(b, "uncommitted\n"...), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// replay runs the call of c. It returns the name of a missing program
// when the call could not run for that reason.
func replay(t *testing.T, bashPath string, prj project, home string, c corpusCase, req Request) (string, error) {
	t.Helper()
	var err error
	switch {
	case c.Tool == "Bash":
		err = runBash(bashPath, req.Cwd, home, prj, c.Env, commandOf(c, req))
	case c.Tool == "PowerShell":
		pwsh, lookErr := exec.LookPath("pwsh")
		if lookErr != nil {
			return "pwsh", lookErr
		}
		cmd := exec.Command(pwsh, "-NoProfile", "-Command", commandOf(c, req))
		cmd.Dir = req.Cwd
		err = cmd.Run()
	default:
		err = doTool(req, home)
	}
	if prog := missingProgram(err); prog != "" {
		return prog, err
	}
	if c.Then != "" {
		if thenErr := runBash(bashPath, req.Cwd, home, prj, c.Env, strings.NewReplacer("$ROOT", prj.root, "$OUT", prj.out).Replace(c.Then)); thenErr != nil {
			t.Logf("then: %v", thenErr)
		}
	}
	return "", err
}

// commandError carries bash's stderr.
type commandError struct {
	err    error
	stderr string
}

func (e *commandError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.stderr) }

func runBash(bashPath, dir, home string, prj project, env map[string]string, command string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bashPath, "-c", command)
	cmd.Dir = filepath.FromSlash(dir)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LC_ALL=C", "CLAUDE_PROJECT_DIR=" + prj.root,
		"TMPDIR=" + prj.out, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+strings.NewReplacer("$ROOT", prj.root, "$OUT", prj.out, "$HOME", home).Replace(v))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = nil
	if err := cmd.Run(); err != nil {
		return &commandError{err: err, stderr: stderr.String()}
	}
	return nil
}

// missingProgram names the program bash could not find (exit status 127).
func missingProgram(err error) string {
	var ce *commandError
	if !errors.As(err, &ce) {
		return ""
	}
	var ee *exec.ExitError
	if !errors.As(ce.err, &ee) {
		return ""
	}
	if i := strings.Index(ce.stderr, "ModuleNotFoundError: No module named '"); i >= 0 {
		name, _, _ := strings.Cut(ce.stderr[i+len("ModuleNotFoundError: No module named '"):], "'")
		return "the Python module " + name
	}
	for _, line := range strings.Split(ce.stderr, "\n") {
		if i := strings.Index(line, ": command not found"); i > 0 {
			f := strings.Split(line[:i], ": ")
			return f[len(f)-1]
		}
	}
	return ""
}

// doTool does what Claude Code's file tools and a file-system MCP server
// do: Write stores the content, Edit and MultiEdit change the file (here:
// append the new text), NotebookEdit rewrites the notebook; an MCP call
// writes every path field, and a move renames source to destination.
func doTool(req Request, home string) error {
	var in map[string]any
	if err := json.Unmarshal(req.ToolInput, &in); err != nil {
		return err
	}
	abs := func(p string) string {
		// Claude Code resolves the path by text (Node's path.resolve)
		// before it writes.
		return filepath.Clean(filepath.FromSlash(join(toSlash(req.Cwd), expandHome(toSlash(p), toSlash(home)))))
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	writeFile := func(p, content string, appendTo bool) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if appendTo {
			flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		f, err := os.OpenFile(p, flag, 0o644)
		if err != nil {
			return err
		}
		_, err = f.WriteString(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	switch req.ToolName {
	case "Write":
		return writeFile(abs(str("file_path")), str("content")+"\n", false)
	case "Edit", "MultiEdit":
		return writeFile(abs(str("file_path")), "edited\n", true)
	case "NotebookEdit":
		return writeFile(abs(str("notebook_path")), "{\"cells\": []}\n", false)
	}
	if !strings.HasPrefix(req.ToolName, "mcp__") {
		return errors.New("no replay for tool " + req.ToolName)
	}
	if src, dst := str("source"), str("destination"); src != "" && dst != "" {
		return os.Rename(abs(src), abs(dst))
	}
	var paths []string
	var find func(v any)
	find = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				key := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
				if s, ok := y.(string); ok && mcpPathKeys[key] {
					paths = append(paths, s)
					continue
				}
				find(y)
			}
		case []any:
			for _, y := range x {
				find(y)
			}
		}
	}
	find(in)
	for _, p := range paths {
		if err := writeFile(abs(p), "mcp\n", true); err != nil {
			return err
		}
	}
	return nil
}

// entry is what a snapshot keeps of one path.
type entry struct {
	mode  fs.FileMode
	link  string
	sum   [32]byte
	mtime int64
}

// snapshot records every entry under the roots without following links.
func snapshot(roots []string) map[string]entry {
	out := map[string]entry{}
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return nil
			}
			e := entry{mode: fi.Mode(), mtime: fi.ModTime().UnixNano()}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				e.link, _ = os.Readlink(p)
			case fi.Mode().IsRegular():
				if b, err := os.ReadFile(p); err == nil {
					e.sum = sha256.Sum256(b)
				}
			}
			out[p] = e
			return nil
		})
	}
	return out
}

// diffSnapshots lists the paths created, removed or changed, sorted.
func diffSnapshots(before, after map[string]entry) []string {
	var out []string
	for p, e := range before {
		if a, ok := after[p]; !ok || a != e {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
