package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli/setup"
	workerclient "github.com/vibe-science/vibe/internal/worker/client"
)

// The plugin's bootstrap (plugin/hook.sh and plugin/bootstrap.sh) run as
// a hook would run them, without the client: a fake release (an archive of
// shell scripts standing in for the binaries) served on loopback, and
// recorded hook inputs on stdin. The client's side is
// TestWithoutBinariesOnlyProtectedWritesAreRefused and
// TestMarketplaceInstallWithoutToolchain.

// pluginVersion is .claude-plugin/plugin.json's version.
func pluginVersion(t *testing.T) string {
	t.Helper()
	var m struct{ Version string }
	if err := json.Unmarshal(repoFile(t, ".claude-plugin/plugin.json"), &m); err != nil || m.Version == "" {
		t.Fatalf("plugin.json: %v %+v", err, m)
	}
	return m.Version
}

// bootstrapPlugin is a plugin folder as a marketplace install has it
// before its bootstrap ran: the manifest, hooks.json and the two scripts,
// no bin/; with .git when checkout is set (a git checkout, which never
// downloads).
func bootstrapPlugin(t *testing.T, checkout bool) string {
	t.Helper()
	root := TempDir(t)
	for _, rel := range []string{".claude-plugin/plugin.json", "hooks.json", "plugin/hook.sh", "plugin/bootstrap.sh"} {
		copyFile(t, filepath.Join("..", "..", rel), filepath.Join(root, rel))
	}
	if checkout {
		mustWrite(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	return root
}

// releaseBinaries are the files an archive must hold (the bootstrap
// installs nothing without every one).
func releaseBinaries() []string {
	return append([]string{"vibe", workerclient.BinaryName}, setup.HookBinaries...)
}

// fakeArchive is a release archive whose binaries are shell scripts that
// print their name, arguments and stdin; skip leaves one out, and extra
// entries follow the binaries in the order given.
func fakeArchive(t *testing.T, skip string, extra ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755})
	for _, n := range releaseBinaries() {
		if n == skip {
			continue
		}
		body := []byte("#!/bin/sh\necho \"fake " + n + " $*\"\ncat\n")
		tw.WriteHeader(&tar.Header{Name: "bin/" + n, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))})
		tw.Write(body)
	}
	for _, h := range extra {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// release serves files under /v<version>/ on loopback and counts the
// requests per path; hold, when not nil, is waited for before the archive
// is served.
type release struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func serveRelease(t *testing.T, files map[string][]byte, hold chan struct{}) *release {
	t.Helper()
	r := &release{hits: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.hits[req.URL.Path]++
		r.mu.Unlock()
		b, ok := files[req.URL.Path]
		if !ok {
			http.NotFound(w, req)
			return
		}
		if hold != nil && strings.HasSuffix(req.URL.Path, ".tar.gz") {
			<-hold
		}
		w.Write(b)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *release) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[path]
}

// archiveName is the archive this host downloads.
func archiveName(version string) string {
	return fmt.Sprintf("vibe_%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
}

// goodRelease is a release of version with a fake archive and its
// checksum line among the other platforms'.
func goodRelease(t *testing.T, version string, hold chan struct{}) (*release, string) {
	t.Helper()
	archive := fakeArchive(t, "")
	sum := sha256.Sum256(archive)
	name := archiveName(version)
	sums := "0000000000000000000000000000000000000000000000000000000000000000  vibe_" + version + "_plan9_386.tar.gz\n" +
		hex.EncodeToString(sum[:]) + "  " + name + "\n"
	dir := "/v" + version + "/"
	return serveRelease(t, map[string][]byte{dir + name: archive, dir + "checksums.txt": []byte(sums)}, hold), dir + name
}

// hookRun is one run of plugin/hook.sh.
type hookRun struct {
	stdout, stderr string
	code           int
}

// runHook runs root/plugin/hook.sh binary with input on stdin, as Claude
// Code runs it, with HOME a new folder, the release at url and env added.
func runHook(t *testing.T, root, binary, input, url string, env ...string) hookRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "plugin", "hook.sh"), binary)
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + TempDir(t), "VIBE_RELEASE_URL=" + url, "CLAUDE_PLUGIN_ROOT=" + root}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run hook.sh: %v", err)
	}
	return hookRun{out.String(), errb.String(), code}
}

