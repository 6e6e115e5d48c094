package embed

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Files every model directory holds. The worker loads ONNXFile with the
// tokenizer beside it; SumsFile records the SHA-256 of every file as it was
// verified at download time, so later loads can detect a changed file.
const (
	ONNXFile      = "model.onnx"
	TokenizerFile = "tokenizer.json"
	ConfigFile    = "config.json"
	SumsFile      = "SHA256SUMS"
	// StaticFile holds a static-embedding (Model2Vec) model's one matrix:
	// a directory with it and no ONNXFile is read natively, without a graph.
	StaticFile = "model.safetensors"
)

// DefaultModel is the model vibe uses unless the settings name another: a
// static-embedding model (a token table, mean pooled), because one query
// costs well under a millisecond on two cores where MiniLM's six
// transformer layers cost ~270 ms in the pure-Go backend, which is over the
// prompt hook's recall deadline.
const DefaultModel = PotionModel

// The catalogued models by name.
const (
	PotionModel = "potion-base-8M"
	MiniLMModel = "all-MiniLM-L6-v2"
)

// File is one file of a catalogued model.
type File struct {
	// Remote is the path under the model's base URL.
	Remote string
	// Local is the file's name in the model directory.
	Local string
	// Size is the published size in bytes; 0 when none is published.
	Size int64
	// SHA256 is the published hex digest. Empty means none is known: the
	// digest of the first download is recorded in SHA256SUMS and later
	// downloads and loads must match it (trust on first download).
	SHA256 string
}

// Spec is a model `vibe model pull` knows how to fetch.
type Spec struct {
	Name    string
	BaseURL string
	Dims    int
	License string
	// Static says the model is a token table read natively (StaticFile),
	// not an ONNX transformer.
	Static bool
	Files  []File
}

// MiniLMRevision pins the Hugging Face commit the digests below belong to;
// a moving "main" could change a file under a fixed digest.
const MiniLMRevision = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"

// Catalog lists the models vibe can pull. The all-MiniLM-L6-v2 digests are
// the Git LFS object ids and file digests of the sentence-transformers
// repository at MiniLMRevision as quoted, identically, by several
// independent public projects that pin them; they were not re-measured here
// (the build machine has no route to Hugging Face). A mismatch therefore
// fails the pull rather than installing an unverified file. Files are listed
// small first and the ONNX graph last, because the model counts as
// installed only once its ONNX file is in place.
//
// potion-base-8M (minishlab, MIT) is a Model2Vec static model: 256-dim
// token vectors distilled from bge-base-en-v1.5, mean pooled at query time;
// its 256 dims are stored zero-padded to the table's 384, which changes no
// distance. No digests are published for it that could be checked from
// here, so its files are trusted on first download (the digests are
// recorded in SHA256SUMS, and later pulls and loads must match them), and
// it follows the repository's "main" revision for the same reason.
var Catalog = map[string]Spec{
	PotionModel: {
		Name:    PotionModel,
		BaseURL: "https://huggingface.co/minishlab/potion-base-8M/resolve/main",
		Dims:    256,
		License: "MIT",
		Static:  true,
		Files: []File{
			{Remote: "config.json", Local: ConfigFile},
			{Remote: "tokenizer.json", Local: TokenizerFile},
			{Remote: "model.safetensors", Local: StaticFile},
		},
	},
	MiniLMModel: {
		Name:    MiniLMModel,
		BaseURL: "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/" + MiniLMRevision,
		Dims:    384,
		License: "Apache-2.0",
		Files: []File{
			{Remote: "config.json", Local: ConfigFile, SHA256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"},
			{Remote: "tokenizer.json", Local: TokenizerFile, Size: 466247, SHA256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"},
			{Remote: "onnx/model.onnx", Local: ONNXFile, Size: 90405214, SHA256: "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452"},
		},
	},
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// CheckName rejects model names that could escape the models directory.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("model name %q is not allowed: use letters, digits, '.', '_' and '-' (for example %s)", name, DefaultModel)
	}
	return nil
}

// Dir is where the model called name lives under modelsDir.
func Dir(modelsDir, name string) string { return filepath.Join(modelsDir, name) }

// ErrNotInstalled says a model directory lacks the files the worker needs.
var ErrNotInstalled = errors.New("model not installed")

// Ready reports whether dir holds a loadable model (the tokenizer and
// either the ONNX graph or a static model's matrix). It does not hash
// anything, so it is cheap enough to call on every worker poll.
func Ready(dir string) error {
	if missing := Missing(dir); len(missing) > 0 {
		return fmt.Errorf("%w: %s lacks %s (run `vibe model pull %s`)", ErrNotInstalled, dir,
			strings.Join(missing, " and "), filepath.Base(dir))
	}
	return nil
}

// Missing names the files a model in dir needs and lacks ("model.onnx (or
// model.safetensors)", "tokenizer.json"); none when it is ready.
func Missing(dir string) []string {
	isFile := func(f string) bool {
		st, err := os.Stat(filepath.Join(dir, f))
		return err == nil && st.Mode().IsRegular()
	}
	var missing []string
	if !isFile(ONNXFile) && !isFile(StaticFile) {
		missing = append(missing, ONNXFile+" (or "+StaticFile+")")
	}
	if !isFile(TokenizerFile) {
		missing = append(missing, TokenizerFile)
	}
	return missing
}

// Sums reads dir's SHA256SUMS (the `sha256sum` format: digest, two spaces,
// file name). A missing file gives an empty map and no error.
func Sums(dir string) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(filepath.Join(dir, SumsFile))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", SumsFile, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		digest, name, ok := strings.Cut(line, "  ")
		if !ok || len(digest) != 64 || name == "" {
			return nil, fmt.Errorf("%s line %d is not `<sha256>  <file>`: %q", filepath.Join(dir, SumsFile), n, line)
		}
		out[strings.TrimPrefix(name, "*")] = strings.ToLower(digest)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", SumsFile, err)
	}
	return out, nil
}

