package status

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// TestStatusScopedToTheProject: in a project, vibe status counts that
// project's records; --all counts every project; outside a project it says
// its counts cover every project (issue 16, finding 6).
func TestStatusScopedToTheProject(t *testing.T) {
	f, out, _ := gateTestFactory(t, nil)
	ctx := context.Background()
	mine, other := clitest.MkVibeDir(t, t.TempDir()), clitest.MkVibeDir(t, t.TempDir())
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for i, p := range []string{mine, other, other} {
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s" + string(rune('a'+i)), ProjectPath: p, At: gateT0, Start: true}); err != nil {
				return err
			}
		}
		// Decisions: mine has a deny, an ask and a pass (recorded only, not
		// a decision); other has an ask a deny overrode (not shown, so not
		// counted).
		for _, d := range []struct {
			p, kind string
			r       verdict.Result
		}{{mine, "deny", verdict.Block}, {mine, "ask", verdict.Warn}, {mine, "recorded", verdict.Pass}, {other, "recorded", verdict.Warn}} {
			v := verdict.New("c", d.r, verdict.Low, "r", nil)
			if err := tx.AppendAdvisories(ctx, record.AdvisoryContext{ProjectPath: d.p, Event: "PreToolUse", At: gateT0},
				[]verdict.Verdict{v}, record.Decided{Kind: d.kind}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	status := func(o *StatusOptions) Status {
		t.Helper()
		out.Reset()
		o.IO, o.Paths, o.Store, o.ProjectRoot, o.Root, o.JSON = f.IO, f.Paths, f.Store, f.ProjectRoot, f.Root, true
		if err := runStatus(ctx, o); err != nil {
			t.Fatal(err)
		}
		var s Status
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return s
	}
	if s := status(&StatusOptions{Project: mine}); s.Counts.Sessions != 1 || s.Scope != mine || s.Counts.Decisions != 2 || s.Counts.Advisories != 3 {
		t.Errorf("project: %d sessions, scope %q, %d decisions of %d verdicts; want 1, %s, 2 of 3", s.Counts.Sessions, s.Scope,
			s.Counts.Decisions, s.Counts.Advisories, mine)
	}
	if s := status(&StatusOptions{Project: other}); s.Counts.Sessions != 2 {
		t.Errorf("other project: %d sessions, want 2", s.Counts.Sessions)
	}
	if s := status(&StatusOptions{Project: mine, All: true}); s.Counts.Sessions != 3 || s.Scope != "all projects" {
		t.Errorf("--all: %d sessions, scope %q", s.Counts.Sessions, s.Scope)
	}
	t.Chdir(t.TempDir())
	out.Reset()
	if err := runStatus(ctx, &StatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, ProjectRoot: f.ProjectRoot, Root: f.Root}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "project    none here: the counts cover every project (--project DIR for one)\nsessions 3 ·") ||
		!strings.Contains(out.String(), " · decisions 2 (`vibe decisions`)\n") {
		t.Errorf("outside a project:\n%s", out)
	}
}

