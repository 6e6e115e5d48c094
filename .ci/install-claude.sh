#!/usr/bin/env bash
# install-claude.sh installs the pinned Claude Code client used by the E2E suite
# (internal/e2e) into a cache directory and prints the path of its binary on stdout.
#
# The version is pinned because an unpinned install once resolved to an older
# release; the E2E assertions are written against what 2.1.332 sends
# (internal/e2e PinnedVersion, which TestInstallScriptPin holds to this
# default). The install folder is named after the version, and a binary
# found there is used only when `claude --version` reports that version, so
# raising the pin never reuses the previous client.
# Postinstall scripts may be blocked in some environments; the CLI still runs,
# so the script judges success by running `claude --version`, not by npm's exit.
#
# Environment:
#   CLAUDE_CODE_VERSION  version to install (default 2.1.332)
#   VIBE_E2E_CACHE       cache root (default $HOME/.cache/vibe-e2e)
#   VIBE_CLAUDE_DIR      install prefix (default $VIBE_E2E_CACHE/claude-$CLAUDE_CODE_VERSION)
set -euo pipefail

version="${CLAUDE_CODE_VERSION:-2.1.332}"
cache="${VIBE_E2E_CACHE:-$HOME/.cache/vibe-e2e}"
DIR="${VIBE_CLAUDE_DIR:-$cache/claude-$version}"
bin="$DIR/node_modules/.bin/claude"

# installed reports whether $bin exists and answers with the pinned version.
installed() {
	[ -x "$bin" ] || return 1
	local got
	got="$("$bin" --version 2>/dev/null | head -n 1)" || return 1
	case "$got" in
	"$version"|"$version "*) return 0 ;;
	*) return 1 ;;
	esac
}

if ! installed; then
	command -v npm >/dev/null 2>&1 || {
		echo "install-claude: npm is not on PATH; install Node.js and npm (Debian: apt-get install nodejs npm), then rerun" >&2
		exit 1
	}
	mkdir -p "$DIR"
	# npm's progress and warnings go to stderr so stdout carries only the path.
	npm install --prefix "$DIR" --no-audit --no-fund "@anthropic-ai/claude-code@$version" 1>&2 || {
		echo "install-claude: npm install @anthropic-ai/claude-code@$version failed; check that the npm registry is reachable" >&2
		exit 1
	}
	installed || {
		echo "install-claude: $bin does not report version $version after install; remove $DIR and rerun" >&2
		exit 1
	}
fi

printf '%s\n' "$bin"
