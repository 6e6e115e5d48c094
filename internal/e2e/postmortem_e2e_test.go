//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/postmortem"
)

// TestPostMortemThroughTheClient plays post-mortem scenarios (issue 13)
// through the real client: the clean controls, where no tool call may draw a
// denial, a block or a warning, and error scenarios whose scripts write
// a faulty features table through Bash, where the model must be told which
// gate failed on which column in the same turn. M10's PreToolUse answers
// with additionalContext alone: under hooks.json's "onFailure": "block" a
// reply the client cannot validate would refuse the write.
func TestPostMortemThroughTheClient(t *testing.T) {
	root := vibeRoot(t)
	all, err := postmortem.All()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]postmortem.Scenario{}
	for _, s := range all {
		byID[s.ID] = s
	}
	// The -renamed scenarios are the same sessions with the files, folders,
	// columns and JSON keys named otherwise (issue 32): the clean control
	// must stay silent, and the inferred pair (M5) and the groups a derived
	// table keeps (M8) must reach the model by the names it inferred.
	for _, id := range []string{"clean", "M3", "M4", "M7", "M10", "clean-renamed", "M5-renamed", "M8-renamed"} {
		sc, ok := byID[id]
		if !ok {
			t.Fatalf("no post-mortem scenario %s", id)
		}
		if sc.Awaits != "" {
			t.Fatalf("%s awaits %s: play only scenarios whose expectations hold", id, sc.Awaits)
		}
		t.Run(id, func(t *testing.T) {
			project := TempDir(t)
			if err := sc.Setup(project, time.Now()); err != nil {
				t.Fatal(err)
			}
			var turns []Turn
			for i, st := range sc.Steps {
				turns = append(turns, Turn{Tool(st.Tool, st.StepInput(project)).WithID(fmt.Sprintf("toolu_pm_%02d", i))})
			}
			turns = append(turns, Turn{Text("done")})
			res := RunClaude(t, RunOptions{Prompt: "run the analysis of RQ-001", PluginDir: root, ProjectDir: project,
				AllowedTools: []string{"WebSearch", "Bash"}, Script: Script{Turns: turns}, Timeout: 3 * time.Minute})
			if res.ExitCode != 0 {
				t.Fatalf("claude exit %d\n%s\n%s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000))
			}
			reqs := res.Mock.Conversation(ConvMain)
			last := reqs[len(reqs)-1].Msg
			for i, st := range sc.Steps {
				r := resultFor(t, res, fmt.Sprintf("toolu_pm_%02d", i))
				where := fmt.Sprintf("%s step %d (%s)", id, i, st.Tool)
				switch st.Expect.Pre {
				case "deny", "ask":
					// A -p session has no user to ask: the client refuses
					// what the hook asks about, with the hook's question.
					if !r.IsError {
						t.Errorf("%s: not refused: %s", where, r.Text)
					}
					for _, s := range st.Expect.Says {
						if !strings.Contains(strings.ToLower(r.Text), strings.ToLower(s)) {
							t.Errorf("%s: the refusal does not say %q: %s", where, s, r.Text)
						}
					}
					continue
				default:
					if r.IsError != st.Fails {
						t.Errorf("%s: is_error %v, the command's exit says %v: %s", where, r.IsError, st.Fails, r.Text)
					}
				}
				feedback := hookFeedback(last, r.ToolUseID)
				switch st.Expect.Post {
				case "block":
					for _, s := range st.Expect.Says {
						if !strings.Contains(strings.ToLower(feedback), strings.ToLower(s)) {
							t.Errorf("%s: the model was not told %q after the call; it got:\n%s", where, s, r.Text)
						}
					}
				case "", "quiet":
					if feedback != "" {
						t.Errorf("%s: a correct call drew feedback: %s", where, feedback)
					}
				}
			}
		})
	}
}

// hookFeedback is what the hooks said after a tool call: Claude Code sends
// a PostToolUse block's reason (and additional context) to the model as the
// messages that follow the tool's result, up to the model's next turn ("" when
// nothing followed).
func hookFeedback(req MessagesRequest, toolUseID string) string {
	var out []string
	after := false
	for _, m := range req.Messages {
		if after {
			if m.Role == "assistant" {
				break
			}
			out = append(out, m.Text())
			continue
		}
		for _, b := range m.Content {
			if b.Type == "tool_result" && b.ToolUseID == toolUseID {
				after = true
				// Feedback may also ride in the same message, after the result.
				for _, x := range m.Content {
					if x.Type == "text" {
						out = append(out, x.Text)
					}
				}
			}
		}
	}
	// The client adds notes of its own (a file changed on disk, a nudge to
	// report progress); a hook's words come with the hook's name.
	var hooks []string
	for _, t := range out {
		if strings.Contains(t, "hook") {
			if i := strings.Index(t, "The user hasn't heard from you"); i >= 0 {
				t = t[:i]
			}
			hooks = append(hooks, strings.TrimSpace(t))
		}
	}
	return strings.Join(hooks, "\n")
}
