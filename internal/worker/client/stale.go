package client

import (
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
)

// Stale says why the worker that answered with h is not the one this
// install's hooks use, or "" when it is. It is stale when it runs another
// file than bin (another install's copy, or the file a rebuild replaced:
// the hook clients bypass it, so every hook runs the slow path), or when it
// reports another Makefile-stamped version than this program's (the hooks
// refuse it: version skew). An unstamped version (buildinfo.Devel, a
// plain go build) cannot tell two builds apart, so only the file decides.
func Stale(paths config.Paths, bin string, h Health) string {
	if _, foreign := Foreign(paths, bin); foreign {
		return fmt.Sprintf("the worker (pid %d) runs another file than %s: another install's copy, or the one a rebuild replaced", h.PID, bin)
	}
	if h.Version != buildinfo.Version && stamped(h.Version) && stamped(buildinfo.Version) {
		return fmt.Sprintf("the worker (pid %d) is build %s, this vibe is build %s", h.PID, h.Version, buildinfo.Version)
	}
	return ""
}

func stamped(v string) bool { return v != "" && !strings.HasPrefix(v, buildinfo.Devel) }
