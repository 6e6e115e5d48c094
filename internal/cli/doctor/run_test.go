package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/cli/setup"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/project"
)

// fakeDB is a database file as doctor sees it.
type fakeDB struct {
	version  int
	checkErr error
	closed   bool
	// model is the one `vibe model use` chose ("": none).
	model string
}

func (d *fakeDB) Version(context.Context) (int, error)       { return d.version, nil }
func (d *fakeDB) EmbedModel(context.Context) (string, error) { return d.model, nil }
func (d *fakeDB) Check(context.Context) (string, error) {
	if d.checkErr != nil {
		return "", d.checkErr
	}
	return "v0.0.0-fake", nil
}
func (d *fakeDB) Close() error { d.closed = true; return nil }

// fakeDoctor is DoctorOptions built without a factory: a plugin root with
// every hook binary, guard.sh and the shipped hooks.json, a VIBE_HOME and
// HOME of its own, the worker off, no project, and no program on the PATH.
func fakeDoctor(t *testing.T) (*DoctorOptions, *bytes.Buffer) {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for _, b := range setup.HookBinaries {
		os.WriteFile(filepath.Join(root, "bin", b), []byte("#!/bin/sh\n"), 0o755)
	}
	os.MkdirAll(filepath.Join(root, "plugin"), 0o755)
	os.WriteFile(filepath.Join(root, "plugin", "guard.sh"), []byte("#!/bin/sh\n"), 0o755)
	shipped, err := os.ReadFile(filepath.Join("..", "..", "..", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "hooks.json"), shipped, 0o644)
	env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	return &DoctorOptions{
		IO:       cli.IO{Out: &out, ErrOut: &bytes.Buffer{}},
		Paths:    func() config.Paths { return config.Resolve(getenv) },
		Getenv:   getenv,
		LookPath: func(string) (string, error) { return "", errors.New("not found") },
		Exec: func(context.Context, string, ...string) (string, error) {
			t.Error("Exec called although LookPath finds nothing")
			return "", errors.New("unexpected")
		},
		OpenDB:      func(context.Context, string) (Database, error) { return &fakeDB{version: db.Latest()}, nil },
		FindProject: func(string) (project.Project, error) { return project.Project{}, errors.New("not a project") },
		Root:        root,
		HeaderDirs:  []string{t.TempDir()},
	}, &out
}

// TestRunDoctorOutput: the whole report of an installed copy, each
// dependency faked through the Options; the one failure is the claude CLI,
// so the command fails (exit 1) saying how many checks failed.
func TestRunDoctorOutput(t *testing.T) {
	o, out := fakeDoctor(t)
	p := o.Paths()
	err := runDoctor(context.Background(), o)
	if err == nil || err.Error() != "1 check(s) failed" || cli.ExitCode(err) != 1 {
		t.Errorf("err %v, want 1 failed check (exit 1)", err)
	}
	want := "ok   vibe home          " + p.Home + "\n" +
		"ok   database           " + p.DB + ", schema " + itoa(db.Latest()) + " of " + itoa(db.Latest()) + ", sqlite-vec v0.0.0-fake, FTS5 ok\n" +
		"ok   hook binaries      " + filepath.Join(o.Root, "bin") + "\n" +
		"ok   hooks.json         " + filepath.Join(o.Root, "hooks.json") + "\n" +
		"ok   fails closed       PreToolUse and PreSkillShellCommand have \"onFailure\": \"block\" (a binary that crashes refuses the call; verified on Claude Code 2.1.332)\n" +
		"ok   build tools        not needed for running (Go, a C compiler and sqlite3.h only build vibe from source)\n" +
		"FAIL claude CLI         not on PATH\n" +
		"     fix: install Claude Code (npm install -g @anthropic-ai/claude-code)\n" +
		"ok   worker             not used (VIBE_WORKER=off): each hook runs its handler in a process of its own\n" +
		"WARN embedding model    potion-base-8M is not installed: semantic recall runs on the fallback hashed-token embedder, which matches words, not meanings; the worker downloads it when an embedding is needed, if it can reach the network\n" +
		"     fix: `vibe model pull potion-base-8M` installs it (`vibe setup` offers it too)\n" +
		"ok   settings           no " + p.Settings + ": the defaults apply\n"
	if out.String() != want {
		t.Errorf("doctor printed:\n%s\nwant:\n%s", out, want)
	}
}

