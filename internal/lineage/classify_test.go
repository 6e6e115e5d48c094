package lineage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/permission"
)

// project writes a small research project: scripts of every kind, data, a
// notebook and the lock file.
func project(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	files := map[string]string{
		"analysis/train.py": "import numpy as np, json\nfrom sklearn.model_selection import KFold\nnp.random.seed(1)\n" +
			"X = np.loadtxt('data/raw/a.csv', delimiter=',')\nkf = KFold(5, shuffle=True, random_state=0)\n" +
			"json.dump({'auc': 0.8734}, open('results/metrics.json', 'w'))\n",
		"analysis/fit.R":        "set.seed(7)\nd <- read.csv(\"data/raw/a.csv\")\n",
		"src/pkg/__init__.py":   "",
		"src/pkg/train.py":      "print(1)\n",
		"make_findings.py":      "import json\njson.dump({'spearman_rho': 0.58, 'n': 40}, open('FINDINGS.json', 'w'))\n",
		"run.sh":                "#!/bin/sh\npython3 analysis/train.py\n",
		"Makefile":              "results/metrics.json: analysis/train.py\n\tpython3 analysis/train.py\n",
		"Snakefile":             "rule all:\n    input: 'results/metrics.json'\n",
		"nb.ipynb":              "{}",
		"data/raw/a.csv":        "1,2\n3,4\n",
		"results/run3/m.json":   `{"auc": 0.8734}`,
		"requirements.txt":      "numpy==1.26.4\n",
		"analysis/report.Rmd":   "# report\n",
		"results/metrics.json":  `{"auc": 0.8734}`,
		"outside-of-scripts.md": "x",
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour) // written before the call under test
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// shellCall is a Bash call as the hooks digest it: the command parsed by
// internal/permission.
func shellCall(root, cwd, command string) Call {
	in, _ := json.Marshal(map[string]string{"command": command})
	runs, unparsed := permission.Runs(permission.Request{ProjectRoot: root, Cwd: cwd, ToolName: "Bash", ToolInput: in})
	c := Call{Tool: "Bash", Command: command, Unparsed: unparsed, Root: root, Cwd: cwd, During: true}
	for _, r := range runs {
		c.Runs = append(c.Runs, Run{Argv: r.Argv, Cwd: r.Cwd, Stdin: r.Stdin, StdinFile: r.StdinFile})
	}
	return c
}

// TestClassify: real command shapes, each with the writer and the words
// that say what wrote the result.
func TestClassify(t *testing.T) {
	root := project(t)
	metrics := `{"auc": 0.8734, "n": 40}`
	for _, c := range []struct {
		cmd, cwd, content string
		writer            Writer
		by                string
	}{
		{"python3 analysis/train.py --seed 42", "", metrics, Computation, "python3 analysis/train.py"},
		{"python3 analysis/train.py --alpha 0.05 --threshold 0.125", "", `{"alpha": 0.05, "threshold": 0.125, "n": 40}`, Computation, "python3 analysis/train.py"},
		{"cd analysis && uv run python train.py > ../results/metrics.json", "", metrics, Computation, "python analysis/train.py"},
		{"source .venv/bin/activate && python3 analysis/train.py", "", metrics, Computation, "python3 analysis/train.py"},
		{"env PYTHONHASHSEED=0 timeout 600 python3 analysis/train.py", "", metrics, Computation, "python3 analysis/train.py"},
		{"conda run -n env Rscript analysis/fit.R data/raw/a.csv", "", metrics, Computation, "Rscript analysis/fit.R"},
		{"python -m pkg.train", "", metrics, Computation, "python -m pkg.train"},
		{"nohup python3 analysis/train.py > train.log 2>&1 &", "", metrics, Computation, "python3 analysis/train.py"},
		{"R --vanilla < analysis/fit.R", "", metrics, Computation, "R analysis/fit.R"},
		{"mpirun -n 4 python analysis/train.py", "", metrics, Computation, "python analysis/train.py"},
		{"torchrun --nproc_per_node=2 analysis/train.py", "", metrics, Computation, "torchrun analysis/train.py"},
		{"make results/metrics.json", "", metrics, Computation, "make Makefile"},
		{"snakemake -j 4", "", metrics, Computation, "snakemake Snakefile"},
		{"jupyter nbconvert --to notebook --execute nb.ipynb", "", metrics, Computation, "jupyter nb.ipynb"},
		{"./run.sh", "", metrics, Computation, "run.sh"},
		{"Rscript -e 'rmarkdown::render(\"analysis/report.Rmd\")'", "", metrics, Computation, "Rscript with inline code"},
		{"python3 - <<'EOF'\nimport json\nxs = [float(l.split(',')[0]) for l in open('data/raw/a.csv')]\n" +
			"json.dump({'mean': sum(xs) / len(xs) * 0.2184}, open('results/m.json', 'w'))\nEOF", "", `{"mean": 0.4368}`, Computation, "python3 with inline code"},
		{"echo '{\"spearman_rho\": 0.58}' > FINDINGS.json", "", `{"spearman_rho": 0.58}`, Hand, "Bash: a command that spells out the values it writes"},
		{"cat <<EOF > FINDINGS.json\n{\"rho\": 0.58, \"n\": 40}\nEOF", "", `{"rho": 0.58, "n": 40}`, Hand, "Bash: a command that spells out the values it writes"},
		{"cat > FINDINGS.json <<EOF\n{\"F1\": {\"n\": 40}}\nEOF", "", `{"F1": {"n": 40}}`, Hand, "Bash: cat"},
		{`python3 -c "import json; json.dump({'rho': 0.58}, open('FINDINGS.json', 'w'))"`, "", `{"rho": 0.58}`, Hand, "Bash: a command that spells out the values it writes"},
		{"python3 analysis/train.py && echo '{\"rho\": 0.58}' > FINDINGS.json", "", `{"rho": 0.58}`, Hand, "Bash: a command that spells out the values it writes"},
		{"python3 make_findings.py", "", `{"spearman_rho": 0.58, "n": 40}`, Hand, "Bash: python3 make_findings.py, which reads no file and spells out every value it wrote"},
		{"sed -i 's/\"auc\": 0.81/\"auc\": 0.74/' FINDINGS.json", "", `{"auc": 0.74, "n": 300, "folds": [0.79, 0.83]}`, Hand, "Bash: sed"},
		{"jq '.auc = 0.91' results/metrics.json > results/m2.json", "", `{"auc": 0.91, "n": 40, "sd": 0.012}`, Hand, "Bash: jq"},
		{"cp results/run3/m.json results/metrics.json", "", metrics, Unknown, "Bash: cp"},
		{"git checkout -- results/metrics.json", "", metrics, Unknown, "Bash: git"},
		{"curl -sS -o results/metrics.json https://example.org/m.json", "", metrics, Unknown, "Bash: curl"},
		{"/opt/tools/bin/analyze data/raw/a.csv", "", metrics, Unknown, "Bash: analyze"},
		{"python3 analysis/missing.py", "", metrics, Unknown, "Bash: python3"},
		{"sleep 30", "", metrics, Unknown, "Bash"},
		{"python3 'unclosed", "", metrics, Unknown, "Bash"},
	} {
		cwd := root
		if c.cwd != "" {
			cwd = filepath.Join(root, c.cwd)
		}
		got := Classify(shellCall(root, cwd, c.cmd), []byte(c.content))
		if got.Writer != c.writer || got.By != c.by {
			t.Errorf("Classify(%q) = %s, %q; want %s, %q", c.cmd, got.Writer, got.By, c.writer, c.by)
		}
		if (got.Writer == Computation) != (got.Step != nil) {
			t.Errorf("Classify(%q): step %v for a %s", c.cmd, got.Step, got.Writer)
		}
	}
	for _, c := range []struct {
		call   Call
		writer Writer
		by     string
	}{
		{Call{Tool: "Write", Root: root, During: true}, Hand, "Write"},
		{Call{Tool: "Edit", Root: root, During: true}, Hand, "Edit"},
		{Call{Tool: "NotebookEdit", Root: root, During: true}, Hand, "NotebookEdit"},
		{Call{Tool: "mcp__fs__write_file", Root: root, During: true}, Unknown, "mcp__fs__write_file"},
		{Call{Tool: "Write", Root: root}, Unknown, "a change made before the call"},
	} {
		if got := Classify(c.call, []byte(metrics)); got.Writer != c.writer || got.By != c.by {
			t.Errorf("Classify(%s) = %s, %q; want %s, %q", c.call.Tool, got.Writer, got.By, c.writer, c.by)
		}
	}
}

// TestTypedScriptReadingData: a script that holds its values but reads a
// data file ran an analysis (the synthetic sessions' scripts do).
func TestTypedScriptReadingData(t *testing.T) {
	root := project(t)
	write(t, root, "analysis/synth.py", "rows = open('data/raw/a.csv').read()\nprint({'auc': 0.81})\n")
	got := Classify(shellCall(root, root, "python3 analysis/synth.py"), []byte(`{"auc": 0.81}`))
	if got.Writer != Computation {
		t.Errorf("a script that reads data and holds its value: %s (%s), want computation", got.Writer, got.By)
	}
	// Its output, written during the call, is no input.
	since := time.Now().Add(-time.Minute)
	write(t, root, "results/out.json", `{"auc": 0.81}`)
	write(t, root, "analysis/only.py", "import json\njson.dump({'auc': 0.81}, open('results/out.json', 'w'))\n")
	c := shellCall(root, root, "python3 analysis/only.py")
	c.Since = since
	if got := Classify(c, []byte(`{"auc": 0.81}`)); got.Writer != Hand {
		t.Errorf("a script whose only file is its output: %s (%s), want hand", got.Writer, got.By)
	}
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSeeds(t *testing.T) {
	got := Seeds("PYTHONHASHSEED=0 python train.py --seed 42 --random-state=3",
		"np.random.seed(1)\nrandom.seed(2)\ntorch.manual_seed(5)\nset.seed(7)\nclf = RF(random_state=0)\n"+
			"rng = np.random.default_rng(11)\nr = random.Random(13)\ncfg = {\"seed\": 17}\nseed = 19\nnp.random.seed(1)\n")
	want := []string{"PYTHONHASHSEED=0", "--seed 42", "--random-state=3", "np.random.seed(1)", "random.seed(2)",
		"torch.manual_seed(5)", "set.seed(7)", "random_state=0", "default_rng(11)", "random.Random(13)", `"seed": 17`, "seed = 19"}
	if len(got) != len(want) {
		t.Fatalf("Seeds = %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Seeds[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestDecide(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 11, 24, 10, m, 0, 0, time.UTC) }
	hand := Row{Path: "FINDINGS.json", Writer: Hand, By: "Write", At: at(14)}
	later := Row{Path: "FINDINGS.json", Writer: Hand, By: "Edit", At: at(20)}
	comp := Row{Path: "FINDINGS.json", Writer: Computation, By: "python3 a.py", At: at(2)}
	copied := Row{Path: "b.json", Writer: Unknown, By: "Bash: cp", At: at(30)}
	for _, c := range []struct {
		rows []Row
		want Origin
	}{
		{nil, Origin{Writer: Unknown}},
		{[]Row{copied}, Origin{Writer: Unknown}},
		{[]Row{hand, later, copied}, Origin{Writer: Hand, Row: later}},
		{[]Row{hand, comp}, Origin{Writer: Computation, Row: comp}},
	} {
		if got := Decide(c.rows); got != c.want {
			t.Errorf("Decide(%v) = %+v, want %+v", c.rows, got, c.want)
		}
	}
}

func TestHasNumbers(t *testing.T) {
	for content, want := range map[string]bool{`{}`: false, `{"model": "ridge"}`: false, `{"auc": 0.8}`: true, `{"rate": "12.5%"}`: true, "": false} {
		if got := HasNumbers([]byte(content)); got != want {
			t.Errorf("HasNumbers(%s) = %v, want %v", content, got, want)
		}
	}
}
