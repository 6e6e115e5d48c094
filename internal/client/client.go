package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
)

// The clients vibe speaks to.
const (
	Claude = "claude"
	Codex  = "codex"
	Gemini = "gemini"
)

// Var is the environment variable that names the client
// (relay.ClientVar, set from the hook command's `--client NAME`).
const Var = "VIBE_CLIENT"

// adapter is one client's dialect.
type adapter struct {
	// events turns the client's event into Claude-shaped events for the
	// handlers (more than one for a patch that touches several files) and
	// names the Claude event they carry.
	events func(data []byte) (event string, evs [][]byte, err error)
	// render writes the merged Claude reply in the client's vocabulary and
	// returns the exit code.
	render func(event string, r *hook.Reply, stdout io.Writer) int
}

var adapters = map[string]adapter{
	Codex:  {events: codexEvents, render: codexRender},
	Gemini: {events: geminiEvents, render: geminiRender},
}

// Names lists the clients `--client` accepts, sorted.
func Names() []string {
	out := []string{Claude}
	for n := range adapters {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Main runs spec over env for the client named in env's VIBE_CLIENT: Claude
// Code (or none) runs hookrun.Main unchanged; any other client has its event
// translated, the handler run once per translated event, and the replies
// merged and rendered for it.
func Main(spec hookrun.Spec, env *hookrun.Env) int {
	if env == nil {
		env = hookrun.OSEnv()
	}
	name := strings.ToLower(env.Getenv(Var))
	if name == "" || name == Claude {
		return hookrun.Main(spec, env)
	}
	a, ok := adapters[name]
	if !ok {
		return cannotRead(spec, env, fmt.Errorf("the hook command names client %q; vibe speaks to %s (fix the --client argument in the hook configuration, or run `vibe setup --client ...` again)", name, strings.Join(Names(), ", ")))
	}
	data, err := io.ReadAll(io.LimitReader(env.Stdin, hook.MaxEvent+1))
	if err == nil && len(data) > hook.MaxEvent {
		err = fmt.Errorf("event larger than %d bytes", hook.MaxEvent)
	}
	var event string
	var evs [][]byte
	if err == nil {
		event, evs, err = a.events(data)
	}
	if err != nil {
		return cannotRead(spec, env, fmt.Errorf("read the %s event: %w", name, err))
	}
	var replies []*hook.Reply
	for _, ev := range evs {
		var out, errOut bytes.Buffer
		code := hookrun.Main(spec, env.WithStreams(bytes.NewReader(ev), &out, &errOut))
		if code != 0 {
			// hookrun's own last resort (exit 2, reason on stderr) blocks
			// in both clients as it does in Claude Code.
			env.Stderr.Write(errOut.Bytes())
			return code
		}
		if out.Len() == 0 {
			continue
		}
		var r hook.Reply
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			return cannotRead(spec, env, fmt.Errorf("read the handler's reply: %w", err))
		}
		replies = append(replies, &r)
	}
	return a.render(event, merge(event, replies), env.Stdout)
}

// cannotRead answers an event vibe could not translate: a hook that fails
// closed refuses (exit 2 with the reason on stderr blocks the tool in
// Codex and Gemini alike), the others tell the user and let the session go on.
func cannotRead(spec hookrun.Spec, env *hookrun.Env, err error) int {
	env.Logf("%s: %v", spec.Name, err)
	if spec.Policy == hookrun.FailClosed {
		fmt.Fprintf(env.Stderr, "vibe could not check this tool call (%v), so it was refused to keep protected files safe. Run `vibe doctor`.\n", err)
		return 2
	}
	out, _ := json.Marshal(map[string]string{"systemMessage": "vibe: " + hook.Cap(err.Error())})
	env.Stdout.Write(append(out, '\n'))
	return 0
}

// merge folds the replies to the events of one client event: a deny or a
// block from any of them wins, and every reason, context and note is kept
// once, in order.
func merge(event string, rs []*hook.Reply) *hook.Reply {
	if len(rs) == 1 {
		return rs[0]
	}
	var deny, ask, dreason, areason, ctx, sys, reason, decision []string
	for _, r := range rs {
		sys = appendOnce(sys, r.SystemMessage)
		if r.Decision != "" {
			decision = appendOnce(decision, r.Decision)
			reason = appendOnce(reason, r.Reason)
		}
		if s := r.HookSpecific; s != nil {
			ctx = appendOnce(ctx, s.AdditionalContext)
			switch s.PermissionDecision {
			case "deny":
				deny = append(deny, "deny")
				dreason = appendOnce(dreason, s.PermissionDecisionReason)
			case "ask":
				ask = append(ask, "ask")
				areason = appendOnce(areason, s.PermissionDecisionReason)
			}
		}
	}
	m := &hook.Reply{SystemMessage: strings.Join(sys, "\n")}
	if len(decision) > 0 {
		m.Decision, m.Reason = "block", strings.Join(reason, "\n")
	}
	spec := &hook.Specific{HookEventName: event, AdditionalContext: strings.Join(ctx, "\n")}
	switch {
	case len(deny) > 0:
		spec.PermissionDecision, spec.PermissionDecisionReason = "deny", strings.Join(dreason, "\n")
	case len(ask) > 0:
		spec.PermissionDecision, spec.PermissionDecisionReason = "ask", strings.Join(areason, "\n")
	}
	if spec.PermissionDecision != "" || spec.AdditionalContext != "" {
		m.HookSpecific = spec
	}
	return m
}

func appendOnce(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, l := range list {
		if l == s {
			return list
		}
	}
	return append(list, s)
}

// write prints v as one line of JSON, or nothing when empty.
func write(w io.Writer, v any, empty bool) int {
	if empty {
		return 0
	}
	out, err := json.Marshal(v)
	if err != nil {
		return 2
	}
	w.Write(append(out, '\n'))
	return 0
}