// TestRunDoctorDatabase: the database line for a file that does not open,
// one that fails its check, and a good one, which doctor closes again.
func TestRunDoctorDatabase(t *testing.T) {
	for _, c := range []struct {
		name     string
		open     error
		check    error
		wantLine string
	}{
		{"locked", errors.New("database is locked by another process"), nil,
			"FAIL database           %DB%: database is locked by another process\n" +
				"     fix: another process holds the database: let it finish, or find it (`fuser %DB%`)\n"},
		{"corrupt", errors.New("read schema version: database file is corrupt: file is not a database"), nil,
			"FAIL database           %DB%: read schema version: database file is corrupt: file is not a database\n" +
				"     fix: run `vibe doctor --repair`: it moves the damaged file aside and keeps every readable row\n"},
		{"not yours", errors.New("read schema version: database cannot be opened or written: unable to open database file: permission denied"), nil,
			"FAIL database           %DB%: read schema version: database cannot be opened or written: unable to open database file: permission denied\n" +
				"     fix: the file or its folder is not yours to read and write: run vibe as the user who owns it, take it over (`chown`), or set VIBE_HOME to a folder of your own\n"},
		{"a folder", errors.New("read schema version: database cannot be opened or written: unable to open database file: is a directory"), nil,
			"FAIL database           %DB%: read schema version: database cannot be opened or written: unable to open database file: is a directory\n" +
				"     fix: the database path names a folder: set VIBE_DB to a file, or unset it to use VIBE_HOME/db/vibe-science.db\n"},
		{"other", errors.New("out of memory"), nil,
			"FAIL database           %DB%: out of memory\n" +
				"     fix: if the file is damaged, `vibe doctor --repair` keeps every readable row; if it is locked, find the process holding it\n"},
		{"no fts5", nil, errors.New("no such module: fts5"),
			"FAIL database           no such module: fts5\n" +
				"     fix: rebuild with `make build` (needs -tags sqlite_fts5 and libsqlite3-dev)\n"},
		{"damaged", nil, errors.New("integrity check: quick_check: *** in database main ***"),
			"FAIL database           integrity check: quick_check: *** in database main ***\n" +
				"     fix: run `vibe doctor --repair`: it moves the damaged file aside and keeps every readable row\n"},
		{"good", nil, nil, "ok   database           %DB%, schema 2 of " + itoa(db.Latest()) + ", sqlite-vec v0.0.0-fake, FTS5 ok\n"},
	} {
		o, out := fakeDoctor(t)
		d := &fakeDB{version: 2, checkErr: c.check}
		var openedAt string
		o.OpenDB = func(_ context.Context, path string) (Database, error) {
			openedAt = path
			if c.open != nil {
				return nil, c.open
			}
			return d, nil
		}
		_ = runDoctor(context.Background(), o)
		file := o.Paths().DB
		if openedAt != file {
			t.Errorf("%s: opened %q, want %q", c.name, openedAt, file)
		}
		if want := strings.ReplaceAll(c.wantLine, "%DB%", file); !bytes.Contains(out.Bytes(), []byte("\n"+want)) {
			t.Errorf("%s: doctor lacks %q:\n%s", c.name, want, out)
		}
		if c.open == nil && !d.closed {
			t.Errorf("%s: the database was left open", c.name)
		}
	}
}