// writeSums replaces dir's SHA256SUMS atomically.
func writeSums(dir string, sums map[string]string) error {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	tmp, err := os.CreateTemp(dir, "."+SumsFile+".*.part")
	if err != nil {
		return fmt.Errorf("write %s: %w", SumsFile, err)
	}
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", SumsFile, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", SumsFile, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, SumsFile)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", SumsFile, err)
	}
	return nil
}

// FileSHA256 is the hex SHA-256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Verification says how far a model directory's files could be checked.
type Verification string

// The verification states.
const (
	Verified   Verification = "verified"   // every file matches SHA256SUMS
	Unrecorded Verification = "unrecorded" // no SHA256SUMS: placed by hand, never checked
	Mismatch   Verification = "mismatch"   // a file differs from SHA256SUMS or is missing
)

// Verify hashes every file SHA256SUMS lists and compares. A directory
// without SHA256SUMS (a model copied in by hand) is Unrecorded, not an
// error: the person who placed it vouches for it.
func Verify(dir string) (Verification, error) {
	sums, err := Sums(dir)
	if err != nil {
		return Mismatch, err
	}
	if len(sums) == 0 {
		return Unrecorded, nil
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, err := FileSHA256(filepath.Join(dir, n))
		if err != nil {
			return Mismatch, fmt.Errorf("verify %s: %w (run `vibe model pull %s` again)", filepath.Join(dir, n), err, filepath.Base(dir))
		}
		if got != sums[n] {
			return Mismatch, fmt.Errorf("verify %s: SHA-256 is %s, %s records %s: the file changed since it was downloaded (run `vibe model pull %s` again)",
				filepath.Join(dir, n), got, SumsFile, sums[n], filepath.Base(dir))
		}
	}
	return Verified, nil
}

// Installed is one directory under VIBE_HOME/models.
type Installed struct {
	Name  string `json:"name"`
	Dir   string `json:"dir"`
	Ready bool   `json:"ready"`
	// Recorded says whether SHA256SUMS exists; List does not hash (a 90 MB
	// graph takes a noticeable fraction of a second), Verify does.
	Recorded bool  `json:"recorded"`
	Bytes    int64 `json:"bytes"`
}

// List returns the model directories under modelsDir, sorted by name. A
// missing models directory is an empty list.
func List(modelsDir string) ([]Installed, error) {
	entries, err := os.ReadDir(modelsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	var out []Installed
	for _, e := range entries {
		if !e.IsDir() || CheckName(e.Name()) != nil {
			continue
		}
		dir := filepath.Join(modelsDir, e.Name())
		m := Installed{Name: e.Name(), Dir: dir, Ready: Ready(dir) == nil}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if f.Name() == SumsFile {
				m.Recorded = true
			}
			if info, err := f.Info(); err == nil && info.Mode().IsRegular() && !strings.HasSuffix(f.Name(), ".part") {
				m.Bytes += info.Size()
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// IsStatic reports whether dir holds a static-embedding model (a matrix
// and no ONNX graph), which is read natively rather than run as a graph.
func IsStatic(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ONNXFile)); err == nil {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, StaticFile))
	return err == nil && st.Mode().IsRegular()
}
