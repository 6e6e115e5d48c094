package spine

import (
	"strings"
	"testing"
	"time"
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