// directHooks is hooks.json as the bootstrap rewrites it: every command
// runs its binary from bin/ itself, everything else unchanged.
func directHooks(t *testing.T, shipped []byte) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(shipped, &doc); err != nil {
		t.Fatal(err)
	}
	for _, groups := range doc["hooks"].(map[string]any) {
		for _, g := range groups.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				h := h.(map[string]any)
				h["command"] = "${CLAUDE_PLUGIN_ROOT}/bin/" + h["args"].([]any)[0].(string)
				h["args"] = []any{}
			}
		}
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const sessionStartInput = `{"session_id":"s1","cwd":"/tmp","hook_event_name":"SessionStart","source":"startup"}`

// TestBootstrapInstallsTheRelease: the first SessionStart of a plugin with
// no bin/ downloads this version's archive and checksums, installs every
// binary, rewrites hooks.json to run them directly, and runs its own
// binary with the hook's input; the next hook runs through hook.sh's one
// exec and downloads nothing.
func TestBootstrapInstallsTheRelease(t *testing.T) {
	version := pluginVersion(t)
	rel, archivePath := goodRelease(t, version, nil)
	root := bootstrapPlugin(t, false)
	shipped := repoFile(t, "hooks.json")

	r := runHook(t, root, "vibe-session-start", sessionStartInput, rel.URL)
	if want := "fake vibe-session-start \n" + sessionStartInput + "\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout %q, want %q; stderr %s", r.code, r.stdout, want, r.stderr)
	}
	for _, n := range releaseBinaries() {
		if info, err := os.Stat(filepath.Join(root, "bin", n)); err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("bin/%s: %v", n, err)
		}
	}
	got, _ := os.ReadFile(filepath.Join(root, "hooks.json"))
	if canonical(t, got) != directHooks(t, shipped) {
		t.Errorf("hooks.json after the install:\n%s\nwant every command direct:\n%s", got, directHooks(t, shipped))
	}
	if rel.count(archivePath) != 1 || rel.count("/v"+version+"/checksums.txt") != 1 {
		t.Errorf("requests %v", rel.hits)
	}
	state, _ := os.ReadDir(filepath.Join(root, ".vibe-install"))
	var names []string
	for _, e := range state {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"direct", "log"}) {
		t.Errorf(".vibe-install holds %q, want only the log and the marker of the rewrite (no lock, no error, no temporary folder)", names)
	}
	log, _ := os.ReadFile(filepath.Join(root, ".vibe-install", "log"))
	if want := "vibe bootstrap: downloading " + rel.URL + archivePath + "\nvibe bootstrap: installed fake vibe version into " + root + "/bin\n"; string(log) != want {
		t.Errorf("log %q, want %q", log, want)
	}

	pre := `{"hook_event_name":"PreToolUse","tool_name":"Write"}`
	if r := runHook(t, root, "vibe-pre-tool-use", pre, rel.URL); r.stdout != "fake vibe-pre-tool-use \n"+pre || r.code != 0 {
		t.Errorf("with bin/ in place hook.sh ran %+v", r)
	}
	if rel.count(archivePath) != 1 {
		t.Errorf("the archive was downloaded again: %v", rel.hits)
	}
}

