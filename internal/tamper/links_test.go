package tamper

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteThroughAnEarlierHardLink: a hard link to the ledger made by an
// earlier call (`ln CLAIM-LEDGER.md /tmp/x`), then a Write or Edit of the
// link's name, changes the ledger though the Write names another file: it
// is still the Write's doing (the file it names is the ledger's), so it is
// undone and blocked as a direct write of the ledger by a role that may not write it is. A Write of an
// unrelated file outside the project is ordinary work and nothing.
func TestWriteThroughAnEarlierHardLink(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	before := f.read(ledger)
	outside := t.TempDir()
	link := filepath.Join(outside, "x.md")
	f.begin("toolu_1", "vibe:experimenter", "Bash")
	f.sh("ln " + ledger + " " + link)
	f.check(f.bash("vibe:experimenter", "ln "+ledger+" "+link))
	f.tick()

	notes := filepath.Join(outside, "notes.md")
	f.begin("toolu_2", "vibe:experimenter", "Write", notes)
	if err := os.WriteFile(notes, []byte("ordinary notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantOutcomes(t, f.check(Call{Tool: "Write", ToolUseID: "toolu_2", AgentType: "vibe:experimenter", Named: []string{notes}, Direct: true}))

	f.begin("toolu_3", "vibe:experimenter", "Write", link)
	if err := os.WriteFile(link, []byte("# Claim ledger\n\n## C-001\nstatus: CONFIRMED\n"), 0o644); err != nil { // in place, as an editor's write
		t.Fatal(err)
	}
	rep := f.check(Call{Tool: "Write", ToolUseID: "toolu_3", AgentType: "vibe:experimenter", Named: []string{link}, Direct: true})
	if !rep.Blocks() {
		t.Fatalf("a Write through a hard link to the ledger was not blocked: %v", outcomes(rep))
	}
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	if got := f.read(ledger); got != before {
		t.Fatalf("ledger not restored: %q", got)
	}
}

// TestRestoreBreaksTheHardLink: once the ledger is restored, the name the
// agent linked it under no longer reaches it.
func TestRestoreBreaksTheHardLink(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	link := filepath.Join(t.TempDir(), "x.md")
	f.begin("toolu_1", "vibe:experimenter", "Bash")
	f.sh("ln " + ledger + " " + link + " && echo forged >> " + link)
	rep := f.check(f.bash("vibe:experimenter", "ln "+ledger+" "+link+" && echo forged >> "+link))
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	a, _ := os.Stat(link)
	b, _ := os.Stat(f.abs(ledger))
	if os.SameFile(a, b) {
		t.Errorf("after the restore %s is still the ledger", link)
	}
}
