package resume

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/vibe-science/vibe/internal/project"
)

// hasVibeDir reports whether the project has a .vibe-science folder: vibe
// writes research files only into a project set up for research.
func hasVibeDir(proj project.Project) bool {
	info, err := os.Stat(proj.VibeDir())
	return err == nil && info.IsDir()
}

// Checkpoint rewrites vibe's section of STATE.md from the database and
// reports whether the file changed. The Stop hook calls it at most once per
// turn; a project without .vibe-science is left alone.
func Checkpoint(ctx context.Context, st Reads, proj project.Project, sessionID string, now time.Time) (bool, error) {
	if !hasVibeDir(proj) {
		return false, nil
	}
	f, err := Gather(ctx, st, proj, sessionID, now)
	if err != nil {
		return false, fmt.Errorf("checkpoint STATE.md: %w", err)
	}
	return UpdateState(proj.Path(StateFile), StateSection(f))
}

// Export is SessionEnd's file work: vibe's section of STATE.md, the new
// SPINE.md lines and project_pickup.md. Each part is attempted even when an
// earlier one fails; the errors come back joined. A project without
// .vibe-science is left alone.
func Export[W SpineWrites](ctx context.Context, st Store[W], proj project.Project, sessionID string, now time.Time) error {
	if !hasVibeDir(proj) {
		return nil
	}
	var errs []error
	f, err := Gather(ctx, st, proj, sessionID, now)
	if err != nil {
		// Facts that could be read are still worth writing.
		errs = append(errs, err)
	}
	if _, err := UpdateState(proj.Path(StateFile), StateSection(f)); err != nil {
		errs = append(errs, err)
	}
	if _, err := AppendSpine(ctx, st, proj); err != nil {
		errs = append(errs, err)
	}
	if err := writeAtomic(proj.Path(PickupFile), []byte(Pickup(f)), 0o644); err != nil {
		errs = append(errs, fmt.Errorf("write pickup note: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("export project files: %w", err)
	}
	return nil
}
