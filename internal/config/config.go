// Package config holds where vibe keeps its files (VIBE_HOME and the paths
// under it) and the user's settings (VIBE_HOME/config.json) with their
// defaults. It reads files only; it must not import store or any hook
// handler, so every binary can afford it.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/filememo"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/vibehome"
)

// Paths are vibe's files under VIBE_HOME (default ~/.vibe-science); the
// layout lives in internal/vibehome, which the hook binaries share.
type Paths = vibehome.Paths

// Resolve computes the paths from the environment (vibehome.Resolve).
func Resolve(getenv func(string) string) Paths { return vibehome.Resolve(getenv) }

// WorkerOff reports whether VIBE_WORKER=off asks vibe to leave the embed
// worker alone (tests, or a user who wants lexical recall only): nothing
// starts it, and recall does not ask it for vectors.
func WorkerOff(getenv func(string) string) bool {
	return strings.EqualFold(getenv("VIBE_WORKER"), "off")
}

// EmbedFallbackOff reports whether VIBE_EMBED_FALLBACK=off asks the worker
// not to embed with the fallback hashed-token embedder while the current
// model is not installed: memories then wait unembedded and recall stays
// lexical until the model arrives.
func EmbedFallbackOff(getenv func(string) string) bool {
	return strings.EqualFold(getenv("VIBE_EMBED_FALLBACK"), "off")
}

// WorkerIdleExit is how long the resident worker rests (no hook, no query,
// no work) before it exits, the next hook starting it again: the
// VIBE_WORKER_IDLE_EXIT variable (a duration such as 45m or 2h, or "off":
// never) over the settings' worker_idle_exit_sec (a negative number:
// never). A negative result means never; a variable that is neither is an
// error, and the settings' value stands.
func WorkerIdleExit(getenv func(string) string, s Settings) (time.Duration, error) {
	never := time.Duration(-1)
	fromSettings := time.Duration(s.WorkerIdleExitSec) * time.Second
	if s.WorkerIdleExitSec < 0 {
		fromSettings = never
	}
	v := strings.TrimSpace(getenv("VIBE_WORKER_IDLE_EXIT"))
	switch {
	case v == "":
		return fromSettings, nil
	case strings.EqualFold(v, "off"):
		return never, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fromSettings, fmt.Errorf("VIBE_WORKER_IDLE_EXIT=%q is neither a duration such as 45m or 2h nor \"off\"; the worker exits after %s idle", v, fromSettings)
	}
	return d, nil
}

// ModelPullOff reports whether VIBE_MODEL_PULL=off asks the worker never to
// download the current model by itself when it needs it and it is not
// installed (an offline or audited machine): `vibe model pull` installs it.
func ModelPullOff(getenv func(string) string) bool {
	return strings.EqualFold(getenv("VIBE_MODEL_PULL"), "off")
}

// Settings are the knobs a user may set in VIBE_HOME/config.json. Zero
// values mean "use the default"; Defaults documents each default.
type Settings struct {
	// RecallDeadlineMS bounds how long prompt-submit waits for the worker.
	RecallDeadlineMS int `json:"recall_deadline_ms,omitempty"`
	// ObserverEvery runs the observer every N tool calls.
	ObserverEvery int `json:"observer_every,omitempty"`
	// StopBlockLimit is how many consecutive Stop blocks LAW 4 may issue
	// before the turn may end with a recorded warning.
	StopBlockLimit int `json:"stop_block_limit,omitempty"`
	// SessionStartTokens caps the SessionStart context.
	SessionStartTokens int `json:"session_start_tokens,omitempty"`
	// PromptRecallTokens caps the UserPromptSubmit context.
	PromptRecallTokens int `json:"prompt_recall_tokens,omitempty"`
	// Model names the embedding model in VIBE_HOME/models.
	Model string `json:"model,omitempty"`
	// WorkerIdleUnloadSec unloads the model after this idle time.
	WorkerIdleUnloadSec int `json:"worker_idle_unload_sec,omitempty"`
	// WorkerIdleExitSec stops the resident worker after this long with no
	// hook, query or work (the next hook starts it again); negative: never.
	WorkerIdleExitSec int `json:"worker_idle_exit_sec,omitempty"`
	// LogRetentionDays deletes older daily logs.
	LogRetentionDays int `json:"log_retention_days,omitempty"`
	// Breakers choose, per dependency (database, worker, vec, brief), what
	// its failure does: skip, warn or fail (integrity.Breakers). Names and
	// modes are validated; unnamed dependencies keep their defaults.
	Breakers integrity.Breakers `json:"breakers,omitempty"`
	// Enforce says where the hooks act: EnforceProjects (the default) in
	// projects that opted in with `vibe init`, EnforceEverywhere in every
	// folder. VIBE_ENFORCE overrides it (EnforcedEverywhere).
	Enforce Enforce `json:"enforce,omitempty"`
}

// Enforce is where the hooks act.
type Enforce string

// The places the hooks act.
const (
	// EnforceProjects: only in a project with a .vibe-science folder at or
	// above its root (project.OptedIn); elsewhere every hook is silent and
	// records nothing.
	EnforceProjects Enforce = "projects"
	// EnforceEverywhere: in every folder, as if each had run `vibe init`.
	EnforceEverywhere Enforce = "everywhere"
)

