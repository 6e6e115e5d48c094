package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInstallScriptPin: the install script's default version is the one the
// suite is written against, so raising one without the other fails here,
// not as a confusing E2E failure.
func TestInstallScriptPin(t *testing.T) {
	script := string(repoFile(t, ".ci/install-claude.sh"))
	m := regexp.MustCompile(`(?m)^version="\$\{CLAUDE_CODE_VERSION:-([^}]+)\}"$`).FindStringSubmatch(script)
	if m == nil {
		t.Fatal(".ci/install-claude.sh has no version=\"${CLAUDE_CODE_VERSION:-...}\" line")
	}
	if m[1] != PinnedVersion {
		t.Errorf(".ci/install-claude.sh installs %s by default, the suite pins %s (internal/e2e PinnedVersion)", m[1], PinnedVersion)
	}
}

// TestInstallScriptChecksTheVersion runs .ci/install-claude.sh against a
// fake npm: a client already in the folder that reports another version
// is reinstalled, and an install that still reports another version fails
// with the fix, so raising the pin never reuses the previous client.
func TestInstallScriptChecksTheVersion(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", ".ci", "install-claude.sh"))
	if err != nil {
		t.Fatal(err)
	}
	fakeClaude := func(version string) string {
		return "#!/bin/sh\n[ \"$1\" = --version ] && echo '" + version + " (Claude Code)'\n"
	}
	// npm install --prefix DIR ... @anthropic-ai/claude-code@VERSION writes
	// a claude reporting $FAKE_NPM_VERSION (the requested one when unset).
	npm := `#!/bin/sh
prefix= pkg=
while [ $# -gt 0 ]; do
	case $1 in --prefix) prefix=$2; shift;; @anthropic-ai/*) pkg=$1;; esac
	shift
done
v=${FAKE_NPM_VERSION:-${pkg##*@}}
echo "npm install $pkg" >>"$prefix/npm.log"
mkdir -p "$prefix/node_modules/.bin"
printf '#!/bin/sh\n[ "$1" = --version ] && echo "%s (Claude Code)"\n' "$v" >"$prefix/node_modules/.bin/claude"
chmod +x "$prefix/node_modules/.bin/claude"
`
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(dir string, env ...string) (string, string, error) {
		cmd := exec.Command("bash", script)
		cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "VIBE_CLAUDE_DIR=" + dir, "CLAUDE_CODE_VERSION=2.1.332"}, env...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	claude := func(dir string) string { return filepath.Join(dir, "node_modules", ".bin", "claude") }
	npmLog := func(dir string) string { b, _ := os.ReadFile(filepath.Join(dir, "npm.log")); return string(b) }

	t.Run("an older client in the folder is replaced", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Dir(claude(dir)), 0o755)
		os.WriteFile(claude(dir), []byte(fakeClaude("2.1.330")), 0o755)
		out, errOut, err := run(dir)
		if err != nil || out != claude(dir)+"\n" {
			t.Fatalf("out %q err %v\n%s", out, err, errOut)
		}
		if got := npmLog(dir); got != "npm install @anthropic-ai/claude-code@2.1.332\n" {
			t.Errorf("npm calls %q, want one install of 2.1.332", got)
		}
	})
	t.Run("the pinned client in the folder is kept", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Dir(claude(dir)), 0o755)
		os.WriteFile(claude(dir), []byte(fakeClaude("2.1.332")), 0o755)
		if out, errOut, err := run(dir); err != nil || out != claude(dir)+"\n" || npmLog(dir) != "" {
			t.Errorf("out %q err %v npm %q\n%s", out, err, npmLog(dir), errOut)
		}
	})
	t.Run("an install of another version fails", func(t *testing.T) {
		dir := t.TempDir()
		out, errOut, err := run(dir, "FAKE_NPM_VERSION=2.1.331")
		if err == nil || out != "" || !strings.Contains(errOut, "does not report version 2.1.332 after install; remove "+dir+" and rerun") {
			t.Errorf("out %q err %v stderr %q", out, err, errOut)
		}
	})
}
