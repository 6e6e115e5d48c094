package status

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
)

// ArtifactGate is one research file of the current project whose last gate
// run at a hook did not pass.
type ArtifactGate struct {
	Path      string    `json:"path"`
	Kind      string    `json:"kind"`
	Status    string    `json:"status"`
	CheckedAt time.Time `json:"checked_at"`
}

// failingArtifacts lists the current project's research files whose gates
// last failed or warned, worst first, then by path, and how many research
// files the hooks have gated at all.
func failingArtifacts(ctx context.Context, st *store.Store, root string) (out []ArtifactGate, gated int, err error) {
	rows, err := st.ArtifactStates(ctx, root)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rows {
		if r.Status != "" {
			gated++
		}
		if r.Status == "FAIL" || r.Status == "WARN" {
			out = append(out, ArtifactGate{Path: r.Path, Kind: r.Kind, Status: r.Status, CheckedAt: r.At.UTC()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Status != out[j].Status {
			return out[i].Status == "FAIL"
		}
		return out[i].Path < out[j].Path
	})
	return out, gated, nil
}

// writeFailingArtifacts prints the gates section of `vibe status`.
func writeFailingArtifacts(w io.Writer, root string, gates []ArtifactGate, gated int) {
	if gated == 0 {
		fmt.Fprintf(w, "gates      no research file of %s has been gated by the hooks yet\n", project.Project{Root: root}.Name())
		return
	}
	if len(gates) == 0 {
		fmt.Fprintf(w, "gates      all %d research files of %s the hooks gated passed at their last change\n", gated, project.Project{Root: root}.Name())
		return
	}
	failed := 0
	for _, g := range gates {
		if g.Status == "FAIL" {
			failed++
		}
	}
	files := "research files"
	if len(gates) == 1 {
		files = "research file"
	}
	// A warning is not a failure: say which is which.
	fmt.Fprintf(w, "gates      %d %s of %s failed or warned at their last change (%d failed, %d warned; details: `vibe gate history`):\n",
		len(gates), files, project.Project{Root: root}.Name(), failed, len(gates)-failed)
	for _, g := range gates {
		fmt.Fprintf(w, "  %-4s  %s  (%s, %s)\n", g.Status, g.Path, g.Kind, g.CheckedAt.Format(time.RFC3339))
	}
}
