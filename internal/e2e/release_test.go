package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The release workflow cannot run here (GitHub Actions); these tests hold
// it to what the install test proves: it builds with `make dist`, the
// target TestMarketplaceInstallWithoutToolchain builds its archive with,
// on a native runner per platform the bootstrap downloads for, and
// publishes one checksums.txt.

type workflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Jobs map[string]struct {
		RunsOn   string `yaml:"runs-on"`
		Needs    string `yaml:"needs"`
		Strategy struct {
			Matrix struct {
				Include []struct{ Runner, Platform string } `yaml:"include"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestReleaseWorkflow: on a v* tag, `make dist RELEASE_TAG=<tag>` on
// ubuntu and macOS runners of both architectures, then one job that joins
// the four checksum lines and publishes them with the archives.
func TestReleaseWorkflow(t *testing.T) {
	var w workflow
	if err := yaml.Unmarshal(repoFile(t, ".github/workflows/release.yml"), &w); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.On.Push.Tags, []string{"v*"}) {
		t.Errorf("triggered by tags %q, want v*", w.On.Push.Tags)
	}
	dist, publish := w.Jobs["dist"], w.Jobs["publish"]
	var platforms []string
	for _, m := range dist.Strategy.Matrix.Include {
		platforms = append(platforms, m.Platform)
		native := map[string]string{"linux_amd64": "ubuntu-22.04", "linux_arm64": "ubuntu-22.04-arm", "darwin_amd64": "macos-15-intel", "darwin_arm64": "macos-14"}
		if native[m.Platform] != m.Runner {
			t.Errorf("%s builds on %s, want its native runner %s", m.Platform, m.Runner, native[m.Platform])
		}
	}
	if slices.Sort(platforms); !slices.Equal(platforms, []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"}) {
		t.Errorf("platforms %q", platforms)
	}
	if dist.RunsOn != "${{ matrix.runner }}" {
		t.Errorf("dist runs on %q", dist.RunsOn)
	}
	var runs []string
	for _, s := range dist.Steps {
		runs = append(runs, s.Run)
	}
	if !slices.Contains(runs, `make dist RELEASE_TAG="${GITHUB_REF_NAME}"`) {
		t.Errorf("no dist step runs `make dist RELEASE_TAG=\"${GITHUB_REF_NAME}\"`: %q", runs)
	}
	if publish.Needs != "dist" || len(publish.Steps) != 3 ||
		!strings.Contains(publish.Steps[1].Run, "cat parts/*/checksums.txt | sort -k 2 > out/checksums.txt") ||
		!strings.Contains(publish.Steps[1].Run, "sha256sum -c checksums.txt") ||
		!strings.HasPrefix(publish.Steps[2].Run, `gh release create "$GITHUB_REF_NAME" out/*`) {
		t.Errorf("publish job %+v", publish)
	}
}

// TestMakeDistRefusesAnotherTag: a tag that is not v<plugin.json version>
// stops `make dist` before it builds, since the plugin of that version
// would look for an archive under another tag.
func TestMakeDistRefusesAnotherTag(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dist := filepath.Join(TempDir(t), "dist")
	cmd := exec.Command(mk, "-s", "-C", root, "dist", "DIST="+dist, "RELEASE_TAG=v0.0.0-not-this")
	out, err := cmd.CombinedOutput()
	v := pluginVersion(t)
	want := "dist: the tag v0.0.0-not-this is not v" + v + ", the version in .claude-plugin/plugin.json; the plugin would download an archive that does not exist. Raise the version there or tag v" + v + "\n"
	if err == nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("make dist: %v\n%s\nwant it to start with %q", err, out, want)
	}
	if _, err := os.Stat(dist); !os.IsNotExist(err) {
		t.Errorf("make dist built into %s before refusing the tag (%v)", dist, err)
	}
}
