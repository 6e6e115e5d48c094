package permission

import (
	"fmt"
	"os"
	"path"
	"reflect"
	"strings"
	"testing"
)

// writesOf analyses cmd in an empty folder and lists its writes as
// "kind path (via)", paths relative to the folder, then "? via" for each
// unknown target and "opaque prog" for each program whose writes cannot be
// told.
func writesOf(t *testing.T, cmd string) []string {
	t.Helper()
	return writesIn(toSlash(t.TempDir()), cmd)
}

// writesIn is writesOf in the folder dir.
func writesIn(dir, cmd string) []string {
	eff := &effects{root: dir}
	analyzeShell(eff, cmd, dir, dir, "/home/u")
	var out []string
	kinds := map[kind]string{kindFile: "file", kindDir: "dir", kindTree: "tree", kindLink: "link", kindRepo: "repo"}
	for _, rt := range eff.targets {
		out = append(out, fmt.Sprintf("%s %s (%s)", kinds[rt.kind], strings.TrimPrefix(strings.TrimPrefix(rt.path, dir), "/"), rt.via))
	}
	for _, u := range eff.unknown {
		out = append(out, "? "+u.via)
	}
	for _, o := range eff.opaque {
		out = append(out, "opaque "+o)
	}
	return out
}

type writesCase struct {
	cmd  string
	want []string
}

