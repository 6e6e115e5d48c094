package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// hookCommand is one command hooks.json runs for an event.
type hookCommand struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// hookEvent is an event as hooks.json runs it: every command of every
// group whose matcher takes the event's tool, all started at once (Claude
// Code runs the matching hooks of an event in parallel and waits for all).
type hookEvent struct {
	Name     string
	Commands [][]string // argv, ${CLAUDE_PLUGIN_ROOT} expanded
	Input    func(int) []byte
}

// eventFixtures are the recorded inputs per event; the events 2.1.330 did
// not record are derived from a recorded neighbour (the fields of
// reference/claude-code-hooks.md, and for the events 2.1.332 added, of its
// recording in testdata/clients/claude-code-2.1.332). An event with skip
// set is not on a session's path and is not measured.
var eventFixtures = map[string]struct {
	file     string
	old, new string
	skip     string
}{
	"PreSkillShellCommand": {file: "03-PreToolUse.json",
		old: `"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/home/researcher/project/notes.txt","content":"main was here\n"},"tool_use_id":"toolu_020_0"`,
		new: `"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"echo noted > skill-note.txt"},"tool_use_id":"toolu_020_0","command_name":"take-note","command_source":"projectSettings","invoked_by":"claude"`},
	"ConfigChange": {file: "15-SessionEnd.json", old: `"hook_event_name":"SessionEnd","reason":"other"`,
		new: `"hook_event_name":"ConfigChange","source":"local_settings","file_path":"/home/researcher/project/.claude/settings.local.json"`},
	"Setup":              {skip: "runs once, on claude --init, before any session"},
	"SessionStart":       {file: "01-SessionStart.json"},
	"UserPromptSubmit":   {file: "02-UserPromptSubmit.json"},
	"PreToolUse":         {file: "03-PreToolUse.json"},
	"PostToolUse":        {file: "04-PostToolUse.json"},
	"PostToolUseFailure": {file: "04-PostToolUse.json", old: `"hook_event_name":"PostToolUse"`, new: `"hook_event_name":"PostToolUseFailure","error":"Command failed with exit code 1","is_interrupt":false`},
	"Stop":               {file: "13-Stop.json"},
	"SubagentStop":       {file: "10-SubagentStop.json"},
	"PreCompact":         {file: "15-SessionEnd.json", old: `"hook_event_name":"SessionEnd","reason":"other"`, new: `"hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""`},
	"SessionEnd":         {file: "15-SessionEnd.json"},
}

