package handler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/verdict"
)

// handleSetup answers Claude Code's Setup event (`claude --init`,
// `--init-only`: trigger "init"; `--maintenance`: trigger "maintenance"):
// vibe's first-run setup from inside the client, as `vibe setup` does it
// without the plugin registration: VIBE_HOME's folders made private, the
// database created or brought up to date (and, on maintenance, checked
// page by page). SessionStart follows it in the same run and starts the
// worker. The person reads one sentence: what is ready, and whether this
// project has opted in. Setup cannot block anything.
func handleSetup(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	p := env.Paths()
	if err := config.SecureHome(p); err != nil {
		env.Note("could not prepare %s (%v); fix its permissions or point VIBE_HOME elsewhere, then run `vibe doctor`", p.Home, err)
		return hookrun.Outcome{}, nil
	}
	st, err := env.Store(ctx)
	if err != nil {
		fix := "; run `vibe doctor`"
		if strings.Contains(err.Error(), "vibe doctor") {
			fix = ""
		}
		env.Note("the database %s cannot be opened (%v)%s", p.DB, err, fix)
		return hookrun.Outcome{}, nil
	}
	v, err := st.Version(ctx)
	if err != nil {
		return hookrun.Outcome{}, fmt.Errorf("read the schema version: %w", err)
	}
	ready := "database " + p.DB
	if v != db.Latest() {
		ready += fmt.Sprintf(" at schema %d, this build's is %d", v, db.Latest())
	}
	if ev.Trigger == "maintenance" {
		if _, err := st.Check(ctx); err != nil {
			env.Note("%s fails its integrity check (%v); run `vibe doctor`", ready, err)
			return hookrun.Outcome{}, nil
		}
		ready += ", integrity checked"
	}
	proj := env.Project(ev.Cwd)
	if info, err := os.Stat(proj.VibeDir()); err == nil && info.IsDir() {
		env.Note("ready (%s); %s has opted in (.vibe-science/).", ready, proj.Root)
	} else {
		env.Note("ready (%s); %s has not opted in: run `vibe init` there for vibe to judge its research.", ready, proj.Root)
	}
	return hookrun.Outcome{}, nil
}

// CheckHooksOff is the check of a settings change that would turn vibe's
// hooks off in the middle of a session.
const CheckHooksOff = "hooks-off"

// handleConfigChange judges a settings file changed during a session
// (Claude Code's ConfigChange). A change that turns vibe's hooks off —
// disableAllHooks, allowManagedHooksOnly, or vibe's plugin set to false
// in enabledPlugins — would leave the rest of the session unjudged: an
// agent's script that writes .claude/settings.local.json would otherwise
// switch vibe off before the next PostToolUse could put the file back. So
// the change is kept out of the running session (a BLOCK: the client does
// not apply it; the file stays as written and the next session reads it),
// and the person is told. A managed policy cannot be refused (the client
// applies it whatever a hook says): that is a WARN.
func handleConfigChange(ctx context.Context, env *hookrun.Env, ev *hook.Event) (hookrun.Outcome, error) {
	if ev.FilePath == "" {
		return hookrun.Outcome{}, nil
	}
	raw, err := os.ReadFile(ev.FilePath)
	if err != nil {
		// Removed or unreadable: what it enabled is unknown from here.
		env.Logf("read changed settings %s: %v", ev.FilePath, err)
		return hookrun.Outcome{}, nil
	}
	off := hooksOff(raw)
	if len(off) == 0 {
		return hookrun.Outcome{}, nil
	}
	input := map[string]any{"file": ev.FilePath, "source": ev.Source, "settings": off}
	what := strings.Join(off, " and ")
	if ev.Source == "policy_settings" {
		v := verdict.New(CheckHooksOff, verdict.Warn, verdict.High,
			fmt.Sprintf("The managed policy %s now sets %s: vibe's hooks stop for the rest of this session, and nothing the agent does from now on is judged.", ev.FilePath, what), input)
		v.Recommendation = "Ask whoever manages this machine's Claude Code policy to leave plugin hooks on for research projects."
		v.Evidence.Paths = []string{ev.FilePath}
		return hookrun.Outcome{Verdicts: []verdict.Verdict{v}}, nil
	}
	v := verdict.New(CheckHooksOff, verdict.Block, verdict.High,
		fmt.Sprintf("The change to %s sets %s, which would turn vibe's hooks off in the middle of this session; vibe kept them on until the session ends (the file stays as written and applies from the next session).", ev.FilePath, what), input)
	v.Recommendation = "If you meant to turn vibe off, end this session and start a new one; otherwise undo the change in " + ev.FilePath + "."
	v.Evidence.Paths = []string{ev.FilePath}
	return hookrun.Outcome{Verdicts: []verdict.Verdict{v}}, nil
}

// hooksOff lists the settings in a Claude Code settings file that turn
// vibe's hooks off, as "key: value" in a fixed order; none when the file
// is not a JSON object or turns nothing off.
func hooksOff(settings []byte) []string {
	var s struct {
		DisableAllHooks       *bool          `json:"disableAllHooks"`
		AllowManagedHooksOnly *bool          `json:"allowManagedHooksOnly"`
		EnabledPlugins        map[string]any `json:"enabledPlugins"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return nil
	}
	var off []string
	if s.DisableAllHooks != nil && *s.DisableAllHooks {
		off = append(off, "disableAllHooks: true")
	}
	if s.AllowManagedHooksOnly != nil && *s.AllowManagedHooksOnly {
		off = append(off, "allowManagedHooksOnly: true")
	}
	var plugins []string
	for id, on := range s.EnabledPlugins {
		if strings.HasPrefix(id, "vibe@") && on == false {
			plugins = append(plugins, fmt.Sprintf("enabledPlugins %q: false", id))
		}
	}
	sort.Strings(plugins)
	return append(off, plugins...)
}
