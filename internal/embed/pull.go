package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// Progress is one step of a download, for a progress bar.
type Progress struct {
	File  string
	Done  int64
	Total int64 // -1 when the server sent no length and none is published
}

// PullOptions tune Pull.
type PullOptions struct {
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// BaseURL replaces the catalogue's base URL (a mirror, or a test server).
	BaseURL string
	// Progress is called as bytes arrive; nil means no reports.
	Progress func(Progress)
}

// PullResult says what Pull did with each file.
type PullResult struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// Check is "published" (matched the catalogue's digest), "recorded"
	// (matched SHA256SUMS from an earlier download), "first-download" (no
	// digest was known; this one is now recorded) or "kept" (already
	// present and matching, not downloaded again).
	Check string `json:"check"`
}

// Pull downloads spec's files into dir. Each file goes to a temporary file
// in dir while it is hashed, is checked against the published digest (or,
// when none is published, the digest SHA256SUMS recorded on an earlier
// download), and is renamed into place only after every file passed, ONNX
// graph last, so a worker never sees half a model. A failed check deletes
// the download and leaves an installed model untouched.
func Pull(ctx context.Context, spec Spec, dir string, opt PullOptions) ([]PullResult, error) {
	if err := CheckName(spec.Name); err != nil {
		return nil, err
	}
	client := opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	base := strings.TrimRight(spec.BaseURL, "/")
	if opt.BaseURL != "" {
		base = strings.TrimRight(opt.BaseURL, "/")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pull %s: %w", spec.Name, err)
	}
	recorded, err := Sums(dir)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", spec.Name, err)
	}
	type staged struct{ tmp, final string }
	var stage []staged
	cleanup := func() {
		for _, s := range stage {
			os.Remove(s.tmp)
		}
	}
	sums := map[string]string{}
	var results []PullResult
	for _, f := range spec.Files {
		want, check := strings.ToLower(f.SHA256), "published"
		if want == "" {
			want, check = recorded[f.Local], "recorded"
			if want == "" {
				check = "first-download"
			}
		}
		final := filepath.Join(dir, f.Local)
		if want != "" {
			if got, err := FileSHA256(final); err == nil && got == want {
				sums[f.Local] = got
				info, _ := os.Stat(final)
				results = append(results, PullResult{File: f.Local, SHA256: got, Bytes: info.Size(), Check: "kept"})
				continue
			}
		}
		url := base + "/" + f.Remote
		tmp, got, n, err := download(ctx, client, url, dir, f, opt.Progress)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("pull %s: %w", spec.Name, err)
		}
		if f.Size > 0 && n != f.Size {
			os.Remove(tmp)
			cleanup()
			return nil, fmt.Errorf("pull %s: %s is %d bytes, the catalogue says %d: the download is incomplete or not the published file (retry, or check --url)",
				spec.Name, url, n, f.Size)
		}
		if want != "" && got != want {
			os.Remove(tmp)
			cleanup()
			return nil, fmt.Errorf("pull %s: %s has SHA-256 %s, expected %s (%s): deleted it; the file is not the one vibe trusts (retry, or check --url)",
				spec.Name, url, got, want, check)
		}
		sums[f.Local] = got
		stage = append(stage, staged{tmp: tmp, final: final})
		results = append(results, PullResult{File: f.Local, SHA256: got, Bytes: n, Check: check})
	}
	// Keep digests of files this spec does not list (a hand-added file).
	for name, d := range recorded {
		if _, ok := sums[name]; !ok {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				sums[name] = d
			}
		}
	}
	if err := writeSums(dir, sums); err != nil {
		cleanup()
		return nil, fmt.Errorf("pull %s: %w", spec.Name, err)
	}
	for i, s := range stage {
		if err := os.Rename(s.tmp, s.final); err != nil {
			for _, rest := range stage[i:] {
				os.Remove(rest.tmp)
			}
			return nil, fmt.Errorf("pull %s: install %s: %w", spec.Name, s.final, err)
		}
	}
	return results, nil
}

// download streams url into a temporary file in dir, hashing as it goes.
func download(ctx context.Context, client *http.Client, url, dir string, f File, progress func(Progress)) (tmp, digest string, n int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", "", 0, fmt.Errorf("download %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", 0, fmt.Errorf("download %s: %w (check the network, or pass --url with a reachable mirror)", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", 0, fmt.Errorf("download %s: HTTP %s", url, resp.Status)
	}
	total := resp.ContentLength
	if total < 0 && f.Size > 0 {
		total = f.Size
	}
	out, err := os.CreateTemp(dir, "."+f.Local+".*.part")
	if err != nil {
		return "", "", 0, fmt.Errorf("download %s: %w", url, err)
	}
	h := sha256.New()
	w := io.MultiWriter(out, h)
	buf := make([]byte, 256<<10)
	for {
		k, rerr := resp.Body.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				out.Close()
				os.Remove(out.Name())
				return "", "", 0, fmt.Errorf("download %s: write: %w", url, werr)
			}
			n += int64(k)
			if progress != nil {
				progress(Progress{File: f.Local, Done: n, Total: total})
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			out.Close()
			os.Remove(out.Name())
			return "", "", 0, fmt.Errorf("download %s: interrupted after %d bytes: %w", url, n, rerr)
		}
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(out.Name())
		return "", "", 0, fmt.Errorf("download %s: %w", url, err)
	}
	if err := out.Close(); err != nil {
		os.Remove(out.Name())
		return "", "", 0, fmt.Errorf("download %s: %w", url, err)
	}
	return out.Name(), hex.EncodeToString(h.Sum(nil)), n, nil
}
