// Command gen writes ../testdata/gitleaks-tp.jsonl.gz: the true-positive
// samples of every rule of gitleaks' default rule set, as gitleaks' own rule
// generator (cmd/generate/config in the module's source) validates them,
// each with the secret gitleaks' default detector finds in it.
//
// It copies the gitleaks module named in vibe's go.mod out of the module
// cache, adds one file that records what utils.Validate and
// utils.ValidateWithPaths are given, runs the generator there (which needs
// the module proxy or a warm cache for its own dependencies) and keeps the
// samples the default detector confirms. The samples are random values of
// each rule's shape (the generator draws them from the rule's expression),
// so no real credential is in the output; it is gzipped so that a secret
// scanner run over vibe's repository is not woken by them.
//
// Run from the repository root: go generate ./internal/privacy/corpus
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const module = "github.com/zricethezav/gitleaks/v8"

// recorder is added to the copy's cmd/generate/config/utils: it writes
// each true positive with the secrets the default detector finds in it
// for the rule, and whether the secret alone is found (a token with a
// shape of its own) or needs its context (an identifier and an operator).
const recorder = `package utils

import (
	"encoding/json"
	"os"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

var (
	vibeOnce sync.Once
	vibeDet  *detect.Detector
	vibeOut  *json.Encoder
)

type vibeSample struct {
	Rule     string   ` + "`json:\"rule\"`" + `
	Keywords []string ` + "`json:\"keywords,omitempty\"`" + `
	Text     string   ` + "`json:\"text\"`" + `
	Secrets  []string ` + "`json:\"secrets\"`" + `
	Value    string   ` + "`json:\"value,omitempty\"`" + `
	Bare     bool     ` + "`json:\"bare,omitempty\"`" + `
}

func vibeRecord(r config.Rule, tps []string) {
	vibeOnce.Do(func() {
		d, err := detect.NewDetectorDefaultConfig()
		if err != nil {
			panic(err)
		}
		vibeDet = d
		f, err := os.OpenFile(os.Getenv("GITLEAKS_TP_OUT"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			panic(err)
		}
		vibeOut = json.NewEncoder(f)
	})
	for _, tp := range tps {
		s := vibeSample{Rule: r.RuleID, Keywords: r.Keywords, Text: tp, Secrets: []string{}}
		for _, f := range vibeDet.DetectString(tp) {
			if f.RuleID == r.RuleID {
				s.Secrets = append(s.Secrets, f.Secret)
				if s.Value == "" {
					s.Value = vibeValue(r, f.Match, f.Secret)
				}
			}
		}
		if s.Value != "" {
			for _, f := range vibeDet.DetectString(s.Value) {
				if f.RuleID == r.RuleID {
					s.Bare = true
				}
			}
		}
		if err := vibeOut.Encode(s); err != nil {
			panic(err)
		}
	}
}

// vibeValue is the whole secret of a rule that captures it in pieces:
// from its first group to its last, or the whole match when the groups
// have names.
func vibeValue(r config.Rule, match, secret string) string {
	if r.Regex == nil || r.Regex.NumSubexp() < 2 || r.SecretGroup > 0 {
		return secret
	}
	for _, n := range r.Regex.SubexpNames() {
		if n != "" {
			return match // jwt-base64's groups name parts of the token
		}
	}
	m := r.Regex.FindStringSubmatchIndex(match)
	from, to := -1, -1
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] < 0 || m[2*g] == m[2*g+1] {
			continue
		}
		if from < 0 || m[2*g] < from {
			from = m[2*g]
		}
		to = max(to, m[2*g+1])
	}
	if from < 0 {
		return secret
	}
	return match[from:to]
}
`

// Sample is one line of the output.
type Sample struct {
	Rule     string   `json:"rule"`
	Keywords []string `json:"keywords,omitempty"`
	Text     string   `json:"text"`
	Secrets  []string `json:"secrets"`
	Value    string   `json:"value,omitempty"`
	Bare     bool     `json:"bare,omitempty"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, version, err := moduleDir()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vibe-gitleaks-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "gitleaks")
	if err := copyTree(dir, src); err != nil {
		return err
	}
	utils := filepath.Join(src, "cmd", "generate", "config", "utils")
	if err := os.WriteFile(filepath.Join(utils, "vibe_record.go"), []byte(recorder), 0o644); err != nil {
		return err
	}
	if err := patch(filepath.Join(utils, "validate.go"), map[string]string{
		"func Validate(rule config.Rule, truePositives []string, falsePositives []string) *config.Rule {\n":                            "\tvibeRecord(rule, truePositives)\n",
		"func ValidateWithPaths(rule config.Rule, truePositives map[string]string, falsePositives map[string]string) *config.Rule {\n": "\tfor _, tp := range truePositives {\n\t\tvibeRecord(rule, []string{tp})\n\t}\n",
	}); err != nil {
		return err
	}
	out := filepath.Join(tmp, "tps.jsonl")
	cmd := exec.Command("go", "run", ".", filepath.Join(tmp, "gitleaks.toml"))
	cmd.Dir = filepath.Join(src, "cmd", "generate", "config")
	cmd.Env = append(os.Environ(), "GITLEAKS_TP_OUT="+out, "GOFLAGS=-mod=mod", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gitleaks' rule generator: %w", err)
	}
	samples, err := read(out)
	if err != nil {
		return err
	}
	return write(filepath.Join("internal", "privacy", "corpus", "testdata", "gitleaks-tp.jsonl.gz"), version, samples)
}

// moduleDir is where the module cache holds the gitleaks version go.mod
// names (downloaded if it is not there yet).
func moduleDir() (dir, version string, err error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var m struct{ Dir, Version string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", "", err
	}
	return m.Dir, m.Version, nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// patch inserts each text after the line it is keyed by.
func patch(path string, after map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	for line, text := range after {
		if strings.Count(s, line) != 1 {
			return fmt.Errorf("%s: %q is not there once; the generator's source changed", path, strings.TrimSpace(line))
		}
		s = strings.Replace(s, line, line+text, 1)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// read keeps the samples the default detector confirms, once each.
func read(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, err
		}
		if len(s.Secrets) == 0 || seen[s.Rule+"\x00"+s.Text] {
			continue
		}
		seen[s.Rule+"\x00"+s.Text] = true
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out, sc.Err()
}

func write(path, version string, samples []Sample) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"source": module + "@" + version + " cmd/generate/config/rules", "licence": "MIT", "samples": len(samples)}); err != nil {
		return err
	}
	for _, s := range samples {
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	rules := map[string]bool{}
	for _, s := range samples {
		rules[s.Rule] = true
	}
	fmt.Fprintf(os.Stderr, "%s: %d samples of %d rules from %s@%s\n", path, len(samples), len(rules), module, version)
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