// TestRunDoctorEmbeddingModel: the embedding model line names the current
// model (the database's choice, else the settings', also when the database
// does not open); a missing one is a warning, not a failure: recall then
// ranks by words only (the fallback embedder, or none with
// VIBE_EMBED_FALLBACK=off), and the fix names the command that installs it
// (or the files to place, for a model vibe cannot download).
func TestRunDoctorEmbeddingModel(t *testing.T) {
	const fb = " is not installed: semantic recall runs on the fallback hashed-token embedder, which matches words, not meanings"
	const lex = " is not installed: recall is lexical only (VIBE_EMBED_FALLBACK=off)"
	const pulls = "; the worker downloads it when an embedding is needed, if it can reach the network"
	const noPull = "; the worker does not download it (VIBE_MODEL_PULL=off)"
	const pot, mini = "potion-base-8M", "all-MiniLM-L6-v2"
	fix := func(m string) string {
		return "\n     fix: `vibe model pull " + m + "` installs it (`vibe setup` offers it too)"
	}
	for _, c := range []struct {
		name     string
		env      map[string]string
		chosen   string // by `vibe model use`, in the database
		settings string // config.json
		openErr  error
		install  bool // the model's files in place
		want     string
	}{
		{name: "defaults", want: "WARN embedding model    " + pot + fb + pulls + fix(pot)},
		{name: "no pull", env: map[string]string{"VIBE_MODEL_PULL": "off"}, want: "WARN embedding model    " + pot + fb + noPull + fix(pot)},
		{name: "no fallback", env: map[string]string{"VIBE_EMBED_FALLBACK": "OFF"}, want: "WARN embedding model    " + pot + lex + pulls + fix(pot)},
		{name: "neither", env: map[string]string{"VIBE_EMBED_FALLBACK": "off", "VIBE_MODEL_PULL": "off"}, want: "WARN embedding model    " + pot + lex + noPull + fix(pot)},
		{name: "chosen in the database", chosen: mini, settings: pot, want: "WARN embedding model    " + mini + fb + pulls + fix(mini)},
		{name: "settings, database locked", settings: mini, openErr: errors.New("database is locked"), want: "WARN embedding model    " + mini + fb + pulls + fix(mini)},
		{name: "unknown model", settings: "my-model", want: "WARN embedding model    my-model" + fb + "\n     fix: place model.onnx (or model.safetensors) and tokenizer.json in %MODELS%/my-model (vibe does not know how to download my-model)"},
		{name: "installed", install: true, want: "ok   embedding model    " + pot + ": installed in %MODELS%/" + pot},
	} {
		o, out := fakeDoctor(t)
		base := o.Getenv
		o.Getenv = func(k string) string {
			if v, ok := c.env[k]; ok {
				return v
			}
			return base(k)
		}
		p := o.Paths()
		if c.settings != "" {
			os.WriteFile(p.Settings, []byte(`{"model": "`+c.settings+`"}`), 0o644)
		}
		if c.install {
			dir := filepath.Join(p.Models, pot)
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, embed.StaticFile), []byte("x"), 0o644)
			os.WriteFile(filepath.Join(dir, embed.TokenizerFile), []byte("x"), 0o644)
		}
		o.OpenDB = func(context.Context, string) (Database, error) {
			if c.openErr != nil {
				return nil, c.openErr
			}
			return &fakeDB{version: db.Latest(), model: c.chosen}, nil
		}
		_ = runDoctor(context.Background(), o)
		if line := "\n" + strings.ReplaceAll(c.want, "%MODELS%", p.Models) + "\n"; !strings.Contains(out.String(), line) {
			t.Errorf("%s:\n%s\nwant the line%s", c.name, out, line)
		}
	}
}

