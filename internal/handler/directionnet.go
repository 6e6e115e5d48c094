package handler

import (
	"context"
	"os"

	"github.com/vibe-science/vibe/internal/artifact"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
)

// directionNet is gate L-1 on the directions found changed on disk after a
// call, whatever wrote them: a script that writes 00-brainstorm/direction.md
// before the session searched the literature gets the block a Write of the
// same file is denied with. searched says this very call was a literature
// search. A Write or Edit that named the file was judged before it was
// written (directionCheck in PreToolUse).
// Each block is also an L-1 FAIL of the file for the record (g.nets: gate
// history, the artifact's status), as a denied Write of it is.
func (g *gated) directionNet(ctx context.Context, env *hookrun.Env, st *store.Store, ev *hook.Event, proj project.Project, searched bool) {
	if searched {
		return
	}
	direct := ev.ToolName == "Write" || ev.ToolName == "Edit" || ev.ToolName == "MultiEdit" || ev.ToolName == "NotebookEdit"
	var d gate.Domain
	loaded := false
	for _, c := range g.scan.Changes {
		if c.Kind != artifact.KindDirection || (direct && g.written[c.Rel]) {
			continue
		}
		cur, err := os.ReadFile(c.Abs)
		if err != nil {
			continue
		}
		if !loaded {
			loaded = true
			var err error
			if d, err = gate.LoadDomain(proj.Root); err != nil {
				d, _ = gate.ShippedDomain(gate.GenericDomain)
			}
		}
		for _, v := range directionCheck(ctx, env, ev, st, proj, c.Abs, nil, cur, d) {
			if !v.Result.Blocks() {
				continue
			}
			what := c.Rel + " changed during this " + ev.ToolName + " call. "
			if !g.byCall(c.Rel) {
				what = c.Rel + " changed before this " + ev.ToolName + " call, which did not write it. "
			}
			v.Reason = what + v.Reason
			v.Evidence.Paths = append(v.Evidence.Paths, c.Rel)
			g.direction = append(g.direction, v)
			g.nets = append(g.nets, netResult{rel: c.Rel, res: gate.Result{Gate: "L-1", Status: gate.StatusFail,
				Inputs: []string{c.Rel}, Checks: []gate.Check{{Name: "literature", Status: gate.StatusFail, Detail: v.Reason}}}})
			g.statusFor[c.Rel] = gate.StatusFail
		}
	}
}
