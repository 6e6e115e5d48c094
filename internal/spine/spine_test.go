package spine

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vibe-science/vibe/internal/privacy"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		c    Call
		want string
	}{
		{Call{Tool: "WebSearch", Query: "CRISPR off-target prediction"}, Literature},
		{Call{Tool: "WebFetch", Query: "https://pubmed.ncbi.nlm.nih.gov/123"}, Literature},
		{Call{Tool: "WebFetch", Query: "https://example.com/blog"}, Search},
		{Call{Tool: "mcp__paper_search__search_arxiv"}, Literature},
		{Call{Tool: "mcp__github__create_issue"}, Other},
		{Call{Tool: "Agent"}, Delegation},
		{Call{Tool: "Grep"}, Search},
		{Call{Tool: "Read", Path: "RQ-001/02-data/guides.csv"}, DataLoad},
		{Call{Tool: "Read", Path: "src/model.py"}, FileRead},
		{Call{Tool: "Write", Path: ".vibe-science/CLAIM-LEDGER.md"}, ClaimUpdate},
		{Call{Tool: "Edit", Path: ".vibe-science/claim-ledger.md"}, ClaimUpdate},
		{Call{Tool: "Write", Path: "RQ-001/05-reviewer2/report.yaml"}, Review},
		{Call{Tool: "Write", Path: "RQ-001/04-results/FINDINGS.md"}, Findings},
		{Call{Tool: "Edit", Path: ".vibe-science/SERENDIPITY.md"}, Serendipity},
		{Call{Tool: "Write", Path: "RQ-001/DESIGN.md"}, DesignChange},
		{Call{Tool: "Write", Path: "RQ-001/04-results/calibration.json"}, Calibration},
		{Call{Tool: "Write", Path: "RQ-001/04-results/metrics.json"}, Evaluation},
		{Call{Tool: "Write", Path: "RQ-001/03-analysis/features.tsv"}, FeatureExtraction},
		{Call{Tool: "Write", Path: "data/raw.csv"}, DataLoad},
		{Call{Tool: "Edit", Path: "src/split.py", Text: "fix off-by-one in fold index"}, BugFix},
		{Call{Tool: "Write", Path: "src/train.py", Text: "model.fit(X, y)"}, ModelTrain},
		{Call{Tool: "Write", Path: "src/cp.py", Text: "conformal prediction sets"}, Calibration},
		{Call{Tool: "Edit", Path: "src/util.py", Text: "rename helper"}, CodeEdit},
		{Call{Tool: "Write", Path: "notes.txt"}, Documentation},
		{Call{Tool: "Bash", Command: "pytest -q"}, Test},
		{Call{Tool: "Bash", Command: "python train.py --epochs 5"}, ModelTrain},
		{Call{Tool: "Bash", Command: "wget https://ftp.ncbi.nlm.nih.gov/geo/x.gz"}, DataLoad},
		{Call{Tool: "Bash", Command: "git commit -m 'fix leakage in split'"}, BugFix},
		{Call{Tool: "Bash", Command: "ls -la"}, Command},
		{Call{Tool: "TodoWrite"}, Other},
	}
	for _, c := range cases {
		if got := Classify(c.c); got != c.want {
			t.Errorf("Classify(%+v) = %s, want %s", c.c, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 150) + strings.Repeat("z", 150)
	got := Clip(long, 200)
	if n := len([]rune(got)); n > 200 {
		t.Fatalf("clip length %d", n)
	}
	if !strings.HasPrefix(got, "aaaa") || !strings.HasSuffix(got, "zzzz") || !strings.Contains(got, " … ") {
		t.Errorf("clip %q", got)
	}
	if got := Clip("line1\n  line2", 200); got != "line1 line2" {
		t.Errorf("whitespace %q", got)
	}
	if got := Clip("token sk-ant-abcdefghijklmnopqrstuvwx <private>x</private>", 200); strings.Contains(got, "sk-ant") || strings.Contains(got, "x</") {
		t.Errorf("not scrubbed: %q", got)
	}
}

func TestSummaries(t *testing.T) {
	in := InputSummary("Write", Call{Path: "notes.txt", Text: "main was here\n"}, nil)
	if in != "write notes.txt (14 chars): main was here" {
		t.Errorf("input %q", in)
	}
	out := OutputSummary([]byte(`{"type":"create","filePath":"/p/notes.txt","content":"x","structuredPatch":[],"originalFile":null,"userModified":false}`))
	if out != "type=create filePath=/p/notes.txt content=x" {
		t.Errorf("output %q", out)
	}
	if OutputSummary([]byte(`"File created successfully"`)) != "File created successfully" {
		t.Error("string output")
	}
	if Digest(nil) != "" || len(Digest([]byte("x"))) != 64 {
		t.Error("digest")
	}
}

// TestClassifyIsBoundedOnHugeCommands: a 10 MB command (non-ASCII, the
// regexes' slowest case) is classified from its start, in milliseconds
// rather than the 10 s it took; a keyword past MaxClassified is not read.
func TestClassifyIsBoundedOnHugeCommands(t *testing.T) {
	huge := "python train.py " + strings.Repeat("é", 5<<20)
	start := time.Now()
	if got := Classify(Call{Tool: "Bash", Command: huge}); got != ModelTrain {
		t.Errorf("got %s, want %s", got, ModelTrain)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("classifying 10 MB took %v", took)
	}
	late := strings.Repeat("x ", MaxClassified) + "pytest"
	if got := Classify(Call{Tool: "Bash", Command: late}); got != Command {
		t.Errorf("a keyword past the bound was read: %s", got)
	}
	if h := head(strings.Repeat("a", MaxClassified-1) + "é"); len(h) != MaxClassified-1 {
		t.Errorf("head cut inside a character: %d bytes", len(h))
	}
}

// clipReference is Clip as it was written first (whole-text Fields and
// []rune), with its tail cut by one character instead of one byte (the
// first form could split a character there).
func clipReference(s string, n int) string {
	s = privacy.Scrub(s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 3) * 7 / 10
	tail := n - 3 - head
	return string(r[:head]) + " … " + string(r[len(r)-tail+1:])
}

// outputSummaryReference is OutputSummary as it was written first: a
// string parse tried before an object parse.
func outputSummaryReference(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Clip(s, MaxSummary)
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) == nil {
		var parts []string
		for _, k := range []string{"type", "filePath", "stdout", "stderr", "interrupted", "status", "error", "content", "result"} {
			v, ok := obj[k]
			if !ok {
				continue
			}
			switch t := v.(type) {
			case string:
				if t != "" {
					parts = append(parts, k+"="+t)
				}
			case bool:
				if t {
					parts = append(parts, k)
				}
			case nil:
			default:
				b, _ := json.Marshal(t)
				parts = append(parts, k+"="+string(b))
			}
		}
		if len(parts) > 0 {
			return Clip(strings.Join(parts, " "), MaxSummary)
		}
	}
	return Clip(string(raw), MaxSummary)
}