func checkWrites(t *testing.T, tests []writesCase) {
	t.Helper()
	for _, tc := range tests {
		if got := writesOf(t, tc.cmd); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s\n got  %q\n want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestWriterTable pins what the table's fields mean, one case per field,
// and what the named functions it points to record.
func TestWriterTable(t *testing.T) {
	tests := []writesCase{
		// operands: allOperands; a short option without a value is not one.
		{"tee -a a b", []string{"file a (tee)", "file b (tee)"}},
		// treeWith.
		{"rm -f a", []string{"file a (rm)"}},
		{"rm -rf d e", []string{"tree d (rm)", "tree e (rm)"}},
		{"unlink --recursive d", []string{"tree d (unlink)"}},
		// kind.
		{"rmdir d", []string{"dir d (rmdir)"}},
		{"mkdir -p -m 755 d", []string{"dir d (mkdir)"}},
		// shortVal / longVal: an option's value is not an operand.
		{"touch -d 2020-01-01 f", []string{"file f (touch)"}},
		{"touch --reference=r f", []string{"file f (touch)"}},
		{"truncate -s 0 f", []string{"file f (truncate)"}},
		// firstOperand, secondOperand.
		{"mkfifo -m 600 p q", []string{"file p (mkfifo)"}},
		{"uniq -f 1 in out", []string{"file out (uniq)"}},
		{"uniq in", nil},
		{"duckdb db.duckdb 'select 1'", []string{"file db.duckdb (duckdb)"}},
		{"zip -r out.zip a b", []string{"file out.zip (zip)"}},
		// operandsAfterFirst and allOperandsWith.
		{"chmod 644 f g", []string{"file f (chmod)", "file g (chmod)"}},
		{"chmod --reference=r f", []string{"file f (chmod)"}},
		{"chown -R me d", []string{"tree d (chown)"}},
		{"setfacl -m u:x:r f", []string{"file f (setfacl)"}},
		// skipPrefix.
		{"vim +42 f", []string{"file f (vim)"}},
		// onlyWith and via.
		{"yq '.a = 1' f.yaml", nil},
		{"yq -i '.a = 1' f.yaml", []string{"file f.yaml (yq -i)"}},
		// options.
		{"sort -o out in", []string{"file out (sort -o)"}},
		{"sort --output=out in", []string{"file out (sort -o)"}},
		{"sort -k 2 in", nil},
		// Programs that write nothing.
		{"cat a b; mktemp; vibe status", nil},
		// Named functions.
		{"dd if=a of=b bs=1M", []string{"file b (dd of=)"}},
		{"split -l 10 in part", []string{"file partaa (split)"}},
		{"split in", []string{"file xaa (split)"}},
		{"gzip -d x.gz", []string{"file x.gz (gzip)", "file x (gzip)"}},
		{"gzip -c x", nil},
		// A name is looked up as programName spells it: bzip2 is "bzip".
		{"bzip2 x", []string{"file x (bzip)"}},
		{"/usr/bin/sqlite3 db.sqlite", []string{"file db.sqlite (sqlite)"}},
		{"jupyter nbconvert --inplace --execute n.ipynb", []string{"file n.ipynb (jupyter nbconvert --inplace)"}},
		{"jupyter lab", []string{"opaque jupyter"}},
		{"eval 'rm a'", []string{"file a (rm)"}},
		{"eval \"$X\"", []string{"? eval of unknown text"}},
		{"cd sub && rm a; popd; rm b", []string{"file sub/a (rm)", "? rm in an unknown directory"}},
		{"source env.sh", []string{"opaque source"}},
		{"make all", []string{"opaque make"}},
	}
	checkWrites(t, tests)
}

// TestWriterTableEntries checks the table is well formed: each entry names
// programs and either a function, opaque, or fields; the fields an
// entry sets are ones the interpreter reads.
func TestWriterTableEntries(t *testing.T) {
	for i, w := range writerTable() {
		if len(w.names) == 0 {
			t.Errorf("entry %d names no program", i)
		}
		fields := w.operands != noOperands || w.options != nil || w.shortVal != "" || w.longVal != nil ||
			w.treeWith != nil || w.onlyWith != nil || w.via != "" || w.skipPrefix != "" || w.allOperandsWith != "" || w.kind != kindFile
		if (w.run != nil || w.opaque) && fields {
			t.Errorf("entry %d (%s): a function or opaque entry sets fields the interpreter ignores", i, w.names[0])
		}
		if w.operands == noOperands && w.options == nil && fields {
			t.Errorf("entry %d (%s): sets parsing fields but writes neither operands nor options", i, w.names[0])
		}
		if w.allOperandsWith != "" && w.operands != operandsAfterFirst {
			t.Errorf("entry %d (%s): allOperandsWith is read only with operandsAfterFirst", i, w.names[0])
		}
	}
	for _, w := range writerTable() {
		for _, n := range w.names {
			if programs[programName(n)] == nil {
				t.Errorf("%s is listed but its name (%s) does not reach an entry", n, programName(n))
			}
		}
	}
	for _, name := range []string{"tee", "cp", "git", "bash", "sudo", "ls", "cd"} {
		if programs[name] == nil {
			t.Errorf("%s is missing from the index", name)
		}
	}
	if programs["python3"] != nil || programs["make"] != nil {
		t.Error("interpreters and unknown programs must not be in the table")
	}
}

// TestGitTable pins what git's subcommands write, through its options.
func TestGitTable(t *testing.T) {
	tests := []writesCase{
		{"git status && git log -p", nil},
		{"git diff --output=d.patch", []string{"file d.patch (git diff --output)"}},
		{"git commit -m x", []string{"repo  (git commit)"}},
		{"git branch; git config --get user.name; git remote -v", nil},
		{"git branch -D x", []string{"repo  (git branch)"}},
		{"git reset --hard HEAD~1", []string{"tree  (git reset --hard)"}},
		{"git reset HEAD~1", []string{"repo  (git reset)"}},
		{"git clean -n; git clean -d", nil},
		{"git clean -fd", []string{"tree  (git clean)"}},
		{"git clean -f a", []string{"tree a (git clean)"}},
		{"git stash list", nil},
		{"git stash", []string{"tree  (git stash)"}},
		{"git stash push -- a", []string{"file a (git stash)"}},
		{"git rm --cached a", []string{"repo  (git rm)"}},
		{"git rm -r d", []string{"tree d (git rm)", "repo  (git rm)"}},
		{"git mv a b", []string{"file a (mv (source))", "file b (mv)", "repo  (git mv)"}},
		{"git checkout -- a b", []string{"file a (git checkout)", "file b (git checkout)", "repo  (git checkout)"}},
		{"git restore --staged a", []string{"repo  (git restore)"}},
		{"git -C sub rm a", []string{"file sub/a (git rm)", "repo sub (git rm)"}},
		{"git --work-tree=w checkout -- a", []string{"file w/a (git checkout)", "repo w (git checkout)"}},
		{"git clone https://example.org/x/repo.git", []string{"tree repo (git clone)"}},
		{"git clone https://example.org/x/repo.git dest", []string{"tree dest (git clone)"}},
		{"git init", []string{"tree ./.git (git init)"}},
		{"git archive -o a.tar HEAD", []string{"file a.tar (git archive)"}},
		{"git -c alias.x='!rm a' x", []string{"file a (rm)"}},
		{"git -c alias.co=checkout co -- a", []string{"file a (git checkout)", "repo  (git checkout)"}},
		{"git -c core.pager='tee p' log", []string{"file p (tee)"}},
		{"git $OPT status", []string{"? git with unknown options"}},
	}
	checkWrites(t, tests)
}

// TestWrappers pins how the programs that run another command read their
// own options: the folder, environment, script, output file and
// replacement string they set for the command they run.
func TestWrappers(t *testing.T) {
	checkWrites(t, []writesCase{
		{"sudo rm a; sudo -u root -- rm b", []string{"file a (rm)", "file b (rm)"}},
		{"sudo -D d rm a", []string{"file d/a (rm)"}},
		{"env -C d rm a; env --chdir=d rm b; env --chdir d rm c", []string{"file d/a (rm)", "file d/b (rm)", "file d/c (rm)"}},
		{"env X=1 Y=2 sh -c 'rm $X$Y'", []string{"file 12 (rm)"}},
		{"env -S 'rm a'; env --split-string='rm b'", []string{"file a (rm)", "file b (rm)"}},
		{"nice -n 5 rm a; timeout 5 rm b; timeout -s KILL 5 rm c; stdbuf -oL rm d", []string{"file a (rm)", "file b (rm)", "file c (rm)", "file d (rm)"}},
		{"/usr/bin/time -o t.log rm a", []string{"file t.log (time -o)", "file a (rm)"}},
		{"strace --output=s.log rm a; ltrace -o l.log rm b", []string{"file s.log (strace -o)", "file a (rm)", "file l.log (ltrace -o)", "file b (rm)"}},
		{"xargs rm", []string{"? rm"}},
		{"echo a | xargs -I{} cp {} d/; echo b | xargs -i cp {} d/; echo c | xargs --replace=R cp R d/", []string{"file d/a (cp)", "file d/b (cp)", "file d/c (cp)"}},
		{"echo a | xargs rm", []string{"file a (rm)"}},
		{"flock l rm a", []string{"file l (flock)", "file a (rm)"}},
		{"flock l -c 'rm a'; flock -c 'rm b' l", []string{"file l (flock)", "file a (rm)", "file b (rm)"}},
		{"command -v rm; command -V tee", nil},
		{"command cd d; rm a", []string{"file d/a (rm)"}},
		{"nohup cd d; rm a", []string{"file a (rm)"}},
		{"watch rm a", []string{"file a (rm)"}},
		{"parallel rm ::: a", []string{"opaque parallel"}},
		{"sudo -s", nil},
		{"echo 'rm a' | sudo -s", []string{"? sh reads its commands from a pipe or file"}},
		{"sudo -i rm a", []string{"file a (rm)"}},
	})
}

// TestWrapperNames: every wrapper the table lists says how it reads its
// options, and every such spec is reachable from the table.
func TestWrapperNames(t *testing.T) {
	listed := setOf(wrapperNames...)
	for _, n := range wrapperNames {
		if _, ok := wrappers[n]; !ok {
			t.Errorf("%s is a wrapper in writerTable but has no wrapperSpec", n)
		}
	}
	for n := range wrappers {
		if !listed[n] {
			t.Errorf("wrapperSpec %s is not listed in wrapperNames", n)
		}
	}
}

// TestFind pins what find writes: -delete and -exec on what its filters
// match under the start folders, and the files -fprint names.
func TestFind(t *testing.T) {
	dir := toSlash(t.TempDir())
	for _, f := range []string{"a.md", "b.txt", "sub/c.md", "sub/deep/d.md"} {
		p := dir + "/" + f
		if err := os.MkdirAll(path.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []writesCase{
		{"find . -name '*.md'", nil},
		{"find . -name '*.md' -delete", []string{"file ./a.md (find -delete)", "file ./sub/c.md (find -delete)", "file ./sub/deep/d.md (find -delete)"}},
		{"find sub -maxdepth 1 -name '*.md' -delete", []string{"file sub/c.md (find -delete)"}},
		{"find . -path '*/deep/*' -exec rm {} +", []string{"file sub/deep/d.md (rm)"}},
		{"find . -iname 'B.TXT' -type f -exec sed -i s/a/b/ {} ';'", []string{"file b.txt (sed -i)"}},
		// -delete binds to -name y only: find's precedence, as find reads it.
		{"find sub -name x -o -name y -delete", nil},
		{"find sub -name x -o -name c.md -delete", []string{"file sub/c.md (find -delete)"}},
		// A test vibe does not evaluate may be true: what follows it may run.
		{"find . -name '*.md' -newer b.txt -delete", []string{"file ./a.md (find -delete)", "file ./sub/c.md (find -delete)", "file ./sub/deep/d.md (find -delete)"}},
		{"find . ! -path './sub/*' -name '*.md' -delete", []string{"file ./a.md (find -delete)"}},
		{"find . -path ./sub -prune -o -name '*.md' -delete", []string{"file ./a.md (find -delete)"}},
		{"find . -type d -name deep -delete", []string{"dir ./sub/deep (find -delete)"}},
		// The command runs once per file; what it writes elsewhere is named.
		{"find . -name '*.txt' -exec mv {} {}.bak \\;", []string{"file b.txt (mv (source))", "file b.txt.bak (mv)"}},
		{"find sub -name c.md -exec cp {} out/ \\;", []string{"file out/c.md (cp)"}},
		{"find sub -name c.md -execdir mv {} old-{} \\;", []string{"file sub/c.md (mv (source))", "file sub/old-c.md (mv)"}},
		{"find . -name '*.md' -fprint list.txt", []string{"file list.txt (find -fprint)"}},
		{"find $D -delete", []string{"? find over folders known only when it runs"}},
	}
	for _, tc := range tests {
		if got := writesIn(dir, tc.cmd); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s\n got  %q\n want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestInterpreterArgs pins how an interpreter call is read: inline code
// (-c, -e, --eval), a module (-m), a script file (opaque), code from stdin,
// and perl -i.
func TestInterpreterArgs(t *testing.T) {
	checkWrites(t, []writesCase{
		{"python3 -c \"open('a','w')\"", []string{"file a (python code)"}},
		{"python3 -Wignore -c \"open('a','w')\" x", []string{"file a (python code)"}},
		{"python3 -m http.server", nil},
		{"python3 -m json.tool in.json out.json", []string{"file out.json (python -m json.tool)"}},
		{"python3 script.py", []string{"opaque python"}},
		{"python3 - <<'E'\nopen('h','w')\nE", []string{"file h (python code from stdin)"}},
		{"cat x | python3", []string{"? python reads its code from a pipe or file"}},
		{"perl -pi -e 's/a/b/' f g", []string{"file f (perl -i)", "file g (perl -i)"}},
		{"perl -i.bak -ne 'print' f", []string{"file f (perl -i)"}},
		{"perl -Mstrict -e 'open(F, \">\", \"p\")'", []string{"file p (perl code)"}},
		{"ruby -e 'File.write(\"r\", \"\")'", []string{"file r (ruby code)"}},
		{"ruby -I lib -e 'File.write(\"r2\", \"\")'", []string{"file r2 (ruby code)"}},
		{"node -e \"require('fs').writeFileSync('n','')\"", []string{"file n (node code)"}},
		{"node --eval=\"require('fs').writeFileSync('n2','')\"", []string{"file n2 (node code)"}},
		{"node -r mod app.js", []string{"opaque node"}},
		{"deno eval \"Deno.writeTextFileSync('d','')\"", nil},
		{"deno run x.ts", []string{"opaque deno"}},
		{"bun x.ts", []string{"opaque bun"}},
		{"Rscript -e 'writeLines(\"x\", \"rr\")'", []string{"file rr (rscript code)"}},
		{"Rscript -f s.R", []string{"opaque rscript"}},
		{"R CMD build .", []string{"opaque r"}},
		{"julia -e 'write(\"j\", \"\")'", nil},
		{"php -r 'file_put_contents(\"ph\", \"\");'", []string{"file ph (php code)"}},
		{"python3 -c \"$CODE\"", []string{"? python code with unknown text"}},
	})
}

// TestCopyLike pins what the copy programs write.
func TestCopyLike(t *testing.T) {
	checkWrites(t, []writesCase{
		{"cp a b", []string{"file b (cp)"}},
		{"cp -t d a b", []string{"file d/a (cp)", "file d/b (cp)"}},
		{"cp --suffix=.old -b a b", []string{"file b (cp)", "file b.old (cp backup)"}},
		{"cp --log-file=x a b", []string{"file b (cp)"}},
		{"mv a b", []string{"file a (mv (source))", "file b (mv)"}},
		{"install -m 644 a b", []string{"file b (install)"}},
		{"install -d x y", []string{"dir x (install -d)", "dir y (install -d)"}},
		{"rsync -a --log-file=l src/ dst", []string{"file l (rsync --log-file)", "file dst (rsync)"}},
		{"rsync --delete a/ host:b", nil},
		{"scp -P 22 host:f d", []string{"file d (scp)"}},
		{"ln -s ../a l", []string{"file l (ln)", "link ../a (ln -s)"}},
	})
}
