package client

// Exported for the E2E suite (package client_test): the pinned releases
// and their installer.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Pin is one client release the E2E suite is written against, installed
// from npm under the cache (~/.cache/vibe-e2e) into <name>-<version>.
type Pin struct{ Pkg, Version, Bin string }

// Pinned are the Codex and Gemini CLI releases the E2E suite drives (Claude
// Code's pin is internal/e2e PinnedVersion, installed by
// .ci/install-claude.sh). docs/clients.md names the same versions.
var Pinned = map[string]Pin{
	Codex:  {"@openai/codex", "0.171.0", "codex"},
	Gemini: {"@google/gemini-cli", "0.61.0", "gemini"},
}

// InstallPinned returns the binary of the pinned release of a client under
// cache, installing it with npm into cache/<name>-<version> when it is not
// there or does not report that version. The folder is named after the
// version and the binary is asked its version every time, so raising a pin
// never reuses the previous client; an install that still reports another
// version is an error that says how to fix it.
func InstallPinned(cache, name string, p Pin) (string, error) {
	dir := filepath.Join(cache, name+"-"+p.Version)
	bin := filepath.Join(dir, "node_modules", ".bin", p.Bin)
	if reportsVersion(bin, p.Version) == nil {
		return bin, nil
	}
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", p.Pkg+"@"+p.Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v\n%s", p.Pkg, p.Version, err, out)
	}
	if err := reportsVersion(bin, p.Version); err != nil {
		return "", fmt.Errorf("%v after npm install; remove %s and rerun", err, dir)
	}
	return bin, nil
}

// reportsVersion runs `bin --version` and checks that one of the words it
// prints is version ("codex-cli 0.171.0", "0.61.0").
func reportsVersion(bin, version string) error {
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s is not installed", bin)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s --version: %v", bin, err)
	}
	if !slices.Contains(strings.Fields(string(out)), version) {
		return fmt.Errorf("%s reports %q, not version %s", bin, strings.TrimSpace(string(out)), version)
	}
	return nil
}

// TestInstallPinnedChecksTheVersion runs InstallPinned against a fake npm:
// a client of another version in the folder is reinstalled, one of the
// pinned version is kept, and an install that still reports another
// version is an error that says how to fix it.
func TestInstallPinnedChecksTheVersion(t *testing.T) {
	npm := `#!/bin/sh
prefix= pkg=
while [ $# -gt 0 ]; do
	case $1 in --prefix) prefix=$2; shift;; @*) pkg=$1;; esac
	shift
done
v=${FAKE_NPM_VERSION:-${pkg##*@}}
echo "npm install $pkg" >>"$prefix/npm.log"
mkdir -p "$prefix/node_modules/.bin"
printf '#!/bin/sh\necho "codex-cli %s"\n' "$v" >"$prefix/node_modules/.bin/codex"
chmod +x "$prefix/node_modules/.bin/codex"
`
	path := t.TempDir()
	if err := os.WriteFile(filepath.Join(path, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", path+":/usr/bin:/bin")
	p := Pin{"@openai/codex", "0.171.0", "codex"}
	npmLog := func(cache string) string {
		b, _ := os.ReadFile(filepath.Join(cache, "codex-0.171.0", "npm.log"))
		return string(b)
	}
	fake := func(cache, version string) {
		bin := filepath.Join(cache, "codex-0.171.0", "node_modules", ".bin", "codex")
		os.MkdirAll(filepath.Dir(bin), 0o755)
		os.WriteFile(bin, []byte("#!/bin/sh\necho 'codex-cli "+version+"'\n"), 0o755)
	}
	want := func(cache string) string {
		return filepath.Join(cache, "codex-0.171.0", "node_modules", ".bin", "codex")
	}

	cache := t.TempDir()
	fake(cache, "0.169.0")
	if bin, err := InstallPinned(cache, Codex, p); err != nil || bin != want(cache) || npmLog(cache) != "npm install @openai/codex@0.171.0\n" {
		t.Errorf("another version in the folder: %q %v, npm %q; want a reinstall", bin, err, npmLog(cache))
	}
	cache = t.TempDir()
	fake(cache, "0.171.0")
	if bin, err := InstallPinned(cache, Codex, p); err != nil || bin != want(cache) || npmLog(cache) != "" {
		t.Errorf("the pinned version in the folder: %q %v, npm %q; want it kept", bin, err, npmLog(cache))
	}
	cache = t.TempDir()
	t.Setenv("FAKE_NPM_VERSION", "0.170.0")
	_, err := InstallPinned(cache, Codex, p)
	if err == nil || !strings.Contains(err.Error(), `reports "codex-cli 0.170.0", not version 0.171.0 after npm install; remove `+filepath.Join(cache, "codex-0.171.0")+" and rerun") {
		t.Errorf("an install of another version: %v", err)
	}
}

// StartAppServer starts an initialized `codex app-server` for the E2E
// suite (which trusts hooks through it as the TUI's /hooks does).
var StartAppServer = startAppServer
