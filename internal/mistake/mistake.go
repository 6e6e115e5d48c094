package mistake

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// interpreters run the script named by their first non-option argument.
var interpreters = map[string]bool{"python": true, "python3": true, "Rscript": true, "R": true, "bash": true, "sh": true,
	"zsh": true, "node": true, "julia": true, "perl": true, "ruby": true, "uv": true, "poetry": true}

// scriptExts are the file types a research script is written in.
var scriptExts = map[string]bool{".py": true, ".r": true, ".sh": true, ".js": true, ".mjs": true, ".jl": true,
	".pl": true, ".rb": true, ".ipynb": true}

// Target names what a tool call works on, "" when the call has no target
// worth remembering (a read, a search). root makes paths project-relative;
// cwd resolves relative ones.
func Target(tool string, input json.RawMessage, cwd, root string) string {
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		Notebook string `json:"notebook_path"`
	}
	_ = json.Unmarshal(input, &in)
	switch {
	case tool == "Bash" || tool == "PowerShell":
		return commandTarget(in.Command, cwd, root)
	case tool == "Write" || tool == "Edit" || tool == "MultiEdit" || tool == "NotebookEdit":
		p := in.FilePath
		if p == "" {
			p = in.Notebook
		}
		if p == "" {
			return ""
		}
		return "edit " + rel(p, cwd, root)
	case strings.HasPrefix(tool, "mcp__"):
		return "call " + tool
	}
	return ""
}

// commandTarget is "run <script>" for the first script a command runs, else
// the command itself with its whitespace collapsed (at most 120 bytes).
func commandTarget(cmd, cwd, root string) string {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" {
		return ""
	}
	dir := cwd
	for _, seg := range splitSegments(cmd) {
		words := fields(seg)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") {
			words = words[1:] // VAR=value prefixes
		}
		if len(words) == 0 {
			continue
		}
		if words[0] == "cd" && len(words) > 1 {
			d := unquote(words[1])
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			dir = d
			continue
		}
		if scriptExts[strings.ToLower(path.Ext(unquote(words[0])))] {
			return "run " + rel(unquote(words[0]), dir, root)
		}
		name := path.Base(words[0])
		if !interpreters[name] && !strings.HasPrefix(name, "python3.") {
			continue
		}
		for _, w := range words[1:] {
			w = unquote(w)
			if strings.HasPrefix(w, "-") || w == "run" {
				if w == "-c" || w == "-e" {
					break // inline code: no script file
				}
				continue
			}
			if scriptExts[strings.ToLower(path.Ext(w))] {
				return "run " + rel(w, dir, root)
			}
			break
		}
	}
	// Scrubbed before it is cut: a secret cut in two is no longer found.
	collapsed := strings.Join(strings.Fields(privacy.Prefix(cmd, maxTarget)), " ")
	if len(collapsed) > maxTarget {
		collapsed = strings.ToValidUTF8(collapsed[:maxTarget], "")
	}
	return "command " + collapsed
}

func splitSegments(cmd string) []string {
	return strings.FieldsFunc(strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n").Replace(cmd),
		func(r rune) bool { return r == '\n' })
}

func unquote(s string) string { return strings.Trim(s, `"'`) }

// fields splits a command segment into words, keeping quoted text (with
// its spaces) in one word.
func fields(s string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// rel makes p project-relative with forward slashes.
func rel(p, cwd, root string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}

// maxTarget is the longest command a target keeps.
const maxTarget = 120

// firstLines keeps the start of an error: its first lines, at most n bytes,
// scrubbed before it is cut.
func firstLines(s string, n int) string {
	s = strings.TrimSpace(privacy.Prefix(s, n))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// Record remembers a failed call: a memory of kind failure (what was tried
// and the error) and a mistake row PreToolUse can find by target.
func Record(ctx context.Context, tx Writes, ev *hook.Event, project, tried string, now time.Time) error {
	target := Target(ev.ToolName, ev.ToolInput, ev.Cwd, project)
	if target == "" || ev.IsInterrupt {
		return nil
	}
	errText := firstLines(ev.Error, 300)
	id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, SessionID: ev.SessionID, Kind: record.KindFailure,
		Text: fmt.Sprintf("%s failed: %s", tried, errText), Ref: "mistake:" + target, Source: "hook", At: now})
	if err != nil {
		return err
	}
	_, err = tx.AddMistake(ctx, record.Mistake{Project: project, Session: ev.SessionID, Target: target, Tool: ev.ToolName,
		Tried: tried, Error: errText, MemoryID: id, FailedAt: now})
	return err
}

// Resolve joins a successful call to the open mistakes of its target: each
// is marked fixed by it, and its memory is replaced by one that tells the
// mistake and the fix together.
func Resolve(ctx context.Context, tx Writes, ev *hook.Event, project, done string, now time.Time) error {
	target := Target(ev.ToolName, ev.ToolInput, ev.Cwd, project)
	if target == "" {
		return nil
	}
	fixed, err := tx.FixMistakes(ctx, project, target, done, now)
	if err != nil {
		return err
	}
	for _, m := range fixed {
		if m.MemoryID != 0 {
			if err := tx.ForgetMemory(ctx, m.MemoryID); err != nil {
				return err
			}
		}
		id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, SessionID: ev.SessionID, Kind: record.KindFailure,
			Text: fmt.Sprintf("%s failed: %s — fixed by: %s", m.Tried, m.Error, done), Ref: "mistake:" + target, Source: "hook", At: now})
		if err != nil {
			return err
		}
		if err := tx.SetMistakeMemory(ctx, m.ID, id); err != nil {
			return err
		}
	}
	return nil
}

// MaxContext bounds what Context adds to a PreToolUse reply (about 150
// tokens).
const MaxContext = 600

// Context is what Claude is told before a call whose target failed before:
// the latest mistake if it is not fixed yet, and mistakes fixed in other
// sessions with their fix. "" when there is nothing to say.
func Context(ctx context.Context, st Reads, ev *hook.Event, project string) (string, error) {
	target := Target(ev.ToolName, ev.ToolInput, ev.Cwd, project)
	if target == "" {
		return "", nil
	}
	ms, err := st.Mistakes(ctx, project, target, 3)
	if err != nil || len(ms) == 0 {
		return "", err
	}
	var lines []string
	for i, m := range ms {
		switch {
		case m.FixedAt.IsZero() && i == 0:
			lines = append(lines, fmt.Sprintf("the last time (%s) it failed: %s; no later success is recorded", m.FailedAt.UTC().Format("2006-01-02 15:04"), m.Error))
		case !m.FixedAt.IsZero() && m.Session != ev.SessionID:
			lines = append(lines, fmt.Sprintf("on %s it failed: %s; then %s succeeded", m.FailedAt.UTC().Format("2006-01-02"), m.Error, m.FixedBy))
		}
	}
	if len(lines) == 0 {
		return "", nil
	}
	text := fmt.Sprintf("vibe remembers a mistake with %s in this project: %s.", strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(target, "run "), "edit "), "command "), strings.Join(lines, "; "))
	if len(text) > MaxContext {
		text = text[:MaxContext] + "…"
	}
	return text, nil
}