// TestClipAndOutputSummaryMatchTheirReferences: 800 random texts (words,
// runs of every kind of white space, multi-byte and invalid UTF-8,
// secrets, lengths around the limit and far beyond it) clip as the
// reference does, and random responses summarise alike.
func TestClipAndOutputSummaryMatchTheirReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"word", "0.71", "é", "日本語", "😀", " ", "  ", "\n", "\t", "\u00a0", "\u2003", "\xff", "\xe2\x82",
		"sk-ant-abcdefghijklmnopqrstuvwx", "<private>p</private>", "ab", "c"}
	for range 800 {
		var b strings.Builder
		for range rng.IntN([]int{10, 100, 400, 3000}[rng.IntN(4)]) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		for _, n := range []int{MaxSummary, 4, 5, 10, 57} {
			if got, want := Clip(s, n), clipReference(s, n); got != want {
				t.Fatalf("Clip(%q, %d)\n got %q\nwant %q", s, n, got, want)
			}
		}
		for _, raw := range [][]byte{[]byte(s), mustJSON(s), mustJSON(map[string]any{"stdout": s, "stderr": "", "interrupted": rng.IntN(2) == 0}),
			mustJSON(map[string]any{"content": []any{s, 3}, "x": s}), []byte(" null"), []byte("[1,2]"), []byte(`{"type": "text"`)} {
			if got, want := OutputSummary(raw), outputSummaryReference(raw); got != want {
				t.Fatalf("OutputSummary(%q)\n got %q\nwant %q", raw, got, want)
			}
		}
	}
	if got := Clip(strings.Repeat("a", 300)+"é"+strings.Repeat("z", 58), MaxSummary); !utf8.ValidString(got) || !strings.HasSuffix(got, " … é"+strings.Repeat("z", 58)) {
		t.Errorf("a character at the cut is split: %q", got)
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestClipWindows: a command's output of a megabyte is clipped from a
// scrubbed window at each end, and the summary is the one a whole scrub
// gives: the secrets near the head and the tail are gone, one cut by
// neither window is never read.
func TestClipWindows(t *testing.T) {
	key := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	line := "epoch 3 step 1200 loss 0.4312 tokens/s 18234 api_key = q9Xv2LmP7sR4tW8zK3nB6cJ1\n"
	body := strings.Repeat(line, (1<<20)/len(line))
	s := "GITHUB_TOKEN=" + key + " started\n" + body + "pushed with " + key + " done"
	if len(s) < 4*privacy.Margin {
		t.Fatalf("%d bytes", len(s))
	}
	got := Clip(s, MaxSummary)
	if want := clipReference(s, MaxSummary); got != want {
		t.Fatalf("Clip of %d bytes\n got %q\nwant %q", len(s), got, want)
	}
	if strings.Contains(got, key) || strings.Count(got, privacy.Redacted) < 2 {
		t.Errorf("Clip kept the token: %q", got)
	}
	if _, ok := clipWindows(s, MaxSummary); !ok {
		t.Error("a megabyte was scrubbed whole")
	}
}

// BenchmarkOutputSummary1MB: PostToolUse's summary of a command's output
// of a megabyte, the secret detector's cost included (make bench runs it):
// a training log that names tokens and keys on every line, and the worst
// case, a secret assignment on every line.
func BenchmarkOutputSummary1MB(b *testing.B) {
	for name, line := range map[string]string{
		"log":               "epoch 3 step 1200 loss 0.4312 acc 0.8812 tokens/s 18234 key_dim 64 grad_norm 1.02 api calls 12\n",
		"secret-every-line": "epoch 3 step 1200 loss 0.4312 acc 0.8812 tokens/s 18234 api_key = q9Xv2LmP7sR4tW8zK3nB6cJ1\n",
	} {
		raw := mustJSON(map[string]any{"stdout": strings.Repeat(line, (1<<20)/len(line)), "stderr": "", "interrupted": false})
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				OutputSummary(raw)
			}
		})
	}
}
