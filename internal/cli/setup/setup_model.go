package setup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
)

// ModelOffer is how `vibe setup` offers the current embedding model's
// download: without the model, recall ranks memories by words only (the
// fallback hashed-token embedder stands in). Setup asks first on a
// terminal; it says so, and what to run later, when the model's host cannot
// be reached or nobody can be asked.
type ModelOffer struct {
	// Choice is --model ("yes": download without asking), --no-model
	// ("no") or neither ("ask").
	Choice string
	// Client makes the requests and Catalog names the models; nil means
	// http.DefaultClient and embed.Catalog (tests serve a model over
	// loopback).
	Client  *http.Client
	Catalog map[string]embed.Spec
}

// The choices of ModelOffer.Choice.
const (
	ModelAsk = "ask"
	ModelYes = "yes"
	ModelNo  = "no"
)

// probeTimeout bounds the request that tells online from offline.
const probeTimeout = 5 * time.Second

// modelStep offers the current model (cli.CurrentModel) when it is not
// installed. It never fails setup: a model that is not downloaded leaves
// recall on words, and the step says how to download it later.
func modelStep(ctx context.Context, o *SetupOptions, choice cli.ModelChoice) SetupStep {
	m := o.Model
	p := o.Paths()
	name, err := cli.CurrentModel(ctx, choice, p)
	if err != nil {
		return SetupStep{Step: "model", OK: true, Note: true, Detail: "which embedding model is current: " + err.Error(),
			Fix: "`vibe model pull " + embed.DefaultModel + "` downloads the default one"}
	}
	dir := embed.Dir(p.Models, name)
	if embed.Ready(dir) == nil {
		return step("model", true, name+" installed in "+dir, "")
	}
	pull := "`vibe model pull " + name + "`"
	note := func(detail, fix string) SetupStep {
		return SetupStep{Step: "model", OK: true, Note: true, Detail: detail, Fix: fix}
	}
	words := name + " is not installed: recall ranks memories by words only until it is"
	catalog := m.Catalog
	if catalog == nil {
		catalog = embed.Catalog
	}
	spec, ok := catalog[name]
	switch {
	case !ok:
		return note(words, "place "+embed.ONNXFile+" (or "+embed.StaticFile+") and "+embed.TokenizerFile+" in "+dir+" (vibe does not know how to download "+name+")")
	case m.Choice == ModelNo:
		return note(words+" (--no-model)", pull+" downloads it")
	case m.Choice == ModelAsk && config.ModelPullOff(o.Getenv):
		return note(words+" (VIBE_MODEL_PULL=off: nothing is downloaded unasked)", pull+" downloads it")
	}
	client := m.Client
	if client == nil {
		client = http.DefaultClient
	}
	host := hostOf(spec.BaseURL)
	if err := reachable(ctx, client, spec); err != nil {
		return note("offline: "+host+" cannot be reached ("+err.Error()+"), so "+name+" was not downloaded; recall ranks memories by words only until it is",
			pull+" once online (the worker also tries when an embedding is needed)")
	}
	if m.Choice == ModelAsk {
		if !o.IO.Interactive || o.JSON {
			return note(words+" ("+host+" can be reached)", "`vibe setup --model` or "+pull+" downloads it")
		}
		if !ask(o.IO, fmt.Sprintf("The embedding model %s is not installed, so recall ranks memories by words only.\nDownload it now from %s (%s licence%s)? [Y/n] ",
			name, host, spec.License, sizeOf(spec))) {
			return note(words, pull+" downloads it")
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "downloading %s from %s into %s\n", name, host, dir)
	bar := &cli.ProgressBar{W: o.IO.ErrOut, TTY: o.IO.TTY}
	res, err := embed.Pull(ctx, spec, dir, embed.PullOptions{Client: client, Progress: bar.Update})
	bar.Finish()
	if err != nil {
		return note("downloading "+name+" failed: "+err.Error()+"; recall ranks memories by words only until it is installed", pull+" tries again")
	}
	var bytes int64
	for _, r := range res {
		bytes += r.Bytes
	}
	return step("model", true, fmt.Sprintf("downloaded %s into %s (%d files, %s, SHA-256 checked)", name, dir, len(res), cli.HumanBytes(bytes)), "")
}

// reachable asks the model's host for its first file's headers: any HTTP
// answer means the network is there (the download says what is wrong with
// the file, if anything).
func reachable(ctx context.Context, client *http.Client, spec embed.Spec) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, spec.BaseURL+"/"+spec.Files[0].Remote, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err // the cause, without the method and URL
		}
		return err
	}
	resp.Body.Close()
	return nil
}

// ask prints question on stderr and reads the answer: yes unless it
// begins with n.
func ask(io cli.IO, question string) bool {
	fmt.Fprint(io.ErrOut, question)
	line, _ := bufio.NewReader(io.In).ReadString('\n')
	return !strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "n")
}

// hostOf is a URL's host, or the URL when it has none.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// sizeOf is ", N MB" when every file's size is published, else "".
func sizeOf(spec embed.Spec) string {
	var n int64
	for _, f := range spec.Files {
		if f.Size <= 0 {
			return ""
		}
		n += f.Size
	}
	return ", " + cli.HumanBytes(n)
}
