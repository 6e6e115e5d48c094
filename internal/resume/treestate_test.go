package resume

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/research"
	"github.com/vibe-science/vibe/internal/schemacheck"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// agentTree is a research question's 08-tree/TREE-STATE.json as the
// skill's tree-search protocol has the agent write it.
const agentTree = `{
  "tree_mode": "BRANCHING",
  "stage": 2,
  "current_node": "node-003",
  "best_node": "node-002",
  "nodes": [
    {"id": "node-001", "node_type": "direction", "status": "good", "plan": "use the mismatch model"},
    {"id": "node-002", "node_type": "draft", "parent": "node-001", "status": "good"},
    {"id": "node-003", "node_type": "improve", "parent": "node-002", "status": "buggy"},
    {"node_type": "draft"}
  ]
}`

// treeProject is richProject with two research questions (one with a tree
// file, one with node files only), a tracked direction document, and an
// alert whose message carries a secret.
func (fx fixture) treeProject(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	fx.richProject(t)
	write := func(rel, content string) {
		p := filepath.Join(fx.proj.Root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".vibe-science/RQ-001-off-target/08-tree/TREE-STATE.json", agentTree)
	write(".vibe-science/RQ-002-bulges/08-tree/nodes/node-001-direction.yaml", "node_type: direction\n")
	write(".vibe-science/RQ-002-bulges/08-tree/nodes/node-002-draft.yaml", "node_type: draft\n")
	write(".vibe-science/RQ-002-bulges/08-tree/nodes/notes.txt", "not a node\n")
	write(".vibe-science/RQ-003-empty/RQ.md", "# RQ-003\n")
	err := fx.st.Tx(ctx, func(tx *store.Tx) error {
		for i, p := range []string{".vibe-science/RQ-001-off-target/00-brainstorm/direction.md", ".vibe-science/RQ-002-bulges/00-brainstorm/direction.md"} {
			if err := tx.PutArtifactState(ctx, record.ArtifactState{Project: fx.proj.Root, Path: p, Kind: research.KindDirection,
				Status: "PASS", At: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
				return err
			}
		}
		if err := tx.PutArtifactState(ctx, record.ArtifactState{Project: fx.proj.Root, Path: "data/features.csv", Kind: research.KindFeatures,
			Status: "PASS", At: t0.Add(5 * time.Hour)}); err != nil {
			return err
		}
		_, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: fx.proj.Root, Check: "drift", Level: record.AlertInfo,
			Message: "run.sh exports ghp_abcdefghijklmnopqrstuvwxyz0123", Fingerprint: "drift", At: t0.Add(3 * time.Minute)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteTree(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	fx.treeProject(t)
	wrote, err := WriteTree(ctx, fx.st, fx.proj, "bbbbbbbb-2222", "v1.2.3", t0.Add(3*time.Hour))
	if err != nil || !wrote {
		t.Fatalf("WriteTree = %v, %v", wrote, err)
	}
	raw := readFile(t, fx.proj.Path(TreeStateFile))
	golden(t, "treestate/TREE-STATE.json", raw)

	// It validates against the skill's schema.
	violations, err := schemacheck.Skill(TreeStateSchema, []byte(raw))
	if err != nil || len(violations) > 0 {
		t.Fatalf("TREE-STATE.json does not validate: %v %v", violations, err)
	}
	// The secret in the alert is gone, and no absolute path is written.
	if strings.Contains(raw, "ghp_") || strings.Contains(raw, fx.proj.Root) {
		t.Fatalf("TREE-STATE.json holds a secret or the project's path:\n%s", raw)
	}
	// vibe's own file is no research artifact: were it taken for a
	// direction, the next tool call would be judged by L-1 for it.
	f, err := research.ReadFile(fx.proj.Path(TreeStateFile), ".vibe-science/"+TreeStateFile)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := gate.ShippedDomain(gate.GenericDomain)
	if a := research.Recognize(f, d); a.Kind != "" {
		t.Fatalf("TREE-STATE.json is recognised as %q (%s)", a.Kind, a.Why)
	}

	// Nothing new but the time and the session: the file is left alone.
	info1, _ := os.Stat(fx.proj.Path(TreeStateFile))
	wrote, err = WriteTree(ctx, fx.st, fx.proj, "cccccccc-3333", "v1.2.3", t0.Add(5*time.Hour))
	if err != nil || wrote {
		t.Fatalf("unchanged state: WriteTree = %v, %v", wrote, err)
	}
	if info2, _ := os.Stat(fx.proj.Path(TreeStateFile)); !info2.ModTime().Equal(info1.ModTime()) || readFile(t, fx.proj.Path(TreeStateFile)) != raw {
		t.Fatal("TREE-STATE.json was rewritten although only the time and session changed")
	}
	// A new gate result is a new state.
	fx.exec(t, `INSERT INTO gate_checks (project_path, gate_id, claim_id, status, ts) VALUES (?, 'DC0', 'C-001', 'PASS', ?)`,
		fx.proj.Root, t0.Add(4*time.Hour).UnixMilli())
	wrote, err = WriteTree(ctx, fx.st, fx.proj, "cccccccc-3333", "v1.2.3", t0.Add(5*time.Hour))
	if err != nil || !wrote {
		t.Fatalf("changed state: WriteTree = %v, %v", wrote, err)
	}
	ts, found, err := ReadTree(fx.proj)
	if err != nil || !found {
		t.Fatalf("ReadTree: %v %v", found, err)
	}
	if ts.SessionID != "cccccccc-3333" || !ts.WrittenAt.Equal(t0.Add(5*time.Hour)) || strings.Join(ts.Claims[0].MissingGates, " ") != "DQ1 D1" {
		t.Fatalf("rewritten state: session %s at %v, C-001 missing %v", ts.SessionID, ts.WrittenAt, ts.Claims[0].MissingGates)
	}
	// No temporary file is left beside it.
	entries, _ := os.ReadDir(fx.proj.VibeDir())
	for _, e := range entries {
		if strings.Contains(e.Name(), ".vibe-") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

func TestWriteTreeLeavesOtherFoldersAlone(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	if wrote, err := WriteTree(ctx, fx.st, fx.proj, "", "v1", t0); err != nil || wrote {
		t.Fatalf("no session: %v %v", wrote, err)
	}
	os.Remove(fx.proj.VibeDir())
	if wrote, err := WriteTree(ctx, fx.st, fx.proj, "s", "v1", t0); err != nil || wrote {
		t.Fatalf("no .vibe-science: %v %v", wrote, err)
	}
	if _, err := os.Stat(fx.proj.Path(TreeStateFile)); err == nil {
		t.Fatal("TREE-STATE.json written outside a research project")
	}
}

func TestWriteTreeKeepsAnAgentsTree(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	os.WriteFile(fx.proj.Path(TreeStateFile), []byte(agentTree), 0o644)
	wrote, err := WriteTree(ctx, fx.st, fx.proj, "s-1", "v1", t0)
	want := ".vibe-science/TREE-STATE.json was not written by vibe, so it is left as it is: a research question's tree belongs in its 08-tree/TREE-STATE.json; move the file there and vibe writes the project's tree state at the next Stop"
	if wrote || err == nil || err.Error() != want {
		t.Fatalf("WriteTree = %v, %v", wrote, err)
	}
	if readFile(t, fx.proj.Path(TreeStateFile)) != agentTree {
		t.Fatal("the agent's tree was overwritten")
	}
}

func TestTreeResume(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	if got := TreeResume(fx.proj); got != "" {
		t.Fatalf("no file: %q", got)
	}
	fx.treeProject(t)
	if _, err := WriteTree(ctx, fx.st, fx.proj, "bbbbbbbb-2222", "v1.2.3", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	golden(t, "treestate/resume.txt", TreeResume(fx.proj)+"\n")
	if got, want := TreeStateSays(fx.proj), "written 2026-11-22 12:00 UTC by session bbbbbbbb: 3 research questions, 4 claims, 4 gate results, 3 open alerts"; got != want {
		t.Errorf("TreeStateSays = %q, want %q", got, want)
	}

	for _, tc := range []struct{ name, content, want string }{
		{"not JSON", "{", ".vibe-science/TREE-STATE.json cannot be used to resume: TREE-STATE.json does not parse: unexpected end of JSON input."},
		{"another version", `{"version": 2, "vibe_version": "v9", "session_id": "s"}`, ".vibe-science/TREE-STATE.json cannot be used to resume: TREE-STATE.json has format version 2; this vibe reads version 1."},
		{"an agent's tree", agentTree, ".vibe-science/TREE-STATE.json cannot be used to resume: TREE-STATE.json was not written by vibe."},
	} {
		os.WriteFile(fx.proj.Path(TreeStateFile), []byte(tc.content), 0o644)
		if got := TreeResume(fx.proj); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestTreeSchemaRejects: the schema check above can fail.
func TestTreeSchemaRejects(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	fx.treeProject(t)
	ts, err := GatherTree(ctx, fx.st, fx.proj, "s-1", "v1", t0)
	if err != nil {
		t.Fatal(err)
	}
	ts.Claims[0].ID = "claim one"
	raw, _ := json.Marshal(ts)
	violations, err := schemacheck.Skill(TreeStateSchema, raw)
	if err != nil || len(violations) != 1 || !strings.HasPrefix(violations[0], "at /claims/0/id:") {
		t.Fatalf("violations %v, %v", violations, err)
	}
}

func TestNOf(t *testing.T) {
	for n, want := range map[int]string{0: "0 claims", 1: "1 claim", 2: "2 claims"} {
		if got := nOf(n, "claim"); got != want {
			t.Errorf("nOf(%d) = %q, want %q", n, got, want)
		}
	}
}