// TestRunDoctorWarningsPass: a warning does not fail doctor, and --json
// marks it.
func TestRunDoctorWarningsPass(t *testing.T) {
	o, out := fakeDoctor(t)
	o.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	o.JSON = true
	_ = runDoctor(context.Background(), o)
	var rep struct {
		Checks []struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
			Warn bool   `json:"warn"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	warned := 0
	for _, c := range rep.Checks {
		if c.Warn {
			warned++
			if !c.OK || c.Name != "embedding model" {
				t.Errorf("warning %+v", c)
			}
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings, want the missing model's: %s", warned, out)
	}
}

// TestRunDoctorInAProject: the project doctor runs in comes from
// FindProject; its configs are checked there.
func TestRunDoctorInAProject(t *testing.T) {
	o, out := fakeDoctor(t)
	proj := clitest.Project(t)
	o.FindProject = func(dir string) (project.Project, error) {
		if dir != "" {
			t.Errorf("FindProject(%q), want the current folder", dir)
		}
		return project.Project{Root: proj}, nil
	}
	_ = runDoctor(context.Background(), o)
	want := "ok   permissions        " + filepath.Join(proj, ".vibe-science") + ": no permissions.json, the shipped policy applies\n" +
		"ok   domain config      " + filepath.Join(proj, ".vibe-science") + ": no domain-config.json, the generic domain applies\n" +
		"FAIL claude CLI"
	if !bytes.Contains(out.Bytes(), []byte(want)) {
		t.Errorf("doctor lacks %q:\n%s", want, out)
	}
}

// TestNewCmdDoctorWiresEveryDependency: NewCmdDoctor fills each dependency
// from the factory.
func TestNewCmdDoctorWiresEveryDependency(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	f.Root = "/plugin"
	f.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	f.Exec = func(context.Context, string, ...string) (string, error) { return "", errors.New("no") }
	o := doctorOpts(t, f)
	clitest.Wired(t, o)
	if o.Root != "/plugin" || len(o.HeaderDirs) == 0 || o.Paths() != f.Paths() {
		t.Errorf("root %q, header dirs %q, paths %+v", o.Root, o.HeaderDirs, o.Paths())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRunDoctorFailsClosed: the fails-closed line passes only when every
// PreToolUse and PreSkillShellCommand hook running vibe-pre-tool-use
// (itself, or through plugin/hook.sh as the shipped hooks.json does)
// carries "onFailure": "block", and says what is at stake when one does not.
func TestRunDoctorFailsClosed(t *testing.T) {
	const bin = `"${CLAUDE_PLUGIN_ROOT}/bin/vibe-pre-tool-use"`
	const wrapper = `"${CLAUDE_PLUGIN_ROOT}/plugin/hook.sh"`
	const skill = `"PreSkillShellCommand":[{"hooks":[{"type":"command","command":` + bin + `,"onFailure":"block"}]}]`
	for _, c := range []struct{ name, hooks, want string }{
		{"block", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + bin + `,"onFailure":"block"}]}],` + skill + `}}`,
			`ok   fails closed       PreToolUse and PreSkillShellCommand have "onFailure": "block"`},
		{"no onFailure", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + bin + `}]}],` + skill + `}}`,
			`FAIL fails closed       %H: the PreToolUse hook lacks "onFailure": "block", so a missing or crashing vibe-pre-tool-use would let protected writes through`},
		{"continue", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + bin + `,"onFailure":"continue"}]}],` + skill + `}}`,
			`FAIL fails closed       %H: the PreToolUse hook lacks "onFailure": "block"`},
		{"one of two", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + bin + `,"onFailure":"block"}]},` +
			`{"matcher":"Read","hooks":[{"type":"command","command":` + bin + `}]}],` + skill + `}}`,
			`FAIL fails closed       %H: the PreToolUse hook lacks "onFailure": "block"`},
		{"no pre-tool-use", `{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/bin/vibe-post-tool-use"}]}],` + skill + `}}`,
			`FAIL fails closed       %H runs no vibe-pre-tool-use on PreToolUse: protected files are not guarded`},
		{"no skill shell", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + bin + `,"onFailure":"block"}]}]}}`,
			`FAIL fails closed       %H runs no vibe-pre-tool-use on PreSkillShellCommand: the shell commands in skills and slash commands run unjudged`},
		{"skill shell without block", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + bin + `,"onFailure":"block"}]}],` +
			`"PreSkillShellCommand":[{"hooks":[{"type":"command","command":` + bin + `}]}]}}`,
			`FAIL fails closed       %H: the PreSkillShellCommand hook lacks "onFailure": "block"`},
		{"through hook.sh", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + wrapper + `,"args":["vibe-pre-tool-use"],"onFailure":"block"}]}],` + skill + `}}`,
			`ok   fails closed       PreToolUse and PreSkillShellCommand have "onFailure": "block"`},
		{"hook.sh without block", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + wrapper + `,"args":["vibe-pre-tool-use"]}]}],` + skill + `}}`,
			`FAIL fails closed       %H: the PreToolUse hook lacks "onFailure": "block"`},
		{"hook.sh runs another binary", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + wrapper + `,"args":["vibe-post-tool-use"],"onFailure":"block"}]}],` + skill + `}}`,
			`FAIL fails closed       %H runs no vibe-pre-tool-use on PreToolUse: protected files are not guarded`},
		{"not JSON", `{"hooks":`, `FAIL fails closed       %H is not valid JSON: `},
	} {
		o, out := fakeDoctor(t)
		path := filepath.Join(o.Root, "hooks.json")
		if err := os.WriteFile(path, []byte(c.hooks), 0o644); err != nil {
			t.Fatal(err)
		}
		err := runDoctor(context.Background(), o)
		if want := strings.ReplaceAll(c.want, "%H", path); !strings.Contains(out.String(), "\n"+want) {
			t.Errorf("%s: doctor lacks %q:\n%s", c.name, want, out)
		}
		fix := "     fix: restore hooks.json from the vibe checkout (`git checkout hooks.json`) and restart Claude Code\n"
		if failed := strings.HasPrefix(c.want, "FAIL"); failed != strings.Contains(out.String(), fix) {
			t.Errorf("%s: the fix is printed %v, want %v:\n%s", c.name, !failed, failed, out)
		}
		if wantFailed := map[bool]string{true: "2 check(s) failed", false: "1 check(s) failed"}[strings.HasPrefix(c.want, "FAIL")]; err == nil || err.Error() != wantFailed {
			t.Errorf("%s: err %v, want %q (claude is not on the PATH either)", c.name, err, wantFailed)
		}
	}
}
