#!/bin/sh
# Fail-closed launcher for vibe's PreToolUse hook.
#
# Claude Code treats a hook that cannot start (exit 127) as "no opinion", so a
# missing or broken binary would silently allow every protected write. This
# script is committed with the plugin, so it is always there: it runs the
# binary when it exists and turns "missing", "not executable" and "crashed"
# into exit 2, which blocks the tool call with the reason on stderr.
# Usage (from hooks.json): guard.sh <binary-name> [args...], e.g. --client codex
name=$1
shift
bin="${0%/*}/../bin/$name"
if [ ! -x "$bin" ]; then
  echo "vibe: the $name hook binary is missing or not executable ($bin), so this write was refused to keep protected files safe. Run \`make build\` (or \`vibe setup\`) in the vibe plugin folder." >&2
  exit 2
fi
"$bin" "$@"
rc=$?
case $rc in
  0|2) exit $rc ;;
  *) echo "vibe: the $name hook failed (exit $rc), so this write was refused. See ~/.vibe-science/logs and run \`vibe doctor\`." >&2
     exit 2 ;;
esac
