package brief

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/fault"
)

func TestNewCmdBriefFlags(t *testing.T) {
	type parsed struct {
		Project, File string
		Limit         int
		JSON          bool
	}
	run := func(t *testing.T, sub string, argv []string) (parsed, error) {
		f, _, _ := integTestFactory(t, "")
		var got parsed
		var cmd interface {
			SetArgs([]string)
			Execute() error
		}
		switch sub {
		case "ingest":
			c := NewCmdBriefIngest(f, func(o *BriefIngestOptions) error { got = parsed{Project: o.Project, File: o.File}; return nil })
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			cmd = c
		case "validate":
			c := NewCmdBriefValidate(f, func(o *BriefValidateOptions) error { got = parsed{Project: o.Project, File: o.File}; return nil })
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			cmd = c
		case "show":
			c := NewCmdBriefShow(f, func(o *BriefShowOptions) error { got = parsed{Project: o.Project, JSON: o.JSON}; return nil })
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			cmd = c
		case "history":
			c := NewCmdBriefHistory(f, func(o *BriefHistoryOptions) error {
				got = parsed{Project: o.Project, Limit: o.Limit, JSON: o.JSON}
				return nil
			})
			c.SetOut(&bytes.Buffer{})
			c.SetErr(&bytes.Buffer{})
			cmd = c
		}
		cmd.SetArgs(argv)
		return got, cmd.Execute()
	}
	cases := []struct {
		sub  string
		argv []string
		want parsed
		err  string
	}{
		{"ingest", []string{"docs/brief.md"}, parsed{File: "docs/brief.md"}, ""},
		{"ingest", []string{"b.json", "--project", "/p"}, parsed{File: "b.json", Project: "/p"}, ""},
		{"ingest", []string{}, parsed{}, "accepts 1 arg(s), received 0"},
		{"validate", []string{"b.md"}, parsed{File: "b.md"}, ""},
		{"validate", []string{"a", "b"}, parsed{}, "accepts 1 arg(s), received 2"},
		{"show", []string{}, parsed{}, ""},
		{"show", []string{"--json", "--project", "/p"}, parsed{JSON: true, Project: "/p"}, ""},
		{"history", []string{}, parsed{Limit: 20}, ""},
		{"history", []string{"--limit", "0", "--json"}, parsed{Limit: 0, JSON: true}, ""},
	}
	for _, c := range cases {
		got, err := run(t, c.sub, c.argv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %q: err %v, want %q", c.sub, c.argv, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %q: %v", c.sub, c.argv, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: got %+v, want %+v", c.sub, c.argv, got, c.want)
		}
	}
}

const cliBrief = `# Brief: Off-target scoring

## Constraints

### BC-001: Never change how guides are split
- severity: Critical
- action: Block
- applies-to: src/split.go#MakeSplits
- rationale: the held-out guides measure generalisation.

### BC-002: Report AUC with its interval
- severity: High
- action: WarnAndConfirm
- applies-to: reports/*.md

## Decisions

### AD-001: Split by guide (2026-01-10)
- decision: split by guide, never by site.

## Anchors

- src/later.py#fit
`

