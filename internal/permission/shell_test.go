package permission

import (
	"reflect"
	"testing"
)

// TestWrittenPaths checks the write detection of every supported shell
// form, with the exact list of paths and the unparsed flag.
func TestWrittenPaths(t *testing.T) {
	prj := newProject(t)
	tests := []struct {
		name     string
		cmd      string
		cwd      string
		want     []string
		unparsed bool
	}{
		{"nothing", "ls -la && cat CLAIM-LEDGER.md | grep x", "", nil, false},
		{"redirect", "echo x > a.txt", "", []string{"a.txt"}, false},
		{"append", "echo x >> a.txt", "", []string{"a.txt"}, false},
		{"all", "cmd &> a.txt; cmd &>> b.txt", "", []string{"a.txt", "b.txt"}, false},
		{"clobber", "echo x >| a.txt", "", []string{"a.txt"}, false},
		{"read-write", "exec 3<> a.txt", "", []string{"a.txt"}, false},
		{"dup to file", "cmd >& out.log", "", []string{"out.log"}, false},
		{"fd dup is not a file", "cmd 2>&1 >/dev/null", "", nil, false},
		{"input is not a write", "sort < in.txt", "", nil, false},
		{"tee", "echo x | tee -a a.txt b.txt", "", []string{"a.txt", "b.txt"}, false},
		{"cp to file", "cp a.txt b.txt", "", []string{"b.txt"}, false},
		{"cp into folder", "cp a.txt b.txt src/", "", []string{"src/a.txt", "src/b.txt"}, false},
		{"cp -t", "cp -t src a.txt", "", []string{"src/a.txt"}, false},
		{"cp into existing folder", "cp a.txt src", "", []string{"src/a.txt"}, false},
		{"mv", "mv a.txt b.txt", "", []string{"a.txt", "b.txt"}, false},
		{"ln -s", "ln -s CLAIM-LEDGER.md view.md", "", []string{"view.md"}, false},
		{"hard link", "ln CLAIM-LEDGER.md hard.md", "", []string{"hard.md", "CLAIM-LEDGER.md"}, false},
		{"rm", "rm -f a.txt b.txt", "", []string{"a.txt", "b.txt"}, false},
		{"rm -r", "rm -rf build", "", []string{"build"}, false},
		{"rm --interactive", "rm --interactive a.txt", "", []string{"a.txt"}, false},
		{"chmod -v", "chmod -v 000 a.txt", "", []string{"a.txt"}, false},
		{"chmod --reference", "chmod --reference=b.txt a.txt", "", []string{"a.txt"}, false},
		{"touch", "touch -d yesterday a.txt", "", []string{"a.txt"}, false},
		{"truncate", "truncate -s 0 a.txt", "", []string{"a.txt"}, false},
		{"dd", "dd if=/dev/zero of=a.bin bs=1 count=1", "", []string{"a.bin"}, false},
		{"sed -i", "sed -i 's/a/b/' a.txt", "", []string{"a.txt"}, false},
		{"sed -i suffix and -e", "sed -i.bak -e 's/a/b/' a.txt b.txt", "", []string{"a.txt", "b.txt"}, false},
		{"sed without -i", "sed 's/a/b/' a.txt", "", nil, false},
		{"sed w", "sed -n '/x/w out.txt' a.txt", "", []string{"out.txt"}, false},
		{"perl -i", "perl -pi -e 's/a/b/' a.txt", "", []string{"a.txt"}, false},
		{"install", "install -m 0644 a.txt src/", "", []string{"src/a.txt"}, false},
		{"install -d", "install -d out", "", []string{"out"}, false},
		{"rsync", "rsync -av a.txt b.txt", "", []string{"b.txt"}, false},
		{"heredoc", "cat > a.txt <<EOF\nhi $(touch b.txt)\nEOF", "", []string{"a.txt", "b.txt"}, false},
		{"command substitution", "echo $(touch a.txt)", "", []string{"a.txt"}, false},
		{"bash -c", "bash -c 'echo x > a.txt'", "", []string{"a.txt"}, false},
		{"sh -c nested", `sh -c "bash -c 'touch a.txt'"`, "", []string{"a.txt"}, false},
		{"cd tracking", "cd src && echo x > a.txt", "", []string{"src/a.txt"}, false},
		{"cd back", "cd src; cd ..; echo x > a.txt", "", []string{"a.txt"}, false},
		{"subshell cd does not leak", "(cd src) && echo x > a.txt", "", []string{"a.txt"}, false},
		{"cwd", "echo x > a.txt", "RQ-001", []string{"RQ-001/a.txt"}, false},
		{"variable", "F=a.txt; echo x > $F", "", []string{"a.txt"}, false},
		{"braces", "touch {a,b}.txt", "", []string{"a.txt", "b.txt"}, false},
		{"sequence", "touch f{1..3}", "", []string{"f1", "f2", "f3"}, false},
		// What a glob, find or a listing reaches is known only when the
		// command runs: not a file the call names (the net judges it).
		{"glob", "rm data/raw/*.csv", "", nil, false},
		{"for loop", "for f in a b; do touch $f.txt; done", "", []string{"a.txt", "b.txt"}, false},
		{"unknown variable", "echo x > $TARGET", "", nil, true},
		{"computed target", "echo x > $(date).log", "", nil, true},
		{"python -c", `python3 -c "open('a.txt','w').write('x')"`, "", []string{"a.txt"}, false},
		{"python read", `python3 -c "print(open('a.txt').read())"`, "", nil, false},
		{"python computed", `python3 -c "open(name, 'w')"`, "", nil, true},
		{"perl -e", `perl -e 'open(my $f, ">", "a.txt")'`, "", []string{"a.txt"}, false},
		{"node -e", `node -e "require('fs').writeFileSync('a.txt', 'x')"`, "", []string{"a.txt"}, false},
		{"Rscript -e", `Rscript -e 'saveRDS(x, "a.rds")'`, "", []string{"a.rds"}, false},
		{"curl -o", "curl -sSLo a.zip https://example.org/a.zip", "", []string{"a.zip"}, false},
		{"curl -O", "curl -O https://example.org/files/b.zip", "", []string{"b.zip"}, false},
		{"wget", "wget https://example.org/files/c.tgz", "", []string{"c.tgz"}, false},
		{"git checkout path", "git checkout -- CLAIM-LEDGER.md", "", []string{"CLAIM-LEDGER.md"}, false},
		{"git commit writes no file of the tree", "git add -A && git commit -m x", "", nil, false},
		{"git log", "git log --oneline", "", nil, false},
		{"find -delete", "find src -name '*.py' -delete", "", nil, false},
		{"find -exec", "find src -name '*.py' -exec rm {} \\;", "", nil, false},
		{"xargs fed by a file", "cat list.txt | xargs rm", "", nil, true},
		{"xargs fed by echo", "echo a.txt b.txt | xargs rm", "", []string{"a.txt", "b.txt"}, false},
		{"xargs -i fed by ls", "ls src | grep py | xargs -i cp {} out/", "", nil, false},
		{"while read fed by find", "find src | while read f; do rm \"$f\"; done", "", nil, false},
		{"read from a here-string", "read F <<< a.txt; touch $F", "", []string{"a.txt"}, false},
		{"printf -v", "printf -v F '%s.txt' a; touch $F", "", []string{"a.txt"}, false},
		{"case change", "F=a.TXT; touch ${F,,}", "", []string{"a.txt"}, false},
		{"suffix removal", "F=a.txt.bak; touch ${F%.bak}", "", []string{"a.txt"}, false},
		{"replacement", "F=a.tmp; touch ${F/tmp/txt}", "", []string{"a.txt"}, false},
		{"tilde", "echo x > ~/n.txt", "", []string{homeDir() + "/n.txt"}, false},
		{"command -v", "command -v rm", "", nil, false},
		{"flock -c", "flock /tmp/l -c 'touch a.txt'", "", []string{"/tmp/l", "a.txt"}, false},
		{"sudo -D", "sudo -D src touch a.txt", "", []string{"src/a.txt"}, false},
		{"sudo", "sudo tee /etc/x < a.txt", "", []string{"/etc/x"}, false},
		{"dev null", "cmd > /dev/null 2>/dev/stderr", "", nil, false},
		{"process substitution", "diff a.txt <(touch b.txt)", "", []string{"b.txt"}, false},
		{"unparsable", "echo 'unterminated", "", nil, true},
		{"uv run", `uv run --with pandas python -c "open('a.txt','w')"`, "", []string{"a.txt"}, false},
		{"conda run", "conda run -n env rm b.txt", "", []string{"b.txt"}, false},
		{"eval", `eval "touch a.txt"`, "", []string{"a.txt"}, false},
		{"pipe to shell", "echo 'touch a.txt' | bash", "", nil, true},
		{"awk print", `awk '{print > "o.txt"}' a.txt`, "", []string{"o.txt"}, false},
		{"tar extract", "tar xzf a.tgz -C src", "", []string{"src"}, false},
		{"mkdir", "mkdir -p out/x", "", []string{"out/x"}, false},
		{"symlinked folder", "echo x > RQ-001/03-analysis/reviews/n.yaml", "", []string{"RQ-001/05-reviewer2/n.yaml"}, false},
		{"link created then written", "ln -s CLAIM-LEDGER.md v.md && echo x >> v.md", "", []string{"v.md", "CLAIM-LEDGER.md"}, false},
		{"outside", "echo x > ../../../x.txt", "RQ-001/03-analysis", []string{prj.root + "/../x.txt"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, unparsed := WrittenPaths(prj.request("", "Bash", bash(tc.cmd), tc.cwd))
			want := tc.want
			if tc.name == "outside" {
				want = []string{cleanAbs(toSlash(prj.root + "/../x.txt"))}
			}
			if !reflect.DeepEqual(got, want) || unparsed != tc.unparsed {
				t.Errorf("%s\ngot  %q unparsed=%v\nwant %q unparsed=%v", tc.cmd, got, unparsed, want, tc.unparsed)
			}
		})
	}
}

