package resume

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	b = BeginMarker
	e = EndMarker
)

func TestSplice(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		section string
		want    string // "" = unchanged
	}{
		{"empty file", "", "S1\n", b + "\nS1\n" + e + "\n"},
		{"append after text", "# Notes\n\nmine\n", "S1", "# Notes\n\nmine\n\n" + b + "\nS1\n" + e + "\n"},
		{"append, no final newline", "mine", "S1\nS2\n\n", "mine\n\n" + b + "\nS1\nS2\n" + e + "\n"},
		{"append CRLF", "a\r\nb\r\n", "S1\nS2", "a\r\nb\r\n\r\n" + b + "\r\nS1\r\nS2\r\n" + e + "\r\n"},
		{"append CRLF, no final newline", "a\r\nb", "S1", "a\r\nb\r\n\r\n" + b + "\r\nS1\r\n" + e + "\r\n"},
		{"replace between markers", "top\n" + b + "\nold\nold2\n" + e + "\ntail\n", "new",
			"top\n" + b + "\nnew\n" + e + "\ntail\n"},
		{"replace, tail without newline", "top\n" + b + "\nold\n" + e + "\ntail", "new",
			"top\n" + b + "\nnew\n" + e + "\ntail"},
		{"replace, end marker last without newline", "top\n" + b + "\nold\n" + e, "new",
			"top\n" + b + "\nnew\n" + e},
		{"replace empty section", b + "\n" + e + "\n", "new", b + "\nnew\n" + e + "\n"},
		{"replace CRLF", "x\r\n" + b + "\r\nold\r\n" + e + "\r\ny\r\n", "n1\nn2",
			"x\r\n" + b + "\r\nn1\r\nn2\r\n" + e + "\r\ny\r\n"},
		{"markers indented up to three spaces", "   " + b + "\nold\n  " + e + "  \nz\n", "new",
			"   " + b + "\nnew\n  " + e + "  \nz\n"},
		{"marker quoted in a fence is text", "```\n" + b + "\nexample\n" + e + "\n```\n", "S",
			"```\n" + b + "\nexample\n" + e + "\n```\n\n" + b + "\nS\n" + e + "\n"},
		{"tilde fence, then real markers", "~~~md\n" + b + "\n~~~\n" + b + "\nold\n" + e + "\n", "S",
			"~~~md\n" + b + "\n~~~\n" + b + "\nS\n" + e + "\n"},
		{"end marker inside a fence inside the section is text", b + "\nold\n```\n" + e + "\n```\n" + e + "\nafter\n", "S",
			b + "\nS\n" + e + "\nafter\n"},
		{"inline code is not a marker", "see `" + b + "`\n", "S", "see `" + b + "`\n\n" + b + "\nS\n" + e + "\n"},
		{"four-space indent is code", "    " + b + "\n    " + e + "\n", "S",
			"    " + b + "\n    " + e + "\n\n" + b + "\nS\n" + e + "\n"},
		{"unicode kept", "Stato: è così 🚀\n" + b + "\nold\n" + e + "\nFin — 終わり", "séction ✓",
			"Stato: è così 🚀\n" + b + "\nséction ✓\n" + e + "\nFin — 終わり"},
		{"byte-order mark before the begin marker", "\ufeff" + b + "\nold\n" + e + "\n", "S", "\ufeff" + b + "\nS\n" + e + "\n"},
		{"only the first section is vibe's", b + "\nold\n" + e + "\nmid\n" + b + "\nother\n" + e + "\n", "S",
			b + "\nS\n" + e + "\nmid\n" + b + "\nother\n" + e + "\n"},
		{"same section: unchanged", "x\n" + b + "\nS\n" + e + "\n", "S\n", ""},
		{"only the updated line differs: unchanged", b + "\n## h\n- updated: 2026-01-01 00:00 UTC\n- a\n" + e + "\n",
			"## h\n- updated: 2026-02-02 10:00 UTC\n- a\n", ""},
		{"updated line and a fact differ: rewritten", b + "\n- updated: 2026-01-01 00:00 UTC\n- a\n" + e + "\n",
			"- updated: 2026-02-02 10:00 UTC\n- b\n", b + "\n- updated: 2026-02-02 10:00 UTC\n- b\n" + e + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Splice([]byte(c.in), c.section)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if out != nil {
					t.Fatalf("want unchanged, got %q", out)
				}
				return
			}
			if string(out) != c.want {
				t.Fatalf("got\n%q\nwant\n%q", out, c.want)
			}
			// The researcher's bytes never change: with a section, the part
			// outside the markers is identical; without one, the old file is
			// a prefix of the new one.
			s, _ := FindSection([]byte(c.in))
			if s.Found {
				if !bytes.Equal(UserPart(out), UserPart([]byte(c.in))) {
					t.Fatalf("user part changed:\n%q\n%q", UserPart(out), UserPart([]byte(c.in)))
				}
			} else if !strings.HasPrefix(string(out), c.in) {
				t.Fatalf("old content is not a prefix of the new one")
			}
			// Splicing the result again with the same section changes nothing.
			if again, err := Splice(out, c.section); err != nil || again != nil {
				t.Fatalf("second splice: %q %v", again, err)
			}
		})
	}
}