// TestBootstrapRefusesWhatItCannotTrust: nothing is installed from an
// archive whose checksum differs, that checksums.txt does not list, that
// lacks a binary, or that is not there; SessionStart tells the user why,
// and the error stays for the next hook.
func TestBootstrapRefusesWhatItCannotTrust(t *testing.T) {
	version := pluginVersion(t)
	name := archiveName(version)
	dir := "/v" + version + "/"
	good := fakeArchive(t, "")
	sumOf := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	short := fakeArchive(t, "vibe-stop")
	for _, c := range []struct {
		name  string
		files map[string][]byte
		want  string // the error, %U the release URL
	}{
		{"changed archive", map[string][]byte{dir + name: append(good, 0), dir + "checksums.txt": []byte(sumOf(good) + "  " + name + "\n")},
			name + " has SHA-256 " + sumOf(append(good, 0)) + ", but checksums.txt says " + sumOf(good) + ": the download is corrupt or was changed; nothing was installed"},
		{"not listed", map[string][]byte{dir + name: good, dir + "checksums.txt": []byte(sumOf(good) + "  vibe_" + version + "_plan9_386.tar.gz\n")},
			"%U" + dir + "checksums.txt has no line for " + name},
		{"a binary missing", map[string][]byte{dir + name: short, dir + "checksums.txt": []byte(sumOf(short) + "  " + name + "\n")},
			name + " lacks bin/vibe-stop"},
		{"no release", nil,
			"could not download %U" + dir + "checksums.txt: curl: (22) The requested URL returned error: 404"},
	} {
		if _, err := exec.LookPath("curl"); err != nil && c.files == nil {
			t.Logf("%s: skipped, the message is curl's and curl is not installed", c.name)
			continue
		}
		rel := serveRelease(t, c.files, nil)
		root := bootstrapPlugin(t, false)
		r := runHook(t, root, "vibe-session-start", sessionStartInput, rel.URL)
		want := strings.ReplaceAll(c.want, "%U", rel.URL)
		if _, err := os.Stat(filepath.Join(root, "bin")); !os.IsNotExist(err) {
			t.Errorf("%s: bin/ exists (%v)", c.name, err)
		}
		if b, _ := os.ReadFile(filepath.Join(root, ".vibe-install", "error")); string(b) != want+"\n" {
			t.Errorf("%s: error file %q, want %q", c.name, b, want)
		}
		msg := "vibe is not active yet: its binaries are not installed in " + root + "/bin (installing vibe's release failed: " + want +
			". Fix that, then run `sh " + root + "/plugin/bootstrap.sh install` or start a new session)."
		wantOut := fmt.Sprintf(`{"systemMessage":%q,"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":%q}}`, msg,
			msg+" Until they are, vibe refuses writes to the claim ledger, reviews, raw data and vibe's configuration, and asks before shell commands in vibe projects.")
		if r.code != 0 || canonical(t, []byte(r.stdout)) != canonical(t, []byte(wantOut)) {
			t.Errorf("%s: exit %d stdout\n%s\nwant\n%s", c.name, r.code, r.stdout, wantOut)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "hooks.json")); !bytes.Equal(got, repoFile(t, "hooks.json")) {
			t.Errorf("%s: hooks.json was changed by a failed install", c.name)
		}
	}
}

// TestBootstrapInstallsOnce: hooks that start together (Claude Code runs
// them in parallel) share one download: the first takes the lock, the
// others wait for it, and every one runs its binary.
func TestBootstrapInstallsOnce(t *testing.T) {
	version := pluginVersion(t)
	hold := make(chan struct{})
	rel, archivePath := goodRelease(t, version, hold)
	root := bootstrapPlugin(t, false)
	pre := `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/x"}}`
	var wg sync.WaitGroup
	runs := make([]hookRun, 3)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := sessionStartInput
			if i > 0 {
				in = pre
			}
			runs[i] = runHook(t, root, map[bool]string{true: "vibe-session-start", false: "vibe-pre-tool-use"}[i == 0], in, rel.URL)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	close(hold)
	wg.Wait()
	if rel.count(archivePath) != 1 {
		t.Errorf("the archive was downloaded %d times", rel.count(archivePath))
	}
	for i, r := range runs {
		if !strings.HasPrefix(r.stdout, "fake vibe-") || r.code != 0 {
			t.Errorf("hook %d: %+v", i, r)
		}
	}
}

