package postmortem_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/postmortem"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/tamper"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestControls (issue 32, items 4 and 5): each control session, replayed
// through the hooks with its commands run for real, draws no block and no
// denial; each file its design does not plan is named in exactly one
// reply (a warning, at the step that expects it), every other step is
// quiet, and nothing is recorded as failing.
func TestControls(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("the control sessions run their scripts with python3; install it")
	}
	controls, err := postmortem.Controls()
	if err != nil {
		t.Fatal(err)
	}
	if len(controls) < 2 {
		t.Fatalf("%d control sessions, want the exploratory and the carpentry ones", len(controls))
	}
	for _, c := range controls {
		t.Run(c.ID, func(t *testing.T) {
			home := t.TempDir()
			root, _ := filepath.EvalSymlinks(t.TempDir())
			root = filepath.Join(root, "project")
			s := &session{t: t, root: root, id: "control-" + c.ID,
				env: map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off", "VIBE_BUSY_TIMEOUT_MS": "500"}}
			if err := c.Scenario().Setup(root, time.Now()); err != nil {
				t.Fatal(err)
			}
			s.run(handler.SessionStart, s.event("SessionStart", "", nil, ""))
			named := map[string]int{} // unplanned file → replies that name it
			executed, calls := 0, 0
			for i, st := range c.Steps {
				if st.User != "" {
					cmd := exec.Command("bash", "-c", postmortem.Expand(st.User, root))
					cmd.Dir = root
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("step %d: the user's %q: %v\n%s", i, st.User, err, out)
					}
					if len(st.Accept) > 0 {
						var rels []string
						for _, a := range st.Accept {
							rels = append(rels, postmortem.Expand(a, root))
						}
						if _, err := tamper.For(home).Accept(project.Resolve(root).Root, rels, time.Now()); err != nil {
							t.Fatalf("step %d: accept %v: %v", i, rels, err)
						}
					}
					continue
				}
				calls++
				in := st.StepInput(root)
				id := fmt.Sprintf("toolu_%03d", i)
				where := fmt.Sprintf("%s step %d (%s %v)", c.ID, i, st.Tool, short(in))
				pre, code := s.run(handler.PreToolUse, s.event("PreToolUse", st.Tool, in, id))
				wantPre := st.Expect.Pre
				if wantPre == "" {
					check(t, where+" PreToolUse", pre, []string{""}, nil)
				} else {
					check(t, where+" PreToolUse", pre, []string{wantPre}, st.Expect.Says)
				}
				if pre.decision == "deny" || code == 2 {
					t.Errorf("%s: denied: %s", where, pre.raw)
					continue
				}
				resp, failure := s.execute(st.Step, in)
				executed++
				ev := s.event("PostToolUse", st.Tool, in, id)
				ev["tool_response"] = resp
				if failure != "" {
					ev = s.event("PostToolUseFailure", st.Tool, in, id)
					ev["error"] = failure
				}
				ev["duration_ms"] = 40
				post, _ := s.run(handler.PostToolUse, ev)
				if post.decision != "" {
					t.Errorf("%s: PostToolUse answered %q: %s", where, post.decision, post.raw)
				}
				switch st.Expect.Post {
				case "", "quiet":
					check(t, where+" PostToolUse", post, []string{""}, nil)
				default:
					check(t, where+" PostToolUse", post, []string{st.Expect.Post}, st.Expect.Says)
				}
				for _, u := range c.Unplanned {
					if strings.Contains(post.text, u) {
						named[u]++
					}
				}
			}
			stop, _ := s.run(handler.Stop, s.event("Stop", "", nil, ""))
			if stop.decision != "" {
				t.Errorf("Stop answered %q: %s", stop.decision, stop.raw)
			}
			for _, u := range c.Unplanned {
				if named[u] != 1 {
					t.Errorf("%s was named in %d replies, want exactly 1 (one warning per unplanned file and session)", u, named[u])
				}
			}
			controlRecord(t, home, root, c, s.id, executed)
			t.Logf("%s: %d calls, %d files warned about once, no block, no denial", c.ID, calls, len(c.Unplanned))
		})
	}
}

// controlRecord checks what the session left in the database: every call
// in the spine, no gate recorded as failing, no research file recorded as
// failing, and each warning vibe recorded about an unplanned file.
func controlRecord(t *testing.T, home, root string, c postmortem.Control, session string, executed int) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "db", "vibe-science.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spine, err := st.Spine(ctx, record.SpineFilter{Session: session, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(spine) != executed {
		t.Errorf("the research spine holds %d entries for %d calls that ran", len(spine), executed)
	}
	history, err := st.GateHistory(ctx, root, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range history {
		if r.Status == record.GateFail {
			t.Errorf("%s recorded FAIL", r.GateID)
		}
	}
	states, err := st.ArtifactStates(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range states {
		if a.Status == "FAIL" {
			t.Errorf("%s is recorded as failing", a.Path)
		}
	}
	decisions, err := st.Decisions(ctx, record.DecisionFilter{Project: root, Session: session, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decisions {
		if verdict.Result(d.Result).Blocks() {
			t.Errorf("a %s %s was recorded (%s): %s", d.Check, d.Result, d.Kind, d.Reason)
		}
	}
}

// TestControlsAreGenerated holds controls/*.json to controls.py.
func TestControlsAreGenerated(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("python3", "controls.py", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controls.py: %v\n%s", err, msg)
	}
	got, _ := filepath.Glob(filepath.Join(out, "*.json"))
	want, _ := filepath.Glob(filepath.Join("controls", "*.json"))
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("controls.py writes %d sessions, controls/ holds %d; run `python3 controls.py`", len(got), len(want))
	}
	for _, g := range got {
		a, _ := os.ReadFile(g)
		b, err := os.ReadFile(filepath.Join("controls", filepath.Base(g)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("controls/%s is not what controls.py writes; run `python3 controls.py`", filepath.Base(g))
		}
	}
}