func TestRunBrief(t *testing.T) {
	ctx := context.Background()
	root := integProject(t, map[string]string{
		"docs/brief.md": cliBrief,
		"src/split.go":  "package src\n\nfunc MakeSplits(n int) []int { return nil }\n",
		"docs/bad.md":   "# Brief: Bad\n## Constraints\n### BC-001: t\n- severity: urgent\n- action: Block\n- applies-to: x.go\n- colour: red\n",
	})
	sum := sha256.Sum256([]byte(cliBrief))
	hash := hex.EncodeToString(sum[:])
	f, out, errOut := integTestFactory(t, "")
	reset := func() { out.Reset(); errOut.Reset() }

	// show and history before any ingest.
	err := runBriefShow(ctx, &BriefShowOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root})
	if fault.KindOf(err) != fault.NotFound || cli.ExitCode(err) != 1 ||
		err.Error() != "show brief: project "+root+" has no research brief: ingest one with `vibe brief ingest FILE`" {
		t.Errorf("show without brief: %v", err)
	}
	reset()

	// validate stores nothing and warns about the anchor not in the code yet.
	if err := runBriefValidate(&BriefValidateOptions{IO: f.IO, FindProject: f.FindProject, Project: root, File: filepath.Join(root, "docs/brief.md")}); err != nil {
		t.Fatal(err)
	}
	if want := "docs/brief.md is a valid brief \"Off-target scoring\": 2 constraints, 1 decisions, 2 anchors (1 found in the code).\n"; out.String() != want {
		t.Errorf("validate stdout %q, want %q", out, want)
	}
	if !strings.HasPrefix(errOut.String(), "vibe: warning: pin anchor src/later.py#fit: open "+filepath.Join(root, "src/later.py")+": no such file or directory; the anchor stays unpinned") {
		t.Errorf("validate stderr %q", errOut)
	}
	reset()

	// An invalid brief: every problem, with line numbers for syntax, exit 2.
	for _, fn := range []func() error{
		func() error {
			return runBriefValidate(&BriefValidateOptions{IO: f.IO, FindProject: f.FindProject, Project: root, File: filepath.Join(root, "docs/bad.md")})
		},
		func() error {
			return runBriefIngest(ctx, &BriefIngestOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, Project: root, File: filepath.Join(root, "docs/bad.md")})
		},
	} {
		err := fn()
		if err == nil || cli.ExitCode(err) != 2 {
			t.Fatalf("bad brief: %v", err)
		}
		for _, want := range []string{
			"brief docs/bad.md has 2 problem(s); fix them and ingest again:\n",
			"  docs/bad.md:7: unknown field \"colour\" in constraint BC-001",
			"  constraint BC-001 has severity \"urgent\": use Critical, High, Medium or Low",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("bad brief error lacks %q:\n%v", want, err)
			}
		}
		if out.Len() != 0 {
			t.Errorf("bad brief wrote %q", out)
		}
	}
	reset()

	// ingest stores version 1.
	if err := runBriefIngest(ctx, &BriefIngestOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, Project: root, File: filepath.Join(root, "docs/brief.md")}); err != nil {
		t.Fatal(err)
	}
	if want := "Ingested brief \"Off-target scoring\" as version 1 from docs/brief.md: 2 constraints, 1 decisions, 2 anchors (1 pinned).\n"; out.String() != want {
		t.Errorf("ingest stdout %q, want %q", out, want)
	}
	if !strings.Contains(errOut.String(), "pin anchor src/later.py#fit") {
		t.Errorf("ingest stderr %q", errOut)
	}
	reset()

	// show re-checks anchors now: the split signature changed since ingest.
	integProjectWrite(t, root, "src/split.go", "package src\n\nfunc MakeSplits(n, k int) []int { return nil }\n")
	if err := runBriefShow(ctx, &BriefShowOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root}); err != nil {
		t.Fatal(err)
	}
	wantShow := "Brief \"Off-target scoring\", version 1 from docs/brief.md, ingested 2026-03-01 12:00 (sha256 " + hash[:8] + ")\n" +
		"\nConstraints (2):\n" +
		"  BC-001  Critical, Block: Never change how guides are split\n" +
		"      applies to: src/split.go#MakeSplits\n" +
		"      why: the held-out guides measure generalisation.\n" +
		"  BC-002  High, WarnAndConfirm: Report AUC with its interval\n" +
		"      applies to: reports/*.md\n" +
		"\nDecisions (1):\n" +
		"  AD-001  Accepted: Split by guide (2026-01-10)\n" +
		"      split by guide, never by site.\n" +
		"\nAnchors (2):\n" +
		"  Missing    src/later.py#fit: file src/later.py no longer exists\n" +
		"  Drifted    src/split.go#MakeSplits: signature changed from `func MakeSplits(int) []int` to `func MakeSplits(int, int) []int`\n"
	if out.String() != wantShow {
		t.Errorf("show:\n%s\nwant:\n%s", out, wantShow)
	}
	reset()

	if err := runBriefShow(ctx, &BriefShowOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Version briefVersionJSON `json:"version"`
		Brief   struct {
			Title       string `json:"title"`
			Constraints []struct {
				ID string `json:"id"`
			} `json:"constraints"`
		} `json:"brief"`
		Anchors []struct {
			Anchor struct {
				Path string `json:"path"`
			} `json:"anchor"`
			Status string `json:"status"`
		} `json:"anchors"`
	}
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantVersion := briefVersionJSON{ID: 1, Source: "docs/brief.md", Hash: hash, Title: "Off-target scoring", Constraints: 2,
		Decisions: 1, Anchors: 2, IngestedAt: "2026-03-01T12:00:00Z"}
	if shown.Version != wantVersion || len(shown.Brief.Constraints) != 2 || len(shown.Anchors) != 2 || shown.Anchors[1].Status != "Drifted" {
		t.Errorf("show --json %+v", shown)
	}
	reset()

	// A second ingest re-pins; history lists both, newest first.
	if err := runBriefIngest(ctx, &BriefIngestOptions{IO: f.IO, Store: f.Store, FindProject: f.FindProject, Now: f.Now, Project: root, File: filepath.Join(root, "docs/brief.md")}); err != nil {
		t.Fatal(err)
	}
	reset()
	if err := runBriefHistory(ctx, &BriefHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 20}); err != nil {
		t.Fatal(err)
	}
	wantHistory := "VERSION  INGESTED          SHA256    CONSTRAINTS  DECISIONS  ANCHORS  SOURCE         TITLE\n" +
		"2        2026-03-01 12:00  " + hash[:8] + "  2            1          2        docs/brief.md  Off-target scoring\n" +
		"1        2026-03-01 12:00  " + hash[:8] + "  2            1          2        docs/brief.md  Off-target scoring\n"
	if out.String() != wantHistory {
		t.Errorf("history:\n%s\nwant:\n%s", out, wantHistory)
	}
	reset()
	if err := runBriefHistory(ctx, &BriefHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 1, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var hist []briefVersionJSON
	if err := json.Unmarshal(out.Bytes(), &hist); err != nil {
		t.Fatal(err)
	}
	wantVersion.ID = 2
	if !reflect.DeepEqual(hist, []briefVersionJSON{wantVersion}) {
		t.Errorf("history --json %+v", hist)
	}
}

func integProjectWrite(t *testing.T, root, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var integT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// integTestFactory shows tables as a 200-column terminal does; db is
// VIBE_DB.
func integTestFactory(t *testing.T, db string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: integT0, Env: map[string]string{"VIBE_DB": db}, TTY: true, Width: 200})
}

func integProject(t *testing.T, files map[string]string) string {
	return clitest.ProjectFiles(t, files)
}

// TestBriefJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestBriefJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, briefVersionJSON{})
}
