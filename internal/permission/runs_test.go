package permission

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRuns: the simple commands of a shell call, with the folder each runs
// in and the program a heredoc feeds it; wrappers come before what they run.
func TestRuns(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		cmd  string
		want []Run
	}{
		{"cd analysis && uv run python train.py --seed 42 > out.json", []Run{
			{Argv: []string{"cd", "analysis"}, Cwd: root},
			{Argv: []string{"uv", "run", "python", "train.py", "--seed", "42"}, Cwd: root + "/analysis"},
			{Argv: []string{"python", "train.py", "--seed", "42"}, Cwd: root + "/analysis"},
		}},
		{"python3 - <<'EOF'\nprint(1)\nEOF", []Run{{Argv: []string{"python3", "-"}, Cwd: root, Stdin: "print(1)\nEOF"}}},
		{"bash -c 'Rscript fit.R; echo {} > b.json'", []Run{
			{Argv: []string{"bash", "-c", "Rscript fit.R; echo {} > b.json"}, Cwd: root},
			{Argv: []string{"Rscript", "fit.R"}, Cwd: root},
			{Argv: []string{"echo", "{}"}, Cwd: root},
		}},
		{"xargs -n1 python p.py < list.txt", []Run{
			{Argv: []string{"xargs", "-n1", "python", "p.py"}, Cwd: root, StdinFile: "list.txt"},
			{Argv: []string{"python", "p.py", "\x00"}, Cwd: root, StdinFile: "list.txt"},
		}},
		{"R --vanilla < fit.R", []Run{{Argv: []string{"R", "--vanilla"}, Cwd: root, StdinFile: "fit.R"}}},
	} {
		in, _ := json.Marshal(map[string]string{"command": c.cmd})
		got, unparsed := Runs(Request{ProjectRoot: root, Cwd: root, ToolName: "Bash", ToolInput: in})
		if unparsed || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Runs(%q) = %q (unparsed %v)\nwant %q", c.cmd, got, unparsed, c.want)
		}
	}
	if got, _ := Runs(Request{ProjectRoot: root, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"a"}`)}); got != nil {
		t.Errorf("Runs of a Write = %q, want none", got)
	}
	if _, unparsed := Runs(Request{ProjectRoot: root, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"python 'a.py"}`)}); !unparsed {
		t.Error("a command that does not parse is not reported unparsed")
	}
}
