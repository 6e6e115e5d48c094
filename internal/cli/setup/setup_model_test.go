package setup

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
)

// offerCase is a setup whose current model is "tiny-test", served by a
// loopback host (a tokenizer and a static model's matrix).
type offerCase struct {
	in    *fakeInstall
	o     *SetupOptions
	srv   *httptest.Server
	errs  *bytes.Buffer
	asked int // requests for the model's files
}

func newOfferCase(t *testing.T, choice string, interactive bool, answer string) *offerCase {
	t.Helper()
	c := &offerCase{in: newFakeInstall(t), errs: &bytes.Buffer{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			c.asked++
		}
		switch r.URL.Path {
		case "/tokenizer.json":
			w.Write([]byte(`{"tokens": []}`))
		case "/model.safetensors":
			w.Write(bytes.Repeat([]byte{7}, 4096))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(c.srv.Close)
	os.MkdirAll(c.in.home, 0o700)
	if err := os.WriteFile(c.in.paths().Settings, []byte(`{"model": "tiny-test"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.o = c.in.setupOptions(t, func(config.Paths, string) (bool, error) { return true, nil })
	c.o.IO.ErrOut, c.o.IO.In, c.o.IO.Interactive = c.errs, strings.NewReader(answer), interactive
	c.o.Model = &ModelOffer{Choice: choice, Client: c.srv.Client(), Catalog: map[string]embed.Spec{"tiny-test": {
		Name: "tiny-test", BaseURL: c.srv.URL, Dims: 256, License: "MIT", Static: true,
		Files: []embed.File{{Remote: "tokenizer.json", Local: embed.TokenizerFile, Size: 14}, {Remote: "model.safetensors", Local: embed.StaticFile, Size: 4096}},
	}}}
	return c
}

func (c *offerCase) step(t *testing.T) SetupStep {
	t.Helper()
	return modelStep(context.Background(), c.o, nil)
}

func (c *offerCase) host() string { return strings.TrimPrefix(c.srv.URL, "http://") }

func (c *offerCase) dir() string { return embed.Dir(c.in.paths().Models, "tiny-test") }

// TestSetupOffersTheModel: on a terminal setup asks, and a yes downloads
// the model with progress on stderr; --model downloads without asking.
func TestSetupOffersTheModel(t *testing.T) {
	for _, c := range []struct {
		name, choice string
		interactive  bool
		answer       string
		asks         bool
	}{
		{"asked, yes", ModelAsk, true, "\n", true},
		{"asked, y", ModelAsk, true, "Y\n", true},
		{"--model", ModelYes, false, "", false},
	} {
		oc := newOfferCase(t, c.choice, c.interactive, c.answer)
		s := oc.step(t)
		want := SetupStep{Step: "model", OK: true, Detail: "downloaded tiny-test into " + oc.dir() + " (2 files, 4.0 KiB, SHA-256 checked)"}
		if s != want {
			t.Errorf("%s: step %+v, want %+v", c.name, s, want)
		}
		if embed.Ready(oc.dir()) != nil {
			t.Errorf("%s: the model is not installed", c.name)
		}
		question := "The embedding model tiny-test is not installed, so recall ranks memories by words only.\nDownload it now from " + oc.host() + " (MIT licence, 4.0 KiB)? [Y/n] "
		errs := oc.errs.String()
		if got := strings.HasPrefix(errs, question); got != c.asks {
			t.Errorf("%s: asked %v, want %v:\n%s", c.name, got, c.asks, errs)
		}
		if !strings.Contains(errs, "downloading tiny-test from "+oc.host()+" into "+oc.dir()+"\n") || !strings.Contains(errs, "model.safetensors: 100% of 4.0 KiB\n") {
			t.Errorf("%s: no progress on stderr:\n%s", c.name, errs)
		}
		// Installed now: setup says so and downloads nothing again.
		before := oc.asked
		if s := oc.step(t); s != (SetupStep{Step: "model", OK: true, Detail: "tiny-test installed in " + oc.dir()}) || oc.asked != before {
			t.Errorf("%s: again: %+v, %d more requests", c.name, s, oc.asked-before)
		}
	}
}

// TestSetupSaysWhyTheModelWasNotDownloaded: a no, --no-model, no terminal
// to ask on, VIBE_MODEL_PULL=off and an unreachable host each leave the
// model out with a note (setup does not fail) that names the command for
// later; nothing is downloaded.
func TestSetupSaysWhyTheModelWasNotDownloaded(t *testing.T) {
	const words = "tiny-test is not installed: recall ranks memories by words only until it is"
	const pull = "`vibe model pull tiny-test`"
	for _, c := range []struct {
		name, choice string
		interactive  bool
		answer       string
		pullOff      bool
		offline      bool
		detail, fix  string
	}{
		{name: "asked, no", choice: ModelAsk, interactive: true, answer: "no\n", detail: words, fix: pull + " downloads it"},
		{name: "--no-model", choice: ModelNo, interactive: true, detail: words + " (--no-model)", fix: pull + " downloads it"},
		{name: "no terminal", choice: ModelAsk, detail: words + " (%HOST% can be reached)", fix: "`vibe setup --model` or " + pull + " downloads it"},
		{name: "VIBE_MODEL_PULL=off", choice: ModelAsk, interactive: true, pullOff: true,
			detail: words + " (VIBE_MODEL_PULL=off: nothing is downloaded unasked)", fix: pull + " downloads it"},
		{name: "offline", choice: ModelYes, offline: true,
			detail: "offline: %HOST% cannot be reached (%ERR%), so tiny-test was not downloaded; recall ranks memories by words only until it is",
			fix:    pull + " once online (the worker also tries when an embedding is needed)"},
	} {
		oc := newOfferCase(t, c.choice, c.interactive, c.answer)
		if c.pullOff {
			oc.in.env["VIBE_MODEL_PULL"] = "off"
		}
		errText := ""
		if c.offline {
			oc.srv.Close()
			_, err := http.Head(oc.srv.URL + "/tokenizer.json")
			errText = err.(interface{ Unwrap() error }).Unwrap().Error()
		}
		s := oc.step(t)
		detail := strings.NewReplacer("%HOST%", oc.host(), "%ERR%", errText).Replace(c.detail)
		if want := (SetupStep{Step: "model", OK: true, Note: true, Detail: detail, Fix: c.fix}); s != want {
			t.Errorf("%s: step\n%+v, want\n%+v", c.name, s, want)
		}
		if oc.asked != 0 || embed.Ready(oc.dir()) == nil {
			t.Errorf("%s: %d downloads", c.name, oc.asked)
		}
	}
}

// TestRunSetupOffersTheModelBeforeTheWorker: the model line comes before
// the worker's (a worker started after finds the model in place).
func TestRunSetupOffersTheModelBeforeTheWorker(t *testing.T) {
	oc := newOfferCase(t, ModelNo, false, "")
	if err := runSetup(context.Background(), oc.o); err != nil {
		t.Fatal(err)
	}
	out := oc.in.out.String()
	model, worker := strings.Index(out, "\nnote model     tiny-test is not installed"), strings.Index(out, "\nok   worker    embed worker started\n")
	if model < 0 || worker < 0 || model > worker {
		t.Errorf("setup printed:\n%s", out)
	}
	if !strings.Contains(out, "     fix: `vibe model pull tiny-test` downloads it\n") {
		t.Errorf("no fix for the model:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(oc.dir(), embed.StaticFile)); !os.IsNotExist(err) {
		t.Errorf("downloaded with --no-model: %v", err)
	}
}
