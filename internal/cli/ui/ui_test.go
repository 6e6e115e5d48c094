package ui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store"
)

func TestNewCmdUIFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want UIOptions
		err  string
	}{
		{[]string{}, UIOptions{}, ""},
		{[]string{"--port", "8123", "--open", "--project", "/p"}, UIOptions{Port: 8123, Open: true, Project: "/p"}, ""},
		{[]string{"--port", "70000"}, UIOptions{}, "--port must be between 0 and 65535, not 70000"},
		{[]string{"--port", "-1"}, UIOptions{}, "--port must be between 0 and 65535, not -1"},
		{[]string{"extra"}, UIOptions{}, `unknown command "extra" for "ui"`},
	}
	for _, tt := range tests {
		f, _, _, _ := calTestFactory(t)
		var got *UIOptions
		cmd := NewCmdUI(f, func(o *UIOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.argv, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		if got.Port != tt.want.Port || got.Open != tt.want.Open || got.Project != tt.want.Project {
			t.Errorf("%q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
}

func TestRunUINoDatabase(t *testing.T) {
	f, out, _, root := calTestFactory(t)
	err := runUI(context.Background(), &UIOptions{IO: f.IO, Paths: f.Paths, ProjectRoot: f.ProjectRoot, Now: f.Now, Exec: f.Exec, LookPath: f.LookPath, Project: root})
	if err == nil || !strings.Contains(err.Error(), "no database at ") || !strings.Contains(err.Error(), "run `vibe setup`") {
		t.Fatalf("err %v, want a pointer to vibe setup", err)
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out)
	}
}

func TestRunUIServesReadOnly(t *testing.T) {
	f, out, errOut, root := calTestFactory(t)
	// The viewer opens its own read-only connection; the factory's writer
	// stays open, as a hook's or the worker's would.
	calSession(t, f, "s-ui", root)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- runUI(ctx, &UIOptions{IO: f.IO, Paths: f.Paths, ProjectRoot: f.ProjectRoot, Now: f.Now, Exec: f.Exec, LookPath: f.LookPath, Project: root, Listening: func(u string) { urls <- u }})
	}()
	var u string
	select {
	case u = <-urls:
	case err := <-done:
		t.Fatalf("runUI ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("runUI did not start listening")
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Hostname() != "127.0.0.1" || len(parsed.Query().Get("t")) != 32 {
		t.Fatalf("URL %q: want http://127.0.0.1:PORT/?t=<32 hex digits>", u)
	}
	if got := strings.TrimSpace(out.String()); got != u {
		t.Errorf("stdout %q, want the URL %q", got, u)
	}
	if !strings.Contains(errOut.String(), "serving "+root+" read-only") {
		t.Errorf("stderr %q", errOut)
	}
	for target, want := range map[string]int{u: 200, "http://" + parsed.Host + "/sessions?t=" + parsed.Query().Get("t"): 200,
		"http://" + parsed.Host + "/": 403} {
		resp, err := http.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d (%s)", target, resp.StatusCode, want, body)
		}
		if want == 200 && !strings.Contains(string(body), "s-ui") {
			t.Errorf("GET %s: the recorded session is not listed", target)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("runUI after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("runUI did not stop when its context ended")
	}
}

func TestRunUIOldSchema(t *testing.T) {
	f, _, _, root := calTestFactory(t)
	st := calSession(t, f, "s-ui", root)
	if _, err := st.DB().Exec("PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	err := runUI(context.Background(), &UIOptions{IO: f.IO, Paths: f.Paths, ProjectRoot: f.ProjectRoot, Now: f.Now, Exec: f.Exec, LookPath: f.LookPath, Project: root})
	if err == nil || !strings.Contains(err.Error(), "database schema version 1 is older than this vibe's") ||
		!strings.Contains(err.Error(), "run `vibe setup` to migrate it") {
		t.Fatalf("err %v, want a pointer to vibe setup", err)
	}
}

var calT0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

// calTestFactory shows tables as a 200-column terminal does, and makes a
// project.
func calTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer, string) {
	f, out, errOut := clitest.New(t, clitest.Options{Now: calT0, TTY: true, Width: 200})
	return f, out, errOut, clitest.Project(t)
}

func calSession(t *testing.T, f *cli.Factory, id, root string) *store.Store {
	return clitest.Session(t, f, id, root, calT0)
}
