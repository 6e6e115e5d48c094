package literature

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDetectGolden runs every testdata/detect/<case>.in.json (a PostToolUse
// tool call) through Detect and compares {"ok", "search"} with
// <case>.golden.json as canonical JSON.
func TestDetectGolden(t *testing.T) {
	ins, err := filepath.Glob("testdata/detect/*.in.json")
	if err != nil || len(ins) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var call struct {
				ToolName     string          `json:"tool_name"`
				ToolInput    json.RawMessage `json:"tool_input"`
				ToolResponse json.RawMessage `json:"tool_response"`
			}
			if err := json.Unmarshal(raw, &call); err != nil {
				t.Fatal(err)
			}
			s, ok := Detect(call.ToolName, call.ToolInput, call.ToolResponse)
			out := map[string]any{"ok": ok}
			if ok {
				out["search"] = s
			}
			got, err := verdict.Canonical(out)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".in.json") + ".golden.json"
			if *update {
				var pretty bytes.Buffer
				json.Indent(&pretty, got, "", "  ")
				pretty.WriteByte('\n')
				if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRaw, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			var wantTree any
			json.Unmarshal(wantRaw, &wantTree)
			want, _ := verdict.Canonical(wantTree)
			if !bytes.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestDetectNameOnly covers decisions that rest on the tool name alone.
func TestDetectNameOnly(t *testing.T) {
	tests := []struct {
		tool  string
		ok    bool
		layer string
	}{
		{"Write", false, ""},
		{"Edit", false, ""},
		{"MultiEdit", false, ""},
		{"NotebookEdit", false, ""},
		{"Task", false, ""},
		{"mcp__arxiv__search_papers", true, LayerMCP},
		{"mcp__plugin_sci_openalex__works", true, LayerMCP},
		{"mcp__paperqa__ask", true, LayerRAG},
		{"mcp__notebooklm__query", true, LayerRAG},
		{"mcp__inspirehep__literature", true, LayerMCP},
		{"mcp__fs__read_core_dump", false, ""},
		{"mcp__db__base_query", false, ""},
	}
	for _, tt := range tests {
		s, ok := Detect(tt.tool, []byte(`{"query":"x"}`), []byte(`"doi:10.1038/nbt.3117"`))
		if ok != tt.ok || s.Layer != tt.layer {
			t.Errorf("%s: ok %v layer %q, want %v %q", tt.tool, ok, s.Layer, tt.ok, tt.layer)
		}
	}
}

func TestSearchRecord(t *testing.T) {
	at := time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)
	three := 3
	s := Search{Query: "q", Sources: []string{"pubmed"}, KeyPapers: []string{"PMID:1"}, Layer: LayerWebSearch, Results: &three, Scholarly: true}
	got := s.Record("s1", "/p", "toolu_1", at)
	want := record.LiteratureSearch{SessionID: "s1", ProjectPath: "/p", Query: "q", Sources: []string{"pubmed"},
		KeyPapers: []string{"PMID:1"}, ResultsCount: &three, Layer: LayerWebSearch, ToolUseID: "toolu_1", At: at}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) {
		t.Errorf("scholarly:\n got %s\nwant %s", gj, wj)
	}
	s.Scholarly = false
	if got := s.Record("s1", "/p", "", at); got.GateContext != record.LiteratureUncounted {
		t.Errorf("uncounted search has gate context %q", got.GateContext)
	}
}

func TestScholarlyQuery(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"conformal prediction off-target papers", true},
		{"Tsai et al. GUIDE-seq", true},
		{"meta-analysis of guide efficiency", true},
		{"semantic scholar conformal", true},
		{"NASA ADS exoplanet transit", true},
		{"OpenAlex API rate limit", true},
		{"pandas read_csv dtype", false},
		{"newspaper headline today", false},
		{"python string core base lens", false},
		{"optical fiber price", false},
		{"Optica photonic crystal", true},
	}
	for _, tt := range tests {
		if got := ScholarlyQuery(tt.q); got != tt.want {
			t.Errorf("ScholarlyQuery(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func BenchmarkDetectRead(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"type":"text","file":{"filePath":"/p/x.txt","content":"`)
	for buf.Len() < 256<<10 {
		buf.WriteString(`line of text with numbers 10.5 and 2024 and C-001 \n`)
	}
	buf.WriteString(`"}}`)
	in := []byte(`{"file_path":"/p/x.txt"}`)
	out := buf.Bytes()
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Detect("Read", in, out)
	}
}
