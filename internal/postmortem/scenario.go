package postmortem

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/scaffold"
)

//go:embed scenarios/*.json controls/*.json
var files embed.FS

// Scenario is one replayed session.
type Scenario struct {
	// ID is the Appendix-A error (M1 … M12), "refs" for the invented
	// reference (issue 34), or "clean" for the control;
	// "-renamed" and "-results" mark the same session with files, folders,
	// columns and keys named otherwise, in the research question's folder
	// or at the project's analysis/ and results/.
	ID    string `json:"id"`
	Title string `json:"title"`
	// What happened in the original run, in one or two sentences.
	Story string `json:"story"`
	// Domain is the shipped domain `vibe init` starts the project with.
	Domain string `json:"domain"`
	// Files are written (project-relative) after `vibe init`, before the
	// session; "$RQ" stands for the research question's folder.
	Files map[string]string `json:"files"`
	Steps []Step            `json:"steps"`
	// Awaits names the work a scenario's expectations still wait for
	// (another part of issue 32). The replay runs such a scenario all the
	// same; it reports the unmet expectations as waiting, and fails once
	// they are all met while the scenario still says it waits.
	Awaits string `json:"awaits,omitempty"`
}

// Clean reports a clean control: the clean session, as named by the
// blueprint or named otherwise (clean-renamed, clean-results).
func (s Scenario) Clean() bool { return s.ID == "clean" || strings.HasPrefix(s.ID, "clean-") }

// Step is one tool call the agent makes.
type Step struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	// Response is the tool_response PostToolUse sees; for Bash it is made
	// from the command's output, for Write and Edit from the file.
	Response map[string]any `json:"response,omitempty"`
	// Fails says the command exits non-zero: Claude Code then sends
	// PostToolUseFailure instead of PostToolUse.
	Fails  bool   `json:"fails,omitempty"`
	Expect Expect `json:"expect"`
}

// Expect is what vibe must answer to a step. Empty fields mean: PreToolUse
// allows without a word, PostToolUse says nothing.
type Expect struct {
	// Pre is "allow" (default), "deny" or "ask".
	Pre string `json:"pre,omitempty"`
	// Post is "quiet" (default), "block" or "context".
	Post string `json:"post,omitempty"`
	// Says are phrases the non-quiet reply must contain (case ignored).
	Says []string `json:"says,omitempty"`
}

// Control is a session of legitimate work that vibe must never block or
// deny (controls/*.json, written by controls.py): each file its design does
// not plan (Unplanned) may be warned about once, at the steps that expect
// it.
type Control struct {
	ID     string            `json:"id"`
	Title  string            `json:"title"`
	Story  string            `json:"story"`
	Domain string            `json:"domain"`
	Files  map[string]string `json:"files"`
	// Unplanned are the files (relative to the research question) the
	// session makes that its design does not plan.
	Unplanned []string      `json:"unplanned"`
	Steps     []ControlStep `json:"steps"`
}

// ControlStep is a tool call, or what the user does between two calls.
type ControlStep struct {
	Step
	// User is a shell command the user runs between calls, outside Claude
	// Code (no hook sees it); Accept are the protected files the user then
	// takes into vibe's snapshot (`vibe tamper accept`).
	User   string   `json:"user,omitempty"`
	Accept []string `json:"accept,omitempty"`
}

// Controls returns the control sessions, by id.
func Controls() ([]Control, error) {
	out, err := decodeAll[Control]("controls")
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// decodeAll decodes each embedded JSON file of dir, refusing unknown keys.
func decodeAll[T any](dir string) ([]T, error) {
	entries, err := files.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, e := range entries {
		raw, err := files.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var v T
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Scenario is c as a scenario, for its Setup.
func (c Control) Scenario() Scenario {
	return Scenario{ID: c.ID, Title: c.Title, Story: c.Story, Domain: c.Domain, Files: c.Files}
}

// RQ is the research question folder every scenario works in.
const RQ = ".vibe-science/RQ-001"

// All returns the scenarios, the clean controls first, then by id.
func All() ([]Scenario, error) {
	out, err := decodeAll[Scenario]("scenarios")
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Clean() != out[j].Clean() {
			return out[i].Clean()
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Expand replaces $RQ and $PROJECT in s.
func Expand(s, root string) string {
	s = strings.ReplaceAll(s, "$RQ", RQ)
	return strings.ReplaceAll(s, "$PROJECT", root)
}

// Setup makes the scenario's project in root: `vibe init` with the
// scenario's domain, a .git folder, then its files.
func (s Scenario) Setup(root string, now time.Time) error {
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		return err
	}
	domain := s.Domain
	if domain == "" {
		domain = "generic"
	}
	if _, err := scaffold.Init(project.Project{Root: root, Git: true}, scaffold.Options{RQ: "RQ-001", Domain: domain, Now: now}); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	defer aged(root, now.Add(-time.Hour))
	names := make([]string, 0, len(s.Files))
	for n := range s.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(Expand(n, root)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(Expand(s.Files[n], root)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// StepInput is a step's tool input with $RQ and $PROJECT expanded; file
// paths are made absolute under root, as Claude Code sends them.
func (s Step) StepInput(root string) map[string]any {
	raw, _ := json.Marshal(s.Input)
	var in map[string]any
	json.Unmarshal([]byte(Expand(string(raw), root)), &in)
	if fp, ok := in["file_path"].(string); ok && !filepath.IsAbs(fp) {
		in["file_path"] = filepath.Join(root, filepath.FromSlash(fp))
	}
	return in
}

// aged dates every file of the project made by Setup an hour back: the
// project existed before the session starts.
func aged(root string, t time.Time) {
	filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			os.Chtimes(p, t, t)
		}
		return nil
	})
}