// loadHooksJSON reads root/hooks.json and returns its events in a stable
// order, each with the commands it starts for its recorded input.
func loadHooksJSON(root, fixtures, project string) ([]hookEvent, error) {
	// hooks.json as an installed plugin runs it from its second session on:
	// each hook names its binary (plugin/bootstrap.sh settles an installed
	// copy's hooks.json so; its first session goes through plugin/hook.sh,
	// timed beside the events).
	raw, err := exec.Command("/bin/sh", filepath.Join(root, "plugin", "bootstrap.sh"), "hooks").Output()
	if err != nil {
		return nil, fmt.Errorf("plugin/bootstrap.sh hooks: %w", err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string        `json:"matcher"`
			Hooks   []hookCommand `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("hooks.json: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var out []hookEvent
	for name, groups := range doc.Hooks {
		fx, ok := eventFixtures[name]
		if !ok {
			return nil, fmt.Errorf("hooks.json runs %s, which the bench has no recorded input for: add it to eventFixtures", name)
		}
		if fx.skip != "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(fixtures, fx.file))
		if err != nil {
			return nil, fmt.Errorf("fixture: %w", err)
		}
		text := string(b)
		if fx.old != "" {
			if !strings.Contains(text, fx.old) {
				return nil, fmt.Errorf("%s: %s no longer holds %s", name, fx.file, fx.old)
			}
			text = strings.Replace(text, fx.old, fx.new, 1)
		}
		text = strings.ReplaceAll(text, "/home/researcher/project", project)
		var in struct {
			ToolName string `json:"tool_name"`
		}
		json.Unmarshal([]byte(text), &in)
		ev := hookEvent{Name: name, Input: func(i int) []byte {
			s := strings.ReplaceAll(text, `"toolu_020_0"`, fmt.Sprintf(`"toolu_bench_%d"`, i))
			s = strings.ReplaceAll(s, `"2bea9e60-8f25-4353-b0ec-60d1b34a9fba"`, fmt.Sprintf(`"prompt-%d"`, i))
			return []byte(s)
		}}
		for _, g := range groups {
			if g.Matcher != "" && in.ToolName != "" && !regexp.MustCompile("^(?:"+g.Matcher+")$").MatchString(in.ToolName) {
				continue
			}
			for _, h := range g.Hooks {
				argv := []string{strings.ReplaceAll(h.Command, "${CLAUDE_PLUGIN_ROOT}", abs)}
				for _, a := range h.Args {
					argv = append(argv, strings.ReplaceAll(a, "${CLAUDE_PLUGIN_ROOT}", abs))
				}
				ev.Commands = append(ev.Commands, argv)
			}
		}
		if len(ev.Commands) == 0 {
			return nil, fmt.Errorf("%s: no hook of hooks.json matches its recorded tool %s", name, in.ToolName)
		}
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// label names an event's sample by what hooks.json starts for it.
func (ev hookEvent) label(root string) string {
	abs, _ := filepath.Abs(root)
	var cmds []string
	for _, argv := range ev.Commands {
		rel, err := filepath.Rel(abs, argv[0])
		if err != nil {
			rel = argv[0]
		}
		cmds = append(cmds, strings.Join(append([]string{rel}, argv[1:]...), " "))
	}
	return ev.Name + ": " + strings.Join(cmds, " ‖ ")
}

// runEvent starts every command of the event at once, each with the input
// on stdin, and waits for all: the time Claude Code waits. An error is a
// command that failed to start or exited non-zero, or a systemMessage
// (vibe's way of saying something went wrong).
func runEvent(cmds [][]string, env []string, input []byte) (time.Duration, error) {
	procs := make([]*exec.Cmd, len(cmds))
	outs := make([]bytes.Buffer, len(cmds))
	start := time.Now()
	for i, argv := range cmds {
		c := exec.Command(argv[0], argv[1:]...)
		c.Env, c.Stdin, c.Stdout = env, bytes.NewReader(input), &outs[i]
		if err := c.Start(); err != nil {
			return 0, fmt.Errorf("%s: %w", argv[0], err)
		}
		procs[i] = c
	}
	var first error
	for i, c := range procs {
		err := c.Wait()
		if err == nil && strings.Contains(outs[i].String(), `"systemMessage"`) {
			err = fmt.Errorf("systemMessage: %s", outs[i].String())
		}
		if err != nil && first == nil {
			first = fmt.Errorf("%s: %w", cmds[i][0], err)
		}
	}
	return time.Since(start), first
}

// shuffleSeed makes the rounds' orders the same from one bench run to the
// next.
const shuffleSeed = 15

// job is a set of commands started together on one input.
type job struct {
	name  string
	cmds  [][]string
	input func(int) []byte
}

// measureInterleaved times the events and the empty Go binary in turns
// (one run of each per round), so load from other processes falls on all
// of them alike and their ratio stays fair. Each round runs them in a new
// order (shuffleSeed): what ran just before a hook changes its time (after
// the empty binary the worker has idled longest; after a hook whose
// record follows its reply, that record may still be running), and in one
// fixed order the same events would always pay for their neighbours.
// Extra jobs (other ways to run a hook, for comparison) take part too.
func measureInterleaved(scenario, empty string, events []hookEvent, extra []job, root string, env []string, runs int) []sample {
	jobs := []job{{"empty Go binary", [][]string{{empty}}, func(int) []byte { return nil }}}
	for _, ev := range events {
		jobs = append(jobs, job{ev.label(root), ev.Commands, ev.Input})
	}
	jobs = append(jobs, extra...)
	warm := max(runs/10, 5)
	ds := make([][]float64, len(jobs))
	out := make([]sample, len(jobs))
	rng := rand.New(rand.NewPCG(shuffleSeed, 0))
	for i := 0; i < warm+runs; i++ {
		for _, j := range rng.Perm(len(jobs)) {
			jb := jobs[j]
			d, err := runEvent(jb.cmds, env, jb.input(i))
			if i < warm {
				continue
			}
			if err != nil {
				out[j].Errors++
				if out[j].Errors == 1 {
					fmt.Fprintf(os.Stderr, "%s: %v\n", jb.name, err)
				}
			}
			ds[j] = append(ds[j], float64(d.Microseconds())/1000)
		}
	}
	for j, jb := range jobs {
		out[j] = percentiles(jb.name, scenario, runs, out[j].Errors, ds[j])
		fmt.Fprintf(os.Stderr, "%-60s %-16s p50 %6.2f ms\n", jb.name, scenario, out[j].P50)
	}
	return out
}

// hooksJSONRatios adds each event's p50 and p95 over the empty binary's
// of the same scenario and rounds.
func hooksJSONRatios(rep *report, scenario string, samples []sample) {
	empty := samples[0]
	for _, s := range samples[1:] {
		event, _, ok := strings.Cut(s.Name, ":")
		if !ok {
			event = s.Name // an extra job
		}
		rep.Ratios[fmt.Sprintf("%s / empty Go p50 (%s)", event, scenario)] = round2(s.P50 / empty.P50)
		rep.Ratios[fmt.Sprintf("%s / empty Go p95 (%s)", event, scenario)] = round2(s.P95 / empty.P95)
	}
}