func TestSpliceUnclosed(t *testing.T) {
	for _, in := range []string{
		"a\n" + b + "\nno end\n",
		"a\n" + b,
		b + "\n```\n" + e + "\n```\n", // the only end marker is quoted
	} {
		_, err := Splice([]byte(in), "S")
		if !errors.Is(err, ErrUnclosedSection) {
			t.Fatalf("%q: %v", in, err)
		}
	}
	_, err := Splice([]byte("a\n\n"+b+"\nx\n"), "S")
	if err == nil || !strings.Contains(err.Error(), "line 3 has vibe's begin marker but no "+e+" follows it") {
		t.Fatalf("message: %v", err)
	}
}

func TestUpdateStateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "STATE.md")

	changed, err := UpdateState(path, "S1")
	if err != nil || !changed {
		t.Fatalf("create: %v %v", changed, err)
	}
	if got, _ := os.ReadFile(path); string(got) != b+"\nS1\n"+e+"\n" {
		t.Fatalf("created %q", got)
	}

	user := "# Mine\r\nphase: data\r\nno newline at end ✓"
	os.WriteFile(path, []byte(user), 0o600)
	os.Chmod(path, 0o600)
	if changed, err = UpdateState(path, "S2"); err != nil || !changed {
		t.Fatalf("append: %v %v", changed, err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), user) || string(got) != user+"\r\n\r\n"+b+"\r\nS2\r\n"+e+"\r\n" {
		t.Fatalf("appended %q", got)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", info.Mode().Perm())
	}
	if changed, err = UpdateState(path, "S2"); err != nil || changed {
		t.Fatalf("same again: %v %v", changed, err)
	}
	if changed, err = UpdateState(path, "S3"); err != nil || !changed {
		t.Fatalf("replace: %v %v", changed, err)
	}
	got, _ = os.ReadFile(path)
	if string(got) != user+"\r\n\r\n"+b+"\r\nS3\r\n"+e+"\r\n" {
		t.Fatalf("replaced %q", got)
	}

	// A symlinked STATE.md is written through; the link stays a link.
	target := filepath.Join(dir, "real-state.md")
	os.WriteFile(target, []byte("linked\n"), 0o644)
	link := filepath.Join(dir, "LINK.md")
	os.Symlink(target, link)
	if _, err := UpdateState(link, "S"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if got, _ := os.ReadFile(target); string(got) != "linked\n\n"+b+"\nS\n"+e+"\n" {
		t.Fatalf("target %q", got)
	}

	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".vibe-") {
			t.Fatalf("leftover %s", en.Name())
		}
	}

	// An unclosed section is reported and the file is left alone.
	broken := "keep me\n" + b + "\n"
	os.WriteFile(path, []byte(broken), 0o644)
	if _, err := UpdateState(path, "S"); !errors.Is(err, ErrUnclosedSection) {
		t.Fatalf("unclosed: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != broken {
		t.Fatalf("broken file was changed: %q", got)
	}
}

func TestPhase(t *testing.T) {
	cases := []struct {
		name, in, key, value string
		line                 int
	}{
		{"plain", "# State\nphase: training\ncycle: 3\n", "phase", "training", 2},
		{"yaml front matter does not run on", "---\nphase: training\ncycle: 3\n---\n", "phase", "training", 2},
		{"stage number", "stage: 2\n", "stage", "2", 1},
		{"list item bold", "- **Phase:** Validation\n", "phase", "Validation", 1},
		{"bold key outside colon", "**Stage**: 4 (ablations)\n", "stage", "4 (ablations)", 1},
		{"heading", "## Phase: synthesis\n", "phase", "synthesis", 1},
		{"code span value", "phase: `data`\n", "phase", "data", 1},
		{"comment after value", "phase: 0 <!-- brainstorm -->\n", "phase", "0", 1},
		{"CRLF", "x\r\nPHASE: Review\r\n", "phase", "Review", 2},
		{"empty value does not take the next line", "phase:\ntraining\n", "", "", 0},
		{"not at line start", "the current phase: training\n", "", "", 0},
		{"fenced example skipped", "```\nphase: example\n```\nstage: 3\n", "stage", "3", 4},
		{"vibe's section skipped", b + "\nphase: fake\n" + e + "\nphase: real\n", "phase", "real", 4},
		{"first line wins", "stage: 1\nphase: data\n", "stage", "1", 1},
		{"none", "# Nothing here\n", "", "", 0},
	}
	for _, c := range cases {
		k, v, n := Phase([]byte(c.in))
		if k != c.key || v != c.value || n != c.line {
			t.Errorf("%s: got (%q, %q, %d), want (%q, %q, %d)", c.name, k, v, n, c.key, c.value, c.line)
		}
	}
}

func TestNextSteps(t *testing.T) {
	in := "# State\n\n## Where\nx\n\n## Next steps\n\n- retrain on guide folds\n  - with seed 7\n\n### detail\nkept (lower level)\n## Done\n- old\n" +
		b + "\n## Next\n- vibe's, ignored\n" + e + "\n"
	got := NextSteps([]byte(in), 10)
	want := []string{"- retrain on guide folds", "  - with seed 7", "### detail", "kept (lower level)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := NextSteps([]byte(in), 2); len(got) != 2 {
		t.Fatalf("max: %q", got)
	}
	if got := NextSteps([]byte("# State\n```\n## Next\n- no\n```\n"), 5); len(got) != 0 {
		t.Fatalf("fenced heading: %q", got)
	}
}
