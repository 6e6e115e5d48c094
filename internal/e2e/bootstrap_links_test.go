package e2e

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBootstrapRefusesAnArchiveWithLinks: an archive whose checksum
// matches is still not installed when an entry is a symlink or a hard link
// (a hook binary that names a file someone else can write), or its name
// is absolute or climbs out with ..: nothing lands in bin/ or outside.
func TestBootstrapRefusesAnArchiveWithLinks(t *testing.T) {
	version := pluginVersion(t)
	name := archiveName(version)
	dir := "/v" + version + "/"
	outside := TempDir(t)
	target := filepath.Join(outside, "writable")
	mustWrite(t, target, "#!/bin/sh\necho agent\n")
	os.Chmod(target, 0o755)
	for _, c := range []struct {
		name  string
		entry *tar.Header
		skip  string
	}{
		{"a symlinked binary", &tar.Header{Name: "bin/vibe-stop", Typeflag: tar.TypeSymlink, Linkname: target, Mode: 0o777}, "vibe-stop"},
		{"a hard-linked binary", &tar.Header{Name: "bin/vibe-stop", Typeflag: tar.TypeLink, Linkname: "bin/vibe", Mode: 0o755}, "vibe-stop"},
		{"a symlink beside them", &tar.Header{Name: "bin/extra", Typeflag: tar.TypeSymlink, Linkname: outside, Mode: 0o777}, ""},
		{"a climbing name", &tar.Header{Name: "bin/../../escaped", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3}, ""},
		{"an absolute name", &tar.Header{Name: filepath.Join(outside, "absolute"), Typeflag: tar.TypeReg, Mode: 0o644, Size: 3}, ""},
	} {
		archive := fakeArchive(t, c.skip, c.entry)
		sum := sha256.Sum256(archive)
		rel := serveRelease(t, map[string][]byte{dir + name: archive,
			dir + "checksums.txt": []byte(hex.EncodeToString(sum[:]) + "  " + name + "\n")}, nil)
		root := bootstrapPlugin(t, false)
		runHook(t, root, "vibe-session-start", sessionStartInput, rel.URL)
		if _, err := os.Lstat(filepath.Join(root, "bin")); !os.IsNotExist(err) {
			t.Errorf("%s: bin/ was installed (%v)", c.name, err)
		}
		b, _ := os.ReadFile(filepath.Join(root, ".vibe-install", "error"))
		if want := name + " holds "; !strings.HasPrefix(string(b), want) {
			t.Errorf("%s: error %q, want it to start %q", c.name, b, want)
		}
		for _, p := range []string{filepath.Join(outside, "absolute"), filepath.Join(filepath.Dir(root), "escaped")} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s: %s was written", c.name, p)
			}
		}
	}
	// The ordinary release still installs (TestBootstrapInstallsTheRelease).
}

// TestBootstrapReplacesLinkedBinaries: a bin/ already complete whose hook
// binary is a link to a file someone else can write (a symlink, or a hard
// link made earlier under another name) is not run: PreToolUse answers as
// without binaries (protected writes refused, ordinary ones let through),
// and the install replaces bin/ with the release's own files. A bin/ of
// plain files is run as it is.
func TestBootstrapReplacesLinkedBinaries(t *testing.T) {
	project := TempDir(t)
	optedIn(t, project)
	write := func(path string) string {
		return `{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + path + `","content":"x"}}`
	}
	for _, link := range []string{"symlink", "hard link", "plain"} {
		version := pluginVersion(t)
		rel, _ := goodRelease(t, version, nil)
		root := bootstrapPlugin(t, false)
		for _, n := range releaseBinaries() {
			mustWrite(t, filepath.Join(root, "bin", n), "#!/bin/sh\necho \"local "+n+"\"\n")
			os.Chmod(filepath.Join(root, "bin", n), 0o755)
		}
		agent := filepath.Join(TempDir(t), "agent-writable")
		pre := filepath.Join(root, "bin", "vibe-pre-tool-use")
		switch link {
		case "symlink":
			os.Rename(pre, agent)
			if err := os.Symlink(agent, pre); err != nil {
				t.Fatal(err)
			}
		case "hard link":
			if err := os.Link(pre, agent); err != nil {
				t.Fatal(err)
			}
		}
		// The agent swaps the hook through the name it can write.
		if link != "plain" {
			mustWrite(t, agent, "#!/bin/sh\necho swapped\n")
		}
		for _, c := range []struct{ path, want string }{
			{filepath.Join(project, "notes.txt"), ""},
			{filepath.Join(project, "CLAIM-LEDGER.md"), `"permissionDecision":"deny"`},
		} {
			// No release to reach: the calls are judged without binaries.
			r := runHook(t, root, "vibe-pre-tool-use", write(c.path), "http://127.0.0.1:1", "VIBE_BOOTSTRAP_WAIT=5")
			if link == "plain" {
				if r.stdout != "local vibe-pre-tool-use\n" {
					t.Errorf("plain bin/: hook.sh ran %+v", r)
				}
				continue
			}
			if strings.Contains(r.stdout, "swapped") || strings.Contains(r.stdout, "local") || r.code != 0 ||
				(c.want == "") != (r.stdout == "") || !strings.Contains(r.stdout, c.want) {
				t.Errorf("%s: write to %s: %+v, want %q", link, c.path, r, c.want)
			}
		}
		if link == "plain" {
			continue
		}
		for i := 0; i < 100; i++ { // the failed install started by PreToolUse ends
			if _, err := os.Stat(filepath.Join(root, ".vibe-install", "lock")); os.IsNotExist(err) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		// The next hook whose own binary is sound runs it and starts the
		// install that replaces the linked one.
		if r := runHook(t, root, "vibe-session-start", sessionStartInput, rel.URL); r.stdout != "local vibe-session-start\n" {
			t.Errorf("%s: the session start ran %+v", link, r)
		}
		for i := 0; i < 200; i++ {
			if _, err := os.Stat(filepath.Join(root, ".vibe-install", "lock")); os.IsNotExist(err) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		fi, err := os.Lstat(pre)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: bin/vibe-pre-tool-use after the install: %v %v", link, fi, err)
		}
		if b, _ := os.ReadFile(pre); !strings.Contains(string(b), "fake vibe-pre-tool-use") {
			t.Errorf("%s: bin/vibe-pre-tool-use is not the release's: %s", link, b)
		}
		mustWrite(t, agent, "#!/bin/sh\necho swapped again\n")
		if b, _ := os.ReadFile(pre); strings.Contains(string(b), "swapped") {
			t.Errorf("%s: the agent's file still reaches the installed hook", link)
		}
	}
}
