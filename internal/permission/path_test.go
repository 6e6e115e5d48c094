package permission

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	prj := newProject(t)
	r := toSlash(prj.root)
	out := toSlash(prj.out)
	tests := []struct {
		in, want string
	}{
		{r + "/CLAIM-LEDGER.md", r + "/CLAIM-LEDGER.md"},
		{r + "/./src/../CLAIM-LEDGER.md", r + "/CLAIM-LEDGER.md"},
		{r + "//src///model.py", r + "/src/model.py"},
		{r + "/notes.md", r + "/CLAIM-LEDGER.md"},
		{r + "/RQ-001/05-reviewer2/ledger-view.md", r + "/CLAIM-LEDGER.md"},
		{r + "/RQ-001/05-reviewer2/root/src/new.py", r + "/src/new.py"},
		{r + "/RQ-001/05-reviewer2/new-ledger.md", r + "/RQ-002/CLAIM-LEDGER.md"},
		{r + "/RQ-001/05-reviewer2/out/x.yaml", out + "/x.yaml"},
		// ".." after a symlink applies to the link's target, as in the kernel.
		{r + "/RQ-001/03-analysis/reviews/../03-analysis", r + "/RQ-001/03-analysis"},
		{r + "/RQ-001/05-reviewer2/root/..", toSlash(filepath.Dir(prj.root))},
		{r + "/missing/dir/../x", r + "/missing/x"},
		{"/", "/"},
	}
	for _, tc := range tests {
		if got := resolve(tc.in, nil); got != tc.want {
			t.Errorf("resolve(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A loop of links stops instead of spinning.
	loop := filepath.Join(prj.root, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if got := resolve(toSlash(loop)+"/x", nil); got == "" {
		t.Error("a symlink loop must still give a path")
	}
	// Links the command creates itself are followed.
	links := map[string]string{r + "/v.md": "CLAIM-LEDGER.md"}
	if got := resolve(r+"/v.md", links); got != r+"/CLAIM-LEDGER.md" {
		t.Errorf("virtual link: got %q", got)
	}
}

func TestRelativeTo(t *testing.T) {
	tests := []struct {
		root, p string
		rel     string
		inside  bool
	}{
		{"/home/u/proj", "/home/u/proj/a/b.md", "a/b.md", true},
		{"/home/u/proj", "/home/u/proj", ".", true},
		{"/home/u/proj", "/home/u/project/a.md", "/home/u/project/a.md", false},
		{"/home/u/proj", "/home/u/a.md", "/home/u/a.md", false},
		{"/", "/etc/x", "etc/x", true},
		{"C:/Users/r/proj", "c:/users/R/PROJ/x.md", "x.md", true},
		{"C:/Users/r/proj", "D:/Users/r/proj/x.md", "D:/Users/r/proj/x.md", false},
	}
	for _, tc := range tests {
		rel, inside := relativeTo(tc.root, tc.p)
		if rel != tc.rel || inside != tc.inside {
			t.Errorf("relativeTo(%q, %q) = %q, %v; want %q, %v", tc.root, tc.p, rel, inside, tc.rel, tc.inside)
		}
	}
}

func TestPathHelpers(t *testing.T) {
	for in, want := range map[string]string{`C:\a\b`: "C:/a/b", "/a/b": "/a/b", `a\..\b`: "a/../b"} {
		if got := toSlash(in); got != want {
			t.Errorf("toSlash(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"/a": true, "C:/a": true, "c:": true, "a/b": false, "1:/a": false, "": false} {
		if got := isAbs(in); got != want {
			t.Errorf("isAbs(%q) = %v, want %v", in, got, want)
		}
	}
	for in, want := range map[string]bool{"/dev/null": true, "/dev/fd/3": true, "/dev/stderr": true, "/dev/sda": false, "/tmp/null": false} {
		if got := isSink(in); got != want {
			t.Errorf("isSink(%q) = %v, want %v", in, got, want)
		}
	}
	for in, want := range map[string]string{"/a/./b/../c/": "/a/c", "C:/a/../b": "C:/b", "/..": "/"} {
		if got := cleanAbs(in); got != want {
			t.Errorf("cleanAbs(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"python3.11": "python", "pip3": "pip", "/usr/bin/RM": "rm", "sha256sum": "sha256sum", "C:\\bin\\git.exe": "git", "7z": "7z"} {
		if got := programName(in); got != want {
			t.Errorf("programName(%q) = %q, want %q", in, got, want)
		}
	}
}
