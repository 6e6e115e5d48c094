package research

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestIgnoreRuleMatch(t *testing.T) {
	cases := []struct {
		pattern string
		rel     string
		isDir   bool
		want    bool
	}{
		{"outputs/", "outputs", true, true},
		{"outputs/", "outputs", false, false},
		{"outputs/", "exp/outputs", true, true}, // no inner slash: any depth
		{"/outputs", "exp/outputs", true, false},
		{"/outputs", "outputs", true, true},
		{"exp/outputs", "exp/outputs", true, true},
		{"exp/outputs", "a/exp/outputs", true, false}, // a middle slash anchors
		{"**/logs", "a/b/logs", true, true},
		{"**/logs", "logs", true, true},
		{"logs/**", "logs", true, false},
		{"logs/**", "logs/x", true, true},
		{"a/**/b", "a/b", true, true},
		{"a/**/b", "a/x/y/b", true, true},
		{"*.egg", "pkg.egg", true, true},
		{"run-[0-9]", "run-3", true, true},
		{"run-[0-9]", "run-x", true, false},
		{`\#notes`, "#notes", true, true},
	}
	for _, c := range cases {
		rules := parseIgnore([]byte(c.pattern + "\n"))
		if len(rules) != 1 {
			t.Fatalf("%q parsed to %d rules", c.pattern, len(rules))
		}
		if got := rules[0].match(c.rel, c.isDir); got != c.want {
			t.Errorf("%q on %q (dir %v) = %v, want %v", c.pattern, c.rel, c.isDir, got, c.want)
		}
	}
	if rules := parseIgnore([]byte("# comment\n\n  \n!keep/\n")); len(rules) != 1 || !rules[0].negate || !rules[0].dirOnly {
		t.Fatalf("comment, blanks, negation: %+v", rules)
	}
}

func mkTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if content == "/" {
			os.MkdirAll(p, 0o755)
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestWalkSkipsWhatIsNotResearch builds a project with every kind of
// folder that is not research beside research folders, and lists what
// Walk visits.
func TestWalkSkipsWhatIsNotResearch(t *testing.T) {
	root := mkTree(t, map[string]string{
		".gitignore":                                   "outputs/\n*.csv\nlogs/**\nscratch/\n!scratch/keep/\n/results/tmp\n",
		".git/info/exclude":                            "private/\n",
		".git/HEAD":                                    "ref: main\n",
		".venv/lib/site.py":                            "x",
		"env/pyvenv.cfg":                               "home = /usr/bin\n",
		"env/lib/metrics.json":                         "{}",
		"miniconda/conda-meta/history":                 "x",
		"miniconda/lib/x.json":                         "{}",
		"node_modules/d3/package.json":                 "{}",
		"src/__pycache__/m.cpython-311.pyc":            "x",
		"build/lib/a.json":                             "{}",
		"dist/a.json":                                  "{}",
		"target/a.json":                                "{}",
		"pkg.egg-info/PKG-INFO":                        "x",
		"testdata/fault/metrics.json":                  "{}",
		".ipynb_checkpoints/a-checkpoint.csv":          "x",
		".pytest_cache/v/cache":                        "x",
		".mypy_cache/3.11/x.json":                      "{}",
		"outputs/run1/metrics.json":                    "{}",
		"exp/outputs/metrics.json":                     "{}",
		"logs/train/metrics.json":                      "{}",
		"private/notes.md":                             "x",
		"results/tmp/a.json":                           "{}",
		"results/summary.json":                         "{}",
		"data/processed/train.csv":                     "a,b\n1,2\n", // *.csv names files: tables stay research
		"analysis/fit.py":                              "x",
		"sub/.gitignore":                               "cache/\n",
		"sub/cache/a.json":                             "{}",
		"sub/keep.json":                                "{}",
		".vibe-science/.gitignore":                     "RQ-001/\n",
		".vibe-science/RQ-001/04-results/metrics.json": "{}",
		"RQ-002/02-data/x.csv":                         "a\n",
		"README.md":                                    "# x\n",
	})
	// A root .gitignore that hides research-question folders is not
	// obeyed there either.
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("outputs/\n*.csv\nlogs/**\nscratch/\n!scratch/keep/\n/results/tmp\nRQ-*/\n"), 0o644)
	ig := NewIgnore(root)
	var got []string
	if err := Walk(ig, nil, func(abs string, _ fs.DirEntry) {
		rel, _ := filepath.Rel(root, abs)
		got = append(got, filepath.ToSlash(rel))
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		".gitignore",
		".vibe-science/.gitignore",
		".vibe-science/RQ-001/04-results/metrics.json",
		"README.md",
		"RQ-002/02-data/x.csv",
		"analysis/fit.py",
		"data/processed/train.csv",
		"results/summary.json",
		"sub/.gitignore",
		"sub/keep.json",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walked\n%v\nwant\n%v", got, want)
	}
	// Path says the same of single paths, as PostToolUse asks of written ones.
	for rel, skipped := range map[string]bool{
		"outputs/run1/metrics.json":                    true,
		"exp/outputs/metrics.json":                     true,
		"env/lib/metrics.json":                         true,
		"miniconda/lib/x.json":                         true,
		"node_modules/d3/package.json":                 true,
		"private/notes.md":                             true,
		"sub/cache/a.json":                             true,
		"results/tmp/a.json":                           true,
		"results/summary.json":                         false,
		"data/processed/train.csv":                     false,
		".vibe-science/RQ-001/04-results/metrics.json": false,
		"RQ-002/02-data/x.csv":                         false,
		"new/folder/metrics.json":                      false,
	} {
		why := ig.Path(filepath.Join(root, filepath.FromSlash(rel)))
		if (why != "") != skipped {
			t.Errorf("Path(%s) = %q, want skipped %v", rel, why, skipped)
		}
	}
	if why := ig.Path(filepath.Dir(root)); why != "outside the project" {
		t.Errorf("outside: %q", why)
	}
}
