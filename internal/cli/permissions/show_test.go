package permissions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
)

// TestRunPermissionsShow: show prints the shipped policy merged with the
// project's permissions.json, as JSON; a broken file is an error naming it.
func TestRunPermissionsShow(t *testing.T) {
	f, out, _ := clitest.New(t, clitest.Options{})
	proj := clitest.Project(t)
	show := func() (map[string]any, error) {
		out.Reset()
		if err := runPermissionsShow(&PermissionsShowOptions{IO: f.IO, FindProject: f.FindProject, Project: proj}); err != nil {
			return nil, err
		}
		var got map[string]any
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		return got, nil
	}
	got, err := show()
	if err != nil {
		t.Fatal(err)
	}
	aliases, _ := got["aliases"].(map[string]any)
	if got["mode"] != "solo" || aliases["r2"] != "reviewer2" || aliases["lab-r2"] != nil {
		t.Fatalf("shipped policy: mode %v, aliases %v", got["mode"], aliases)
	}

	file := filepath.Join(proj, ".vibe-science", "permissions.json")
	if err := os.WriteFile(file, []byte(`{"mode": "team", "aliases": {"lab-r2": "reviewer2"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err = show(); err != nil {
		t.Fatal(err)
	}
	aliases, _ = got["aliases"].(map[string]any)
	if got["mode"] != "team" || aliases["lab-r2"] != "reviewer2" || aliases["r2"] != "reviewer2" {
		t.Errorf("merged policy: mode %v, aliases %v; want team, with lab-r2 beside the shipped r2", got["mode"], aliases)
	}

	if err := os.WriteFile(file, []byte(`{"mode": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = show(); err == nil || !strings.Contains(err.Error(), "permissions.json") || cli.ExitCode(err) == 0 {
		t.Errorf("broken file: err %v, want one naming permissions.json", err)
	}
}