// EnforceVar overrides the "enforce" setting for one process tree:
// VIBE_ENFORCE=everywhere or VIBE_ENFORCE=projects.
const EnforceVar = "VIBE_ENFORCE"

// UnmarshalJSON accepts "projects" and "everywhere" only.
func (e *Enforce) UnmarshalJSON(raw []byte) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("want %q or %q, got %s", EnforceProjects, EnforceEverywhere, raw)
	}
	switch Enforce(s) {
	case EnforceProjects, EnforceEverywhere:
		*e = Enforce(s)
		return nil
	}
	return fmt.Errorf("%q is not %q or %q", s, EnforceProjects, EnforceEverywhere)
}

// EnforcedEverywhere reports whether the hooks act in every folder:
// VIBE_ENFORCE says so (case ignored), or, when it is unset, the settings
// do. Any other value of VIBE_ENFORCE keeps enforcement to opted-in
// projects.
func EnforcedEverywhere(getenv func(string) string, s Settings) bool {
	if v := getenv(EnforceVar); v != "" {
		return strings.EqualFold(v, string(EnforceEverywhere))
	}
	return s.Enforce == EnforceEverywhere
}

// Defaults are the values used where the file is silent.
var Defaults = Settings{
	RecallDeadlineMS:    150,
	ObserverEvery:       10,
	StopBlockLimit:      2,
	SessionStartTokens:  1000,
	PromptRecallTokens:  500,
	Model:               "potion-base-8M",
	WorkerIdleUnloadSec: 600,
	WorkerIdleExitSec:   1800,
	LogRetentionDays:    14,
	Breakers:            integrity.DefaultBreakers(),
	Enforce:             EnforceProjects,
}

// LoadSettings reads config.json; a missing file gives Defaults, a broken
// one an error that says which file and why (callers then use Defaults). A
// key vibe does not know is an error naming the closest known key: a
// misspelt setting would otherwise be silently ignored.
func LoadSettings(p Paths) (Settings, error) {
	s, err := settingsFiles.Load(p.Settings, func(raw []byte) (Settings, error) {
		f, err := ParseSettings(raw)
		if err != nil {
			return Settings{}, fmt.Errorf("settings %s: %w", p.Settings, err)
		}
		s := defaults()
		merge(&s, f)
		return s, nil
	})
	// Load returns its read errors unwrapped: a type switch, not errors.As,
	// which the resident process would pay for on every hook of a home
	// with no config.json (most).
	switch e := err.(type) {
	case nil:
	case *filememo.ReadError:
		if errors.Is(e.Err, fs.ErrNotExist) {
			return defaults(), nil
		}
		return defaults(), fmt.Errorf("read settings %s: %w", p.Settings, e.Err)
	default:
		return defaults(), err
	}
	s.Breakers = maps.Clone(s.Breakers) // the kept value is shared
	return s, nil
}

// settingsFiles keeps each config.json's settings while the file is
// unchanged: the resident process reads them for hook after hook.
var settingsFiles filememo.Memo[Settings]

func defaults() Settings {
	s := Defaults
	s.Breakers = integrity.DefaultBreakers()
	return s
}

// ParseSettings decodes a config.json, refusing unknown keys.
func ParseSettings(raw []byte) (Settings, error) {
	var f Settings
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			key = strings.Trim(key, `"`)
			return f, fmt.Errorf("unknown key %q%s; the keys are %s", key, suggest(key, settingKeys()), strings.Join(settingKeys(), ", "))
		}
		return f, fmt.Errorf("not valid: %w", err)
	}
	return f, nil
}

// settingKeys are the JSON names of Settings' fields.
func settingKeys() []string {
	t := reflect.TypeOf(Settings{})
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}

// suggest returns `; did you mean "k"?` for the known key closest to key
// (edit distance at most a third of its length), else "".
func suggest(key string, known []string) string {
	best, bestD := "", len(key)/3+1
	for _, k := range known {
		if d := distance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func merge(dst *Settings, f Settings) {
	if f.RecallDeadlineMS > 0 {
		dst.RecallDeadlineMS = f.RecallDeadlineMS
	}
	if f.ObserverEvery > 0 {
		dst.ObserverEvery = f.ObserverEvery
	}
	if f.StopBlockLimit > 0 {
		dst.StopBlockLimit = f.StopBlockLimit
	}
	if f.SessionStartTokens > 0 {
		dst.SessionStartTokens = f.SessionStartTokens
	}
	if f.PromptRecallTokens > 0 {
		dst.PromptRecallTokens = f.PromptRecallTokens
	}
	if f.Model != "" {
		dst.Model = f.Model
	}
	if f.WorkerIdleUnloadSec > 0 {
		dst.WorkerIdleUnloadSec = f.WorkerIdleUnloadSec
	}
	if f.WorkerIdleExitSec != 0 {
		dst.WorkerIdleExitSec = f.WorkerIdleExitSec // negative: never
	}
	if f.LogRetentionDays > 0 {
		dst.LogRetentionDays = f.LogRetentionDays
	}
	if len(f.Breakers) > 0 {
		dst.Breakers = f.Breakers // already over the defaults (Breakers.UnmarshalJSON)
	}
	if f.Enforce != "" {
		dst.Enforce = f.Enforce
	}
}

// RecallDeadline is RecallDeadlineMS as a duration.
func (s Settings) RecallDeadline() time.Duration {
	return time.Duration(s.RecallDeadlineMS) * time.Millisecond
}
