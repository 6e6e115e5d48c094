// Package testmodel provides, for tests and benchmarks only, a model
// directory with all-MiniLM-L6-v2's exact architecture and random weights,
// or (Static) a potion-base-8M-shaped static-embedding matrix, both made by
// ../testdata/gen_model.py with Debian's python3-onnx and numpy, next to the
// real all-MiniLM-L6-v2 tokenizer.json from the Go module cache. The vectors
// mean nothing; the compute per text is the real model's, so the hugot path,
// the worker and its speed can be exercised offline. Generated directories
// are cached per machine, keyed by the script's hash. It must not be
// imported by non-test code other than the benchmark program.
package testmodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Variant chooses a generated model's depth and embedding table.
type Variant struct {
	Layers int
	// Buckets hashes token ids into this many embedding rows; 0 keeps the
	// full 30,522-row table.
	Buckets int
	// StaticDims, when set, makes a static-embedding (Model2Vec) model of
	// that width instead of a transformer: model.safetensors, no graph.
	StaticDims int
}

// The variants. Full is all-MiniLM-L6-v2's exact shape (90 MB; for
// benchmarks). Small has two layers and the full table (62 MB). Tiny has one
// layer and 1,024 hashed rows (9.5 MB, loads in under a second) for tests
// that restart the worker many times. All three take the same inputs and
// give 384-dim outputs.
var (
	Full  = Variant{Layers: 6}
	Small = Variant{Layers: 2}
	Tiny  = Variant{Layers: 1, Buckets: 1024}
	// Static is potion-base-8M's shape: a 30,522 × 256 float32 table
	// (31 MB) read natively; the default model's shape.
	Static = Variant{StaticDims: 256}
)

func (v Variant) String() string {
	if v.StaticDims > 0 {
		return fmt.Sprintf("static%d", v.StaticDims)
	}
	if v.Buckets > 0 {
		return fmt.Sprintf("l%d-b%d", v.Layers, v.Buckets)
	}
	return fmt.Sprintf("l%d", v.Layers)
}

// TokenizerSHA256 is the digest of daulet/tokenizers v1.24.0's copy of the
// all-MiniLM-L6-v2 tokenizer (test/data/all-minilm-l6-v2.json).
const TokenizerSHA256 = "ff27f5d127a8530e893603522c04398a15ec14b73c6f59d4af2020af526b5100"

const tokenizerModule = "github.com/daulet/tokenizers@v1.24.0"

// Python is the interpreter with Debian's python3-onnx; a pyenv python on
// PATH usually lacks the onnx module.
var Python = "/usr/bin/python3"

// Dir returns a cached model directory of the variant, generating it on
// first use. Without python3-onnx the test is skipped,
// unless VIBE_REQUIRE_TEST_MODEL=1 (CI) makes that a failure.
func Dir(tb testing.TB, v Variant) string {
	tb.Helper()
	dir, err := Ensure(v)
	if err != nil {
		if os.Getenv("VIBE_REQUIRE_TEST_MODEL") == "1" {
			tb.Fatalf("test model: %v", err)
		}
		tb.Skipf("test model unavailable: %v", err)
	}
	return dir
}

// Ensure returns the cached model directory, generating it when missing.
// The cache is $VIBE_TEST_MODELS, else the user cache dir's vibe/test-models.
func Ensure(v Variant) (string, error) {
	script, err := scriptPath()
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(script)
	if err != nil {
		return "", fmt.Errorf("read generator: %w", err)
	}
	sum := sha256.Sum256(fmt.Appendf(src, "\x00%s", v))
	root := os.Getenv("VIBE_TEST_MODELS")
	if root == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("find cache dir: %w (set VIBE_TEST_MODELS)", err)
		}
		root = filepath.Join(c, "vibe", "test-models")
	}
	prefix := "minilm-random"
	if v.StaticDims > 0 {
		prefix = "potion-random"
	}
	final := filepath.Join(root, fmt.Sprintf("%s-%s-%s", prefix, v, hex.EncodeToString(sum[:6])))
	if _, err := os.Stat(filepath.Join(final, "tokenizer.json")); err == nil {
		return final, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("make cache dir: %w", err)
	}
	tok, err := tokenizerPath()
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, ".gen-*")
	if err != nil {
		return "", fmt.Errorf("make cache dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	args := []string{script, tmp, "--layers", fmt.Sprint(v.Layers), "--vocab-buckets", fmt.Sprint(v.Buckets)}
	if v.StaticDims > 0 {
		args = append(args, "--static", fmt.Sprint(v.StaticDims))
	}
	cmd := exec.Command(Python, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %s (install Debian's python3-onnx: apt-get install -y python3-onnx)",
			Python, filepath.Base(script), err, strings.TrimSpace(string(out)))
	}
	if err := copyFile(tok, filepath.Join(tmp, "tokenizer.json")); err != nil {
		return "", err
	}
	// A concurrent test process may have won the race; either copy is good.
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, "tokenizer.json")); statErr == nil {
			return final, nil
		}
		return "", fmt.Errorf("install test model: %w", err)
	}
	return final, nil
}

// CopyTo copies a model directory's files into dst (a VIBE_HOME/models/<name>
// in a test), so tests never modify the shared cache.
func CopyTo(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			// Hard links are instant and the cache is never written again.
			if err := os.Link(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func scriptPath() (string, error) {
	if p := os.Getenv("VIBE_GEN_MODEL"); p != "" {
		return p, nil
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate gen_model.py (set VIBE_GEN_MODEL)")
	}
	p := filepath.Join(filepath.Dir(file), "..", "testdata", "gen_model.py")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("cannot locate gen_model.py at %s (set VIBE_GEN_MODEL): %w", p, err)
	}
	return p, nil
}

// tokenizerPath finds the real all-MiniLM-L6-v2 tokenizer.json in the
// module cache, downloading the module through the Go proxy if needed.
func tokenizerPath() (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", tokenizerModule).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", tokenizerModule, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no module directory (%s)", tokenizerModule, mod.Error)
	}
	p := filepath.Join(mod.Dir, "test", "data", "all-minilm-l6-v2.json")
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("tokenizer: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("tokenizer: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != TokenizerSHA256 {
		return "", fmt.Errorf("tokenizer %s has SHA-256 %s, expected %s", p, got, TokenizerSHA256)
	}
	return p, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
