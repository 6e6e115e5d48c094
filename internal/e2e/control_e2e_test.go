//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/postmortem"
)

// TestControlSessionsThroughTheClient (issue 32 item 4): the control
// sessions whose every step is a tool call (the Software Carpentry corpus)
// run through the real client with the plugin: no call is refused, no hook
// blocks, and hook feedback follows only the calls that made a file the
// design does not plan, naming it.
func TestControlSessionsThroughTheClient(t *testing.T) {
	root := vibeRoot(t)
	controls, err := postmortem.Controls()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range controls {
		played := true
		for _, st := range c.Steps {
			played = played && st.User == ""
		}
		if !played {
			continue // what the user does between calls is not a tool call
		}
		ran++
		t.Run(c.ID, func(t *testing.T) {
			project := TempDir(t)
			if err := c.Scenario().Setup(project, time.Now()); err != nil {
				t.Fatal(err)
			}
			var turns []Turn
			for i, st := range c.Steps {
				turns = append(turns, Turn{Tool(st.Tool, st.StepInput(project)).WithID(fmt.Sprintf("toolu_ctl_%02d", i))})
			}
			turns = append(turns, Turn{Text("done")})
			res := RunClaude(t, RunOptions{Prompt: "explore the data of RQ-001", PluginDir: root, ProjectDir: project,
				AllowedTools: []string{"WebSearch", "Bash"}, Timeout: 4 * time.Minute,
				// The web search's answer holds a paper, as a real one does:
				// vibe records it as a literature search.
				Script: Script{Turns: turns, Side: "GUIDE-seq enables genome-wide profiling of off-target cleavage by CRISPR-Cas nucleases. https://doi.org/10.1038/nbt.3117"}})
			if res.ExitCode != 0 {
				t.Fatalf("claude exit %d\n%s\n%s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000))
			}
			reqs := res.Mock.Conversation(ConvMain)
			last := reqs[len(reqs)-1].Msg
			for i, st := range c.Steps {
				r := resultFor(t, res, fmt.Sprintf("toolu_ctl_%02d", i))
				where := fmt.Sprintf("%s step %d (%s)", c.ID, i, st.Tool)
				if r.IsError {
					t.Errorf("%s: refused or failed: %s", where, r.Text)
				}
				feedback := hookFeedback(last, r.ToolUseID)
				if strings.Contains(strings.ToLower(feedback), "blocking error") || strings.Contains(feedback, "FAIL") {
					t.Errorf("%s: blocked: %s", where, feedback)
				}
				switch st.Expect.Post {
				case "", "quiet":
					if feedback != "" {
						t.Errorf("%s: a legitimate call drew feedback: %s", where, feedback)
					}
				default:
					for _, s := range st.Expect.Says {
						if !strings.Contains(feedback, s) {
							t.Errorf("%s: the warning does not name %q: %s", where, s, feedback)
						}
					}
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no control session is made of tool calls only")
	}
}