// TestBootstrapWithoutBinaries: what PreToolUse answers while bin/ is
// empty (here a git checkout, which downloads nothing): outside a vibe
// project nothing; inside one, writes to protected files are refused,
// other writes pass, and shell commands, other tools and paths it cannot
// read are asked.
func TestBootstrapWithoutBinaries(t *testing.T) {
	root := bootstrapPlugin(t, true)
	project := TempDir(t)
	optedIn(t, project)
	mustWrite(t, filepath.Join(project, "CLAIM-LEDGER.md"), "# Claim ledger\n")
	os.Symlink(filepath.Join(project, "CLAIM-LEDGER.md"), filepath.Join(project, "ledger-link.md"))
	os.MkdirAll(filepath.Join(project, ".vibe-science", "RQ-001", "05-reviewer2"), 0o755)
	os.Symlink(filepath.Join(project, ".vibe-science", "RQ-001", "05-reviewer2"), filepath.Join(project, "reviews"))
	outside := TempDir(t)
	home := TempDir(t)
	os.MkdirAll(filepath.Join(home, ".vibe-science", "db"), 0o755) // VIBE_HOME: not a project
	os.MkdirAll(filepath.Join(home, "elsewhere"), 0o755)           // under it, no project
	status := "this is a git checkout that is not built: run `make build` in " + root
	deny := func(path, what string) string {
		return "deny|vibe refused this write to " + path + " (" + what + "): its binaries are not installed in " + root +
			"/bin yet, so it cannot check the write, and protected files are not written unchecked (" + status + "). Write other files meanwhile."
	}
	why := "vibe cannot judge this call: its binaries are not installed in " + root + "/bin yet (" + status + ")"
	askShell := "ask|" + why + ". Allow it only if it leaves the claim ledger, reviews, raw data and vibe's configuration alone."
	askPath := "ask|" + why + ", and it cannot tell which file this writes. Allow it only if the file is not protected."
	write := func(cwd, path string) string {
		return fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x \"file_path\":\"/x\""}}`, cwd, path)
	}
	p := func(rel string) string { return filepath.Join(project, rel) }
	for _, c := range []struct{ name, input, want string }{
		{"outside a project", write(outside, filepath.Join(outside, "CLAIM-LEDGER.md")), ""},
		{"under VIBE_HOME's parent", write(filepath.Join(home, "elsewhere"), filepath.Join(home, "elsewhere", "CLAIM-LEDGER.md")), ""},
		{"notes", write(project, p("notes.txt")), ""},
		{"findings", write(project, p(".vibe-science/RQ-001/04-results/FINDINGS.md")), ""},
		{"findings json", write(project, p(".vibe-science/RQ-001/04-results/FINDINGS.json")), ""},
		{"ledger", write(project, p("CLAIM-LEDGER.md")), deny(p("CLAIM-LEDGER.md"), "the claim ledger")},
		{"ledger in the RQ, other case", write(project, p(".vibe-science/Claim-Ledger.MD")), deny(p(".vibe-science/Claim-Ledger.MD"), "the claim ledger")},
		{"relative path", write(project, "CLAIM-LEDGER.md"), deny(p("CLAIM-LEDGER.md"), "the claim ledger")},
		{"serendipity", write(project, p(".vibe-science/SERENDIPITY.md")), deny(p(".vibe-science/SERENDIPITY.md"), "the serendipity log")},
		{"review", write(project, p(".vibe-science/RQ-001/05-reviewer2/r.md")), deny(p(".vibe-science/RQ-001/05-reviewer2/r.md"), "a review report")},
		{"review through a linked folder", write(project, p("reviews/r.md")), deny(p("reviews/r.md"), "a review report")},
		{"raw data", write(project, p(".vibe-science/RQ-001/02-data/raw/x.csv")), deny(p(".vibe-science/RQ-001/02-data/raw/x.csv"), "raw data")},
		{"domain config", write(project, p(".vibe-science/domain-config.json")), deny(p(".vibe-science/domain-config.json"), "vibe's configuration")},
		{"schema", write(project, p(".vibe-science/schemas/claim.json")), deny(p(".vibe-science/schemas/claim.json"), "vibe's configuration")},
		{"agent settings", write(project, p(".claude/settings.json")), deny(p(".claude/settings.json"), "the agent's configuration")},
		{"the plugin", write(project, filepath.Join(root, "hooks.json")), deny(filepath.Join(root, "hooks.json"), "vibe's plugin folder")},
		{"a link", write(project, p("ledger-link.md")), askPath},
		{"non-ASCII", write(project, p("CLАIM-LEDGER.md")), askPath},
		{"dot-dot", write(project, project+"/x/../CLAIM-LEDGER.md"), "ask|" + why + ", and it cannot tell which file " + project + "/x/../CLAIM-LEDGER.md is. Allow it only if the file is not protected."},
		{"escaped quote", write(project, p(`a\"b.md`)), askPath},
		{"bash", fmt.Sprintf(`{"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, project), askShell},
		{"mcp", fmt.Sprintf(`{"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"mcp__fs__write","tool_input":{}}`, project), askShell},
		{"skill shell", fmt.Sprintf(`{"cwd":%q,"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"echo x"}}`, project), askShell},
		{"bash outside", fmt.Sprintf(`{"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, outside), ""},
	} {
		r := runHook(t, root, "vibe-pre-tool-use", c.input, "http://127.0.0.1:1", "HOME="+home)
		got := ""
		if r.stdout != "" {
			var rep struct {
				HookSpecificOutput struct {
					HookEventName, PermissionDecision, PermissionDecisionReason string
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Errorf("%s: %v: %s", c.name, err, r.stdout)
				continue
			}
			got = rep.HookSpecificOutput.PermissionDecision + "|" + rep.HookSpecificOutput.PermissionDecisionReason
			var in struct {
				HookEventName string `json:"hook_event_name"`
			}
			json.Unmarshal([]byte(c.input), &in)
			if rep.HookSpecificOutput.HookEventName != in.HookEventName {
				t.Errorf("%s: hookEventName %q", c.name, rep.HookSpecificOutput.HookEventName)
			}
		}
		if r.code != 0 || got != c.want {
			t.Errorf("%s: exit %d, got\n%s\nwant\n%s\nstderr %s", c.name, r.code, got, c.want, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".vibe-install", "lock")); !os.IsNotExist(err) {
		t.Errorf("a checkout started an install (%v)", err)
	}
}

// TestBootstrapWhileDownloading: a PreToolUse that finds the install still
// running waits for it within VIBE_BOOTSTRAP_WAIT, then answers without
// the binaries and says the download is running; once it is done, the
// binary answers.
func TestBootstrapWhileDownloading(t *testing.T) {
	version := pluginVersion(t)
	hold := make(chan struct{})
	rel, _ := goodRelease(t, version, hold)
	root := bootstrapPlugin(t, false)
	project := TempDir(t)
	optedIn(t, project)
	ledger := filepath.Join(project, "CLAIM-LEDGER.md")
	in := fmt.Sprintf(`{"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q}}`, project, ledger)
	start := time.Now()
	r := runHook(t, root, "vibe-pre-tool-use", in, rel.URL, "VIBE_BOOTSTRAP_WAIT=1")
	if d := time.Since(start); d < time.Second || d > 5*time.Second {
		t.Errorf("the hook answered after %s, want about VIBE_BOOTSTRAP_WAIT (1s)", d)
	}
	if want := "the download of vibe's release is still running; the hooks judge every call once it is done"; !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, want) {
		t.Errorf("while downloading: %+v", r)
	}
	close(hold)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(root, ".vibe-install", "lock")); os.IsNotExist(err) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := runHook(t, root, "vibe-pre-tool-use", in, rel.URL); r.stdout != "fake vibe-pre-tool-use \n"+in {
		t.Errorf("after the download: %+v", r)
	}
}

// TestBootstrapRefusesABinaryThatDoesNotRun: a bin/<binary> that is there
// but not executable is a broken install; the guard refuses (exit 2) with
// the fix rather than answer in its place.
func TestBootstrapRefusesABinaryThatDoesNotRun(t *testing.T) {
	root := bootstrapPlugin(t, true)
	mustWrite(t, filepath.Join(root, "bin", "vibe-pre-tool-use"), "#!/bin/sh\n")
	bin := filepath.Join(root, "bin", "vibe-pre-tool-use")
	r := runHook(t, root, "vibe-pre-tool-use", `{"hook_event_name":"PreToolUse","tool_name":"Write"}`, "http://127.0.0.1:1")
	want := "vibe: " + bin + " is not executable; run `chmod +x " + bin + "` or reinstall with `sh " + root + "/plugin/bootstrap.sh install`\n"
	if r.code != 2 || r.stderr != want || r.stdout != "" {
		t.Errorf("got %+v, want exit 2 and %q", r, want)
	}
}

// TestBootstrapInfo: what the bootstrap of the shipped plugin.json fetches
// by default (GitHub releases of the manifest's repository) and for this
// host.
func TestBootstrapInfo(t *testing.T) {
	version := pluginVersion(t)
	root := bootstrapPlugin(t, false)
	cmd := exec.Command("/bin/sh", filepath.Join(root, "plugin", "bootstrap.sh"), "info")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	base := "https://github.com/vibe-science/vibe/releases/download/v" + version + "/"
	want := "version " + version + "\nplatform " + runtime.GOOS + "/" + runtime.GOARCH + "\narchive " + base + archiveName(version) +
		"\nchecksums " + base + "checksums.txt\nbin " + root + "/bin\n"
	if err != nil || string(out) != want {
		t.Errorf("%v\n%s\nwant\n%s", err, out, want)
	}
}

// TestBootstrapKnowsEveryBinary: the bootstrap installs an archive only
// when it holds every binary hooks.json and vibe run.
func TestBootstrapKnowsEveryBinary(t *testing.T) {
	m := regexp.MustCompile(`(?m)^binaries="([^"]+)"$`).FindSubmatch(repoFile(t, "plugin/bootstrap.sh"))
	if m == nil {
		t.Fatal(`plugin/bootstrap.sh has no binaries="..." line`)
	}
	got, want := strings.Fields(string(m[1])), releaseBinaries()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("bootstrap.sh checks %q, vibe runs %q", got, want)
	}
}

// TestHookSettlesACopyInstalledWithItsBinaries: a plugin copy that came
// with its binaries (a checkout's `vibe setup`, which Claude Code copies
// bin/ and all) runs them through hook.sh; the first hook rewrites its
// hooks.json to run them directly from the next session on, once, while a
// git checkout keeps the repository's hooks.json. `bootstrap.sh hooks`
// prints the same rewrite.
func TestHookSettlesACopyInstalledWithItsBinaries(t *testing.T) {
	shipped := repoFile(t, "hooks.json")
	for _, checkout := range []bool{false, true} {
		root := bootstrapPlugin(t, checkout)
		for _, n := range releaseBinaries() {
			mustWrite(t, filepath.Join(root, "bin", n), "#!/bin/sh\necho \"fake "+n+" $*\"\ncat\n")
			os.Chmod(filepath.Join(root, "bin", n), 0o755)
		}
		pre := `{"hook_event_name":"PreToolUse","tool_name":"Write"}`
		if r := runHook(t, root, "vibe-pre-tool-use", pre, "http://127.0.0.1:9"); r.code != 0 || r.stdout != "fake vibe-pre-tool-use \n"+pre {
			t.Fatalf("checkout %v: hook.sh ran %+v", checkout, r)
		}
		got, _ := os.ReadFile(filepath.Join(root, "hooks.json"))
		want := directHooks(t, shipped)
		if checkout {
			want = canonical(t, shipped)
		}
		if canonical(t, got) != want {
			t.Errorf("checkout %v: hooks.json after the first hook:\n%s\nwant:\n%s", checkout, got, want)
		}
		if _, err := os.Stat(filepath.Join(root, ".vibe-install", "direct")); (err == nil) == checkout {
			t.Errorf("checkout %v: the marker of the rewrite: %v", checkout, err)
		}
		if checkout {
			continue
		}
		// Done once: a hooks.json changed afterwards (an update of the
		// copy's files) is not rewritten by every hook.
		mustWrite(t, filepath.Join(root, "hooks.json"), string(shipped))
		runHook(t, root, "vibe-pre-tool-use", pre, "http://127.0.0.1:9")
		if got, _ := os.ReadFile(filepath.Join(root, "hooks.json")); canonical(t, got) != canonical(t, shipped) {
			t.Errorf("hooks.json rewritten again by a later hook")
		}
		out, err := exec.Command("/bin/sh", filepath.Join(root, "plugin", "bootstrap.sh"), "hooks").Output()
		if err != nil || canonical(t, out) != directHooks(t, shipped) {
			t.Errorf("bootstrap.sh hooks: %v\n%s", err, out)
		}
	}
}
