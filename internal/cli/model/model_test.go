package model

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestNewCmdModelFlags(t *testing.T) {
	pulls := []struct {
		argv []string
		want ModelPullOptions
	}{
		{[]string{}, ModelPullOptions{}}, // the current model, asked when it runs
		{[]string{"other", "--url", "http://mirror/x", "--json"}, ModelPullOptions{Name: "other", URL: "http://mirror/x", JSON: true}},
	}
	for _, c := range pulls {
		f, _, _ := modelTestFactory(t)
		var got *ModelPullOptions
		cmd := NewCmdModelPull(f, func(o *ModelPullOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		if got.Current == nil {
			t.Fatalf("pull %q: Current not wired", c.argv)
		}
		if name, err := got.Current(context.Background()); err != nil || name != embed.DefaultModel {
			t.Errorf("pull %q: the current model of a new VIBE_HOME is %q (%v), want %s", c.argv, name, err, embed.DefaultModel)
		}
		got.IO, got.Paths, got.Current = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("pull %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
	lists := []struct {
		argv []string
		want ModelListOptions
	}{
		{[]string{}, ModelListOptions{}},
		{[]string{"--verify", "--json"}, ModelListOptions{Verify: true, JSON: true}},
	}
	for _, c := range lists {
		f, _, _ := modelTestFactory(t)
		var got *ModelListOptions
		cmd := NewCmdModelList(f, func(o *ModelListOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		clitest.Wired(t, got)
		got.IO, got.Paths, got.Store, got.Getenv = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("list %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
	uses := []struct {
		argv []string
		want ModelUseOptions
		err  string
	}{
		{[]string{"mini"}, ModelUseOptions{Name: "mini"}, ""},
		{[]string{"mini", "--json"}, ModelUseOptions{Name: "mini", JSON: true}, ""},
		{[]string{}, ModelUseOptions{}, "accepts 1 arg(s), received 0"},
	}
	for _, c := range uses {
		f, _, _ := modelTestFactory(t)
		var got *ModelUseOptions
		cmd := NewCmdModelUse(f, func(o *ModelUseOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("use %q: err %v, want %q", c.argv, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got.IO, got.Paths, got.Store, got.Now = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("use %q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

// modelServer serves a fake model repository; a file named in broken is
// served with wrong bytes.
func modelServer(t *testing.T, files map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[strings.TrimPrefix(r.URL.Path, "/repo/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

var modelFiles = map[string]string{
	"config.json":     `{"hidden_size": 384}`,
	"tokenizer.json":  strings.Repeat("t", 1000),
	"onnx/model.onnx": strings.Repeat("m", 4000),
}

func testSpec(published bool) embed.Spec {
	s := embed.Spec{Name: "mini", Dims: 384, Files: []embed.File{
		{Remote: "config.json", Local: embed.ConfigFile},
		{Remote: "tokenizer.json", Local: embed.TokenizerFile, Size: 1000},
		{Remote: "onnx/model.onnx", Local: embed.ONNXFile, Size: 4000},
	}}
	if published {
		for i := range s.Files {
			s.Files[i].SHA256 = sha(modelFiles[s.Files[i].Remote])
		}
	}
	return s
}

func TestRunModelPull(t *testing.T) {
	srv := modelServer(t, modelFiles)
	ctx := context.Background()

	t.Run("no name: the current model", func(t *testing.T) {
		f, out, _ := modelTestFactory(t)
		o := &ModelPullOptions{IO: f.IO, Paths: f.Paths, Catalog: map[string]embed.Spec{"mini": testSpec(true)}, URL: srv.URL + "/repo",
			Current: func(context.Context) (string, error) { return "mini", nil }}
		if err := runModelPull(ctx, o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "installed mini in ") {
			t.Errorf("stdout %s", out)
		}
		o = &ModelPullOptions{IO: f.IO, Paths: f.Paths, Current: func(context.Context) (string, error) { return "", errors.New("database is locked") }}
		err := runModelPull(ctx, o)
		if want := "model pull: which model is current: database is locked (name one: `vibe model pull " + embed.DefaultModel + "`)"; err == nil || err.Error() != want {
			t.Errorf("err %v, want %s", err, want)
		}
	})

	t.Run("published digests, plain progress", func(t *testing.T) {
		f, out, errOut := modelTestFactory(t)
		o := &ModelPullOptions{IO: f.IO, Paths: f.Paths, Name: "mini", Catalog: map[string]embed.Spec{"mini": testSpec(true)}, URL: srv.URL + "/repo"}
		if err := runModelPull(ctx, o); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(f.Paths().Models, "mini")
		// Not a terminal: the table is tab-separated.
		want := "FILE\tSIZE\tSHA-256\tCHECK\n" +
			"config.json\t20 B\t" + sha(modelFiles["config.json"])[:16] + "\tpublished\n" +
			"tokenizer.json\t1000 B\t" + sha(modelFiles["tokenizer.json"])[:16] + "\tpublished\n" +
			"model.onnx\t3.9 KiB\t" + sha(modelFiles["onnx/model.onnx"])[:16] + "\tpublished\n" +
			"installed mini in " + dir + "\n"
		if out.String() != want {
			t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
		}
		wantErr := "config.json: 100% of 20 B\ntokenizer.json: 100% of 1000 B\nmodel.onnx: 100% of 3.9 KiB\n"
		if errOut.String() != wantErr {
			t.Errorf("stderr = %q, want %q", errOut, wantErr)
		}
		sums, _ := os.ReadFile(filepath.Join(dir, embed.SumsFile))
		wantSums := sha(modelFiles["config.json"]) + "  config.json\n" + sha(modelFiles["onnx/model.onnx"]) + "  model.onnx\n" +
			sha(modelFiles["tokenizer.json"]) + "  tokenizer.json\n"
		if string(sums) != wantSums {
			t.Errorf("SHA256SUMS =\n%s\nwant\n%s", sums, wantSums)
		}
		if v, err := embed.Verify(dir); v != embed.Verified || err != nil {
			t.Errorf("Verify = %s, %v", v, err)
		}
		// Pulling again downloads nothing.
		out.Reset()
		errOut.Reset()
		o.JSON = true
		if err := runModelPull(ctx, o); err != nil {
			t.Fatal(err)
		}
		if errOut.Len() != 0 || !strings.Contains(out.String(), `"check": "kept"`) || strings.Contains(out.String(), `"check": "published"`) {
			t.Errorf("second pull: stdout %s stderr %q", out, errOut)
		}
	})

	t.Run("terminal progress bar", func(t *testing.T) {
		f, _, errOut := modelTestFactory(t)
		f.IO.TTY = true
		o := &ModelPullOptions{IO: f.IO, Paths: f.Paths, Name: "mini", Catalog: map[string]embed.Spec{"mini": testSpec(true)}, URL: srv.URL + "/repo"}
		if err := runModelPull(ctx, o); err != nil {
			t.Fatal(err)
		}
		want := "\rconfig.json      [==============================] 100% 20 B / 20 B\n" +
			"\rtokenizer.json   [==============================] 100% 1000 B / 1000 B\n" +
			"\rmodel.onnx       [==============================] 100% 3.9 KiB / 3.9 KiB\n"
		if errOut.String() != want {
			t.Errorf("stderr = %q, want %q", errOut, want)
		}
	})

	t.Run("no published digest: recorded on first download", func(t *testing.T) {
		f, out, _ := modelTestFactory(t)
		o := &ModelPullOptions{IO: f.IO, Paths: f.Paths, Name: "mini", Catalog: map[string]embed.Spec{"mini": testSpec(false)}, URL: srv.URL + "/repo"}
		if err := runModelPull(ctx, o); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(f.Paths().Models, "mini")
		if n := strings.Count(out.String(), "note: no published SHA-256 for "); n != 3 ||
			!strings.Contains(out.String(), "is now recorded in "+filepath.Join(dir, embed.SumsFile)) {
			t.Errorf("stdout:\n%s", out)
		}
		// A later download that differs from the recorded digest is refused
		// and the installed file stays.
		bad := modelServer(t, map[string]string{"config.json": modelFiles["config.json"], "tokenizer.json": strings.Repeat("X", 1000),
			"onnx/model.onnx": modelFiles["onnx/model.onnx"]})
		os.WriteFile(filepath.Join(dir, embed.TokenizerFile), []byte("local edit"), 0o644) // forces a re-download
		o.URL = bad.URL + "/repo"
		err := runModelPull(ctx, o)
		want := "model pull: pull mini: " + bad.URL + "/repo/tokenizer.json has SHA-256 " + sha(strings.Repeat("X", 1000)) +
			", expected " + sha(modelFiles["tokenizer.json"]) + " (recorded): deleted it; the file is not the one vibe trusts (retry, or check --url)"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant  %s", err, want)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.part")); len(leftovers) != 0 {
			t.Errorf("partial downloads left: %v", leftovers)
		}
		if raw, _ := os.ReadFile(filepath.Join(dir, embed.TokenizerFile)); string(raw) != "local edit" {
			t.Errorf("installed file replaced by a failed pull: %q", raw)
		}
	})

	failures := []struct {
		name string
		spec embed.Spec
		url  string
		want string
	}{
		{"wrong digest", func() embed.Spec {
			s := testSpec(true)
			s.Files[2].SHA256 = sha("something else")
			return s
		}(), srv.URL + "/repo", "model pull: pull mini: " + srv.URL + "/repo/onnx/model.onnx has SHA-256 " + sha(modelFiles["onnx/model.onnx"]) +
			", expected " + sha("something else") + " (published): deleted it; the file is not the one vibe trusts (retry, or check --url)"},
		{"wrong size", func() embed.Spec {
			s := testSpec(true)
			s.Files[1].Size = 999
			return s
		}(), srv.URL + "/repo", "model pull: pull mini: " + srv.URL + "/repo/tokenizer.json is 1000 bytes, the catalogue says 999: the download is incomplete or not the published file (retry, or check --url)"},
		{"missing file", testSpec(true), srv.URL + "/elsewhere", "model pull: pull mini: download " + srv.URL + "/elsewhere/config.json: HTTP 404 Not Found"},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			f, out, _ := modelTestFactory(t)
			o := &ModelPullOptions{IO: f.IO, Paths: f.Paths, Name: "mini", Catalog: map[string]embed.Spec{"mini": tc.spec}, URL: tc.url}
			err := runModelPull(ctx, o)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant  %s", err, tc.want)
			}
			if cli.ExitCode(err) != 1 || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q", cli.ExitCode(err), out)
			}
			dir := filepath.Join(f.Paths().Models, "mini")
			entries, _ := os.ReadDir(dir)
			if len(entries) != 0 {
				t.Errorf("a failed pull left %d files in %s", len(entries), dir)
			}
		})
	}

	t.Run("unknown name", func(t *testing.T) {
		f, _, _ := modelTestFactory(t)
		err := runModelPull(ctx, &ModelPullOptions{IO: f.IO, Paths: f.Paths, Name: "gpt-9"})
		want := "model pull: vibe does not know how to download \"gpt-9\" (it can pull: all-MiniLM-L6-v2, potion-base-8M); to use another model, place model.onnx and tokenizer.json in " +
			filepath.Join(f.Paths().Models, "gpt-9") + " yourself"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v", err)
		}
		err = runModelPull(ctx, &ModelPullOptions{IO: f.IO, Paths: f.Paths, Name: "../etc"})
		if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), `model name "../etc" is not allowed`) {
			t.Errorf("path name: err = %v", err)
		}
	})
}

func installModel(t *testing.T, f *cli.Factory, name string, files ...string) string {
	t.Helper()
	dir := filepath.Join(f.Paths().Models, name)
	os.MkdirAll(dir, 0o755)
	for _, n := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(n+" bytes"), 0o644)
	}
	return dir
}

func TestRunModelList(t *testing.T) {
	ctx := context.Background()
	f, out, _ := modelTestFactory(t)
	o := &ModelListOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Getenv: f.Getenv}
	if err := runModelList(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := "  NAME\tSTATUS\tSIZE\tCHECKSUMS\n" +
		"  all-MiniLM-L6-v2\tavailable\t86.7 MiB\tpublished\n" +
		"* potion-base-8M\tavailable\tunpublished\ton first download\n" +
		"current model potion-base-8M: not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) and downloads the model on first need (`vibe model pull potion-base-8M` installs it now)\n"
	if out.String() != want {
		t.Errorf("empty:\n%s\nwant:\n%s", out, want)
	}

	good := installModel(t, f, "mini", embed.ONNXFile, embed.TokenizerFile)
	os.WriteFile(filepath.Join(good, embed.SumsFile), []byte(sha("model.onnx bytes")+"  model.onnx\n"+sha("changed")+"  tokenizer.json\n"), 0o644)
	half := installModel(t, f, "half", embed.ONNXFile)
	if err := setSettingsModel(f.Paths(), "mini"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	o.Verify = true
	if err := runModelList(ctx, o); err != nil {
		t.Fatal(err)
	}
	want = "  NAME\tSTATUS\tSIZE\tCHECKSUMS\n" +
		"  all-MiniLM-L6-v2\tavailable\t86.7 MiB\tpublished\n" +
		"  half\tincomplete\t16 B\tunrecorded\n" +
		"* mini\tinstalled\t194 B\tmismatch\n" + // SHA256SUMS counts too +
		"  potion-base-8M\tavailable\tunpublished\ton first download\n" +
		"half: incomplete (" + half + " lacks tokenizer.json); `vibe model pull half` completes it\n" +
		"mini: verify " + filepath.Join(good, "tokenizer.json") + ": SHA-256 is " + sha("tokenizer.json bytes") + ", SHA256SUMS records " + sha("changed") +
		": the file changed since it was downloaded (run `vibe model pull mini` again)\n"
	if out.String() != want {
		t.Errorf("installed:\n%s\nwant:\n%s", out, want)
	}
	out.Reset()
	o.Verify, o.JSON = false, true
	if err := runModelList(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"name": "mini",
    "current": true,
    "status": "installed",
    "bytes": 194,
    "checksums": "recorded",`) {
		t.Errorf("json:\n%s", out)
	}

	// The current model half downloaded: one status, "incomplete", in the
	// table and in the line that says what it lacks and what the worker
	// does meanwhile (it said "incomplete" above and "not installed" here).
	if err := setSettingsModel(f.Paths(), "half"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(half, embed.TokenizerFile+".part"), []byte("part"), 0o644)
	out.Reset()
	o.JSON = false
	if err := runModelList(ctx, o); err != nil {
		t.Fatal(err)
	}
	want = "  NAME\tSTATUS\tSIZE\tCHECKSUMS\n" +
		"  all-MiniLM-L6-v2\tavailable\t86.7 MiB\tpublished\n" +
		"* half\tincomplete\t16 B\tnone\n" +
		"  mini\tinstalled\t194 B\trecorded\n" +
		"  potion-base-8M\tavailable\tunpublished\ton first download\n" +
		"current model half: incomplete (" + half + " lacks tokenizer.json): once started, the worker embeds with the fallback " +
		"hashed-token embedder (degraded vectors) until its files are placed in " + half + " (vibe does not know how to download it)\n"
	if out.String() != want {
		t.Errorf("current model incomplete:\n%s\nwant:\n%s", out, want)
	}
}

// TestRunModelListSaysWhatAMissingModelMeans: the note under the table
// for a current model that is not installed says what a worker started
// with this environment does without it, under each switch
// (cli.MissingModel), also for a model vibe cannot download, which is
// listed as missing.
func TestRunModelListSaysWhatAMissingModelMeans(t *testing.T) {
	const fb = "not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) "
	const lex = "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) "
	const pot = "potion-base-8M"
	for _, c := range []struct {
		name  string
		env   map[string]string
		model string // in config.json ("": the default)
		want  string
	}{
		{name: "defaults", want: "current model " + pot + ": " + fb + "and downloads the model on first need (`vibe model pull " + pot + "` installs it now)\n"},
		{name: "no pull", env: map[string]string{"VIBE_MODEL_PULL": "off"},
			want: "current model " + pot + ": " + fb + "until `vibe model pull " + pot + "` installs it (VIBE_MODEL_PULL=off: no download on first need)\n"},
		{name: "no fallback", env: map[string]string{"VIBE_EMBED_FALLBACK": "OFF"},
			want: "current model " + pot + ": " + lex + "until the worker, once started, downloads the model on first need (`vibe model pull " + pot + "` installs it now)\n"},
		{name: "neither", env: map[string]string{"VIBE_EMBED_FALLBACK": "off", "VIBE_MODEL_PULL": "off"},
			want: "current model " + pot + ": " + lex + "until `vibe model pull " + pot + "` installs it (VIBE_MODEL_PULL=off)\n"},
		{name: "unknown model", model: "my-own", want: "current model my-own: " + fb + "until its files are placed in %DIR% (vibe does not know how to download it)\n"},
	} {
		f, out, _ := modelTestFactory(t)
		p := f.Paths()
		if c.model != "" {
			if err := setSettingsModel(p, c.model); err != nil {
				t.Fatal(err)
			}
		}
		o := clitest.Built(t, func(runF func(*ModelListOptions) error) *cobra.Command { return NewCmdModelList(f, runF) })
		o.Getenv = func(k string) string {
			if v, ok := c.env[k]; ok {
				return v
			}
			return f.Getenv(k)
		}
		if err := runModelList(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(c.want, "%DIR%", embed.Dir(p.Models, c.model))
		if !strings.HasSuffix(out.String(), "\n"+want) {
			t.Errorf("%s:\n%s\nwant it to end with\n%s", c.name, out, want)
		}
		if c.model != "" && !strings.Contains(out.String(), "\n* "+c.model+"\tmissing\t-\tnone\n") {
			t.Errorf("%s: the current model is not listed as missing:\n%s", c.name, out)
		}
	}
}

func TestRunModelUse(t *testing.T) {
	ctx := context.Background()
	f, out, _ := modelTestFactory(t)
	p := f.Paths()
	err := runModelUse(ctx, &ModelUseOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Name: "mini"})
	want := "model use: model mini is not installed in " + filepath.Join(p.Models, "mini") + ", and vibe does not know how to download it: place " +
		embed.ONNXFile + " (or " + embed.StaticFile + ") and " + embed.TokenizerFile + " there, or use one `vibe model list` names"
	if err == nil || err.Error() != want || cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v (exit %d)", err, cli.ExitCode(err))
	}
	// A model vibe can download is pointed at `vibe model pull`.
	err = runModelUse(ctx, &ModelUseOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Name: embed.PotionModel})
	want = "model use: model " + embed.PotionModel + " is not installed in " + filepath.Join(p.Models, embed.PotionModel) + ": run `vibe model pull " + embed.PotionModel + "` first"
	if err == nil || err.Error() != want || cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v (exit %d), want %q", err, cli.ExitCode(err), want)
	}
	installModel(t, f, "mini", embed.ONNXFile, embed.TokenizerFile)
	os.MkdirAll(p.Home, 0o755)
	os.WriteFile(p.Settings, []byte(`{"observer_every": 5, "model": "all-MiniLM-L6-v2"}`), 0o644)
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for _, text := range []string{"alpha", "beta"} {
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: text, At: modelT0}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := runModelUse(ctx, &ModelUseOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Name: "mini"}); err != nil {
		t.Fatal(err)
	}
	wantOut := "current model: mini; 2 memories queued for embedding with it\n" +
		"the worker re-embeds them in the background; until each is done, recall finds it by full-text search only\n"
	if out.String() != wantOut {
		t.Errorf("stdout = %q", out)
	}
	raw, _ := os.ReadFile(p.Settings)
	if string(raw) != "{\n  \"model\": \"mini\",\n  \"observer_every\": 5\n}\n" {
		t.Errorf("config.json = %s", raw)
	}
	if m, _ := st.EmbedModel(ctx); m != "mini" {
		t.Errorf("meta model = %q", m)
	}
	if c, _ := st.EmbedCounts(ctx, "mini", modelT0); c.Backlog != 2 {
		t.Errorf("backlog = %d", c.Backlog)
	}
	os.WriteFile(p.Settings, []byte(`[1, 2]`), 0o644)
	err = runModelUse(ctx, &ModelUseOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Name: "mini"})
	if err == nil || !strings.HasPrefix(err.Error(), "model use: settings "+p.Settings+" is not a JSON object (") || cli.ExitCode(err) != 2 {
		t.Errorf("broken settings: %v", err)
	}
}

var modelT0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func modelTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: modelT0})
}
