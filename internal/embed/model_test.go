package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"all-MiniLM-L6-v2", true}, {"bge_small.v1", true}, {"", false}, {"..", false}, {"../x", false},
		{"a/b", false}, {".hidden", false}, {"-flag", false}, {strings.Repeat("a", 129), false},
	}
	for _, tc := range tests {
		err := CheckName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestCatalogIsConsistent(t *testing.T) {
	if d := Catalog[DefaultModel]; d.Name != PotionModel || !d.Static || d.Dims != 256 || !strings.HasPrefix(d.BaseURL, "https://huggingface.co/minishlab/potion-base-8M/") {
		t.Fatalf("default catalogue entry: %+v", d)
	}
	// The static model's matrix comes last, as the ONNX graph does below.
	if f := Catalog[PotionModel].Files; len(f) != 3 || f[2].Local != StaticFile || f[1].Local != TokenizerFile {
		t.Errorf("potion files = %+v", f)
	}
	spec := Catalog[MiniLMModel]
	if spec.Name != MiniLMModel || spec.Dims != 384 || !strings.HasSuffix(spec.BaseURL, "/resolve/"+MiniLMRevision) {
		t.Fatalf("catalogue entry: %+v", spec)
	}
	locals := []string{}
	for _, f := range spec.Files {
		if len(f.SHA256) != 64 {
			t.Errorf("%s: digest %q is not SHA-256 hex", f.Local, f.SHA256)
		}
		locals = append(locals, f.Local)
	}
	// The ONNX graph comes last: a model counts as installed only once it
	// is in place, so everything else must be there before it.
	if !reflect.DeepEqual(locals, []string{ConfigFile, TokenizerFile, ONNXFile}) {
		t.Errorf("file order = %v", locals)
	}
}

func TestReadyVerifyAndList(t *testing.T) {
	models := t.TempDir()
	write := func(model, file, body string) {
		os.MkdirAll(filepath.Join(models, model), 0o755)
		if err := os.WriteFile(filepath.Join(models, model, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good", ONNXFile, "graph")
	write("good", TokenizerFile, "tok")
	write("good", SumsFile, "# made by vibe\n"+digest("graph")+"  model.onnx\n"+digest("tok")+"  *tokenizer.json\n")
	write("hand", ONNXFile, "graph")
	write("hand", TokenizerFile, "tok")
	write("bad", ONNXFile, "graph!")
	write("bad", TokenizerFile, "tok")
	write("bad", SumsFile, digest("graph")+"  model.onnx\n")
	write("broken", ONNXFile, "graph")
	write("broken", TokenizerFile, "tok")
	write("broken", SumsFile, "not a sum line\n")
	write("gone", ONNXFile, "graph")
	write("gone", TokenizerFile, "tok")
	write("gone", SumsFile, digest("x")+"  config.json\n")
	write("empty", "README", "")
	os.MkdirAll(filepath.Join(models, ".partial"), 0o755)

	verify := []struct {
		model string
		want  Verification
		err   string
	}{
		{"good", Verified, ""},
		{"hand", Unrecorded, ""},
		{"bad", Mismatch, "SHA-256 is " + digest("graph!") + ", SHA256SUMS records " + digest("graph") +
			": the file changed since it was downloaded (run `vibe model pull bad` again)"},
		{"broken", Mismatch, "SHA256SUMS line 1 is not `<sha256>  <file>`: \"not a sum line\""},
		{"gone", Mismatch, "config.json: no such file or directory (run `vibe model pull gone` again)"},
	}
	for _, tc := range verify {
		v, err := Verify(filepath.Join(models, tc.model))
		if v != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.HasSuffix(err.Error(), tc.err)) {
			t.Errorf("Verify(%s) = %s, %v; want %s, ...%s", tc.model, v, err, tc.want, tc.err)
		}
	}

	err := Ready(filepath.Join(models, "empty"))
	want := "model not installed: " + filepath.Join(models, "empty") + " lacks model.onnx (or model.safetensors) and tokenizer.json (run `vibe model pull empty`)"
	if !errors.Is(err, ErrNotInstalled) || err.Error() != want {
		t.Errorf("Ready(empty) = %v", err)
	}
	if err := Ready(filepath.Join(models, "good")); err != nil || IsStatic(filepath.Join(models, "good")) {
		t.Errorf("Ready(good) = %v, IsStatic = true", err)
	}
	write("static", StaticFile, "matrix")
	write("static", TokenizerFile, "tok")
	if err := Ready(filepath.Join(models, "static")); err != nil || !IsStatic(filepath.Join(models, "static")) {
		t.Errorf("Ready(static) = %v, IsStatic = false", err)
	}

	list, err := List(models)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range list {
		got = append(got, strings.Join([]string{m.Name, map[bool]string{true: "ready", false: "not-ready"}[m.Ready],
			map[bool]string{true: "recorded", false: "-"}[m.Recorded]}, " "))
	}
	wantList := []string{"bad ready recorded", "broken ready recorded", "empty not-ready -", "gone ready recorded", "good ready recorded", "hand ready -", "static ready -"}
	if !reflect.DeepEqual(got, wantList) {
		t.Errorf("List = %v", got)
	}
	if list[4].Bytes != int64(len("graph")+len("tok")+len("# made by vibe\n")+2*(64+2)+len("model.onnx\n")+len("*tokenizer.json\n")) {
		t.Errorf("good bytes = %d", list[4].Bytes)
	}
	if l, err := List(filepath.Join(models, "nope")); err != nil || l != nil {
		t.Errorf("List(missing) = %v, %v", l, err)
	}
}

func TestParseStatus(t *testing.T) {
	raw := []byte("Name:\tvibe-embed-worker\nVmPeak:\t 1000 kB\nVmHWM:\t  520000 kB\nVmRSS:\t  480000 kB\nThreads:\t7\n")
	m, err := parseStatus(raw)
	if err != nil || m != (Memory{RSS: 480000 * 1024, Peak: 520000 * 1024}) {
		t.Errorf("parseStatus = %+v, %v", m, err)
	}
	if _, err := parseStatus([]byte("VmRSS:\t12 MB\n")); err == nil || err.Error() != `read memory: unexpected VmRSS line "VmRSS:\t12 MB"` {
		t.Errorf("bad unit: %v", err)
	}
	if m, err := ReadMemory(); err != nil || m.RSS <= 0 || m.Peak < m.RSS {
		t.Errorf("ReadMemory = %+v, %v", m, err)
	}
}
