package handler

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

// shellWrites judges a shell command's writes to findings and direction
// files as a Write of the same text is judged: DQ4 on the findings file as
// it would be after the command, L-1 on a direction. When the command
// spells its text out (echo, printf, a heredoc) that text is judged; when a
// program writes the file, a findings file is judged after the fact by
// PostToolUse, and a file that is a direction by its name is refused until
// the session has searched the literature, since its new text cannot be
// known before the command runs.
func shellWrites(ctx context.Context, env *hookrun.Env, ev *hook.Event, st *store.Store, proj project.Project, paths []string) []verdict.Verdict {
	if ev.ToolName != "Bash" || len(paths) == 0 {
		return nil
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(ev.ToolInput, &in) != nil {
		return nil
	}
	lits := map[string]permission.LiteralWrite{}
	for _, w := range permission.LiteralWrites(in.Command, ev.Cwd) {
		lits[relResolved(proj, w.Path)] = w
	}
	var d gate.Domain
	loaded := false
	domain := func() gate.Domain {
		if !loaded {
			loaded = true
			var err error
			if d, err = gate.LoadDomain(proj.Root); err != nil {
				env.Note("%v; gates use the generic thresholds until it is fixed", err)
				d, _ = gate.ShippedDomain(gate.GenericDomain)
			}
		}
		return d
	}
	var out []verdict.Verdict
	for _, rel := range paths {
		if filepath.IsAbs(rel) {
			continue
		}
		abs := filepath.Join(proj.Root, filepath.FromSlash(rel))
		w, spelled := lits[rel]
		if !spelled || !w.Known {
			if literature.IsDirectionFile(rel) {
				out = append(out, directionCheck(ctx, env, ev, st, proj, abs, nil, []byte{0}, domain())...)
			}
			continue
		}
		old, _ := os.ReadFile(abs)
		proposed := w.Text
		if w.Append {
			proposed = append(append([]byte(nil), old...), w.Text...)
		}
		out = append(out, findingsCheck(proj, abs, proposed, domain(), originsFor(ctx, env, st, proj, nil, env.Now()))...)
		out = append(out, directionCheck(ctx, env, ev, st, proj, abs, old, proposed, domain())...)
	}
	return out
}

// relResolved is a written path as the permission layer names it:
// project-relative after resolving the symlinks of its folder.
func relResolved(proj project.Project, p string) string {
	dir, base := filepath.Split(p)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		p = filepath.Join(real, base)
	}
	return proj.Rel(p)
}