// TestStatusShowsWhatTheGatesDecidedAtTheHooks: the research files whose
// gates failed or warned at their last change, worst first, and a line
// that says when nothing has been gated yet (issue 13).
func TestStatusShowsWhatTheGatesDecidedAtTheHooks(t *testing.T) {
	f, out, _ := gateTestFactory(t, nil)
	ctx := context.Background()
	root := clitest.MkVibeDir(t, t.TempDir())
	run := func() string {
		t.Helper()
		out.Reset()
		if err := runStatus(ctx, &StatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, ProjectRoot: f.ProjectRoot, Root: f.Root, Project: root}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got := run(); !strings.Contains(got, "has been gated by the hooks yet") ||
		!strings.Contains(got, "\ntree state .vibe-science/TREE-STATE.json not written yet: vibe writes it at the end of each turn\n") {
		t.Errorf("nothing gated yet:\n%s", got)
	}
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for _, a := range []record.ArtifactState{
			{Project: root, Path: "RQ-001/04-results/metrics.json", Kind: "metrics", Status: "WARN", At: gateT0},
			{Project: root, Path: "RQ-001/02-data/processed/features.csv", Kind: "features", Status: "FAIL", At: gateT0},
			{Project: root, Path: "RQ-001/04-results/FINDINGS.md", Kind: "findings", Status: "PASS", At: gateT0},
			{Project: root, Path: "RQ-001/DESIGN.md", Kind: "design", At: gateT0}, // a baseline: never gated
		} {
			if err := tx.PutArtifactState(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := run()
	want := "failed or warned at their last change (1 failed, 1 warned; details: `vibe gate history`):\n" +
		"  FAIL  RQ-001/02-data/processed/features.csv  (features, " + gateT0.UTC().Format(time.RFC3339) + ")\n" +
		"  WARN  RQ-001/04-results/metrics.json  (metrics, " + gateT0.UTC().Format(time.RFC3339) + ")\n"
	if !strings.Contains(got, "gates      2 research files of") || !strings.Contains(got, want) {
		t.Errorf("status:\n%s\nwant the lines\n%s", got, want)
	}
}

var gateT0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

// gateTestFactory shows tables as a 200-column terminal does (root's
// output_test.go checks the pipe form).
func gateTestFactory(t *testing.T, env map[string]string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: gateT0, Env: env, TTY: true, Width: 200})
}

// TestStatusSaysWhatAMissingModelMeans: the model line names the current
// model (the one `vibe model use` chose, else the settings') and, when it
// is not installed, says what a worker started with this environment does
// without it, under each switch (cli.MissingModel); an installed model
// says where it is.
func TestStatusSaysWhatAMissingModelMeans(t *testing.T) {
	const fb = "not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) "
	const lex = "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) "
	def := config.Defaults.Model
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"defaults", nil, def + ": " + fb + "and downloads the model on first need (`vibe model pull " + def + "` installs it now)"},
		{"no pull", map[string]string{"VIBE_MODEL_PULL": "off"},
			def + ": " + fb + "until `vibe model pull " + def + "` installs it (VIBE_MODEL_PULL=off: no download on first need)"},
		{"no fallback", map[string]string{"VIBE_EMBED_FALLBACK": "OFF"},
			def + ": " + lex + "until the worker, once started, downloads the model on first need (`vibe model pull " + def + "` installs it now)"},
		{"neither", map[string]string{"VIBE_EMBED_FALLBACK": "off", "VIBE_MODEL_PULL": "off"},
			def + ": " + lex + "until `vibe model pull " + def + "` installs it (VIBE_MODEL_PULL=off)"},
	} {
		f, out, _ := gateTestFactory(t, nil)
		o := clitest.Built(t, func(runF func(*StatusOptions) error) *cobra.Command { return NewCmdStatus(f, runF) }, "--all")
		o.Getenv = func(k string) string {
			if v, ok := c.env[k]; ok {
				return v
			}
			return f.Getenv(k)
		}
		if err := runStatus(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if line := "\nmodel      " + c.want + "\n"; !strings.Contains(out.String(), line) {
			t.Errorf("%s:\n%s\nwant the line%s", c.name, out, line)
		}
		out.Reset()
		o.JSON = true
		if err := runStatus(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		var s Status
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v: %s", c.name, err, out)
		}
		if s.Model != c.want {
			t.Errorf("%s: json model %q, want %q", c.name, s.Model, c.want)
		}
	}

	// `vibe model use` chose an installed model: its name and folder.
	f, out, _ := gateTestFactory(t, nil)
	ctx := context.Background()
	dir := embed.Dir(f.Paths().Models, "mini")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, embed.ONNXFile), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, embed.TokenizerFile), []byte("x"), 0o644)
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UseEmbedModel(ctx, "mini", gateT0); err != nil {
		t.Fatal(err)
	}
	o := clitest.Built(t, func(runF func(*StatusOptions) error) *cobra.Command { return NewCmdStatus(f, runF) }, "--all")
	if err := runStatus(ctx, o); err != nil {
		t.Fatal(err)
	}
	if line := "\nmodel      mini: installed in " + dir + "\n"; !strings.Contains(out.String(), line) {
		t.Errorf("installed:\n%s\nwant the line%s", out, line)
	}
}

// TestWorkerLine: the state a running worker reports is its model's, and
// the line says so.
func TestWorkerLine(t *testing.T) {
	h := client.Health{PID: 41, Model: "potion-base-8M", State: "not installed: the worker embeds with the fallback hashed-token embedder (degraded vectors) until the model is installed", Backlog: 2, Failed: 1}
	want := "running (pid 41; model potion-base-8M: not installed: the worker embeds with the fallback hashed-token embedder (degraded vectors) until the model is installed; backlog 2, failed 1)"
	if got := workerLine(h); got != want {
		t.Errorf("workerLine = %q\nwant %q", got, want)
	}
}