// TestWrittenPathsTools covers the file tools and MCP tools.
func TestWrittenPathsTools(t *testing.T) {
	prj := newProject(t)
	tests := []struct {
		tool     string
		input    map[string]any
		want     []string
		unparsed bool
	}{
		{"Write", write("$ROOT/src/a.py"), []string{"src/a.py"}, false},
		{"Edit", write("src/a.py"), []string{"src/a.py"}, false},
		{"MultiEdit", write("$ROOT/RQ-001/../src/a.py"), []string{"src/a.py"}, false},
		{"NotebookEdit", map[string]any{"notebook_path": "$ROOT/n.ipynb"}, []string{"n.ipynb"}, false},
		{"Write", map[string]any{"content": "x"}, nil, true},
		{"Read", map[string]any{"file_path": "$ROOT/CLAIM-LEDGER.md"}, nil, false},
		{"mcp__fs__write_file", map[string]any{"path": "$ROOT/a.md"}, []string{"a.md"}, false},
		{"mcp__fs__read_file", map[string]any{"path": "$ROOT/a.md"}, nil, false},
		{"mcp__fs__move_file", map[string]any{"source": "a.md", "destination": "b.md"}, []string{"a.md", "b.md"}, false},
		{"mcp__fs__copy_file", map[string]any{"source": "a.md", "destination": "b.md"}, []string{"b.md"}, false},
		{"mcp__web__search", map[string]any{"query": "x", "path": "/"}, nil, false},
		{"mcp__x__run", map[string]any{"files": []any{"$ROOT/a.md", "$ROOT/b.md"}, "uri": "https://example.org"}, []string{"a.md", "b.md"}, false},
		{"PowerShell", map[string]any{"command": "Remove-Item x"}, nil, true},
	}
	for _, tc := range tests {
		got, unparsed := WrittenPaths(prj.request("", tc.tool, tc.input, ""))
		if len(got) > 1 && tc.tool == "mcp__fs__move_file" {
			// map order: sort for the comparison
			if got[0] > got[1] {
				got[0], got[1] = got[1], got[0]
			}
		}
		if !reflect.DeepEqual(got, tc.want) || unparsed != tc.unparsed {
			t.Errorf("%s %v: got %q unparsed=%v, want %q unparsed=%v", tc.tool, tc.input, got, unparsed, tc.want, tc.unparsed)
		}
	}
}
