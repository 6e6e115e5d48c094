#!/bin/sh
# Fail-closed guard for vibe's PreToolUse hook.
#
# Claude Code treats a hook that cannot start (exit 127) as "no opinion", so a
# missing or broken binary would silently allow every protected write. This
# script is committed with the plugin, so it is always there. It has two uses:
#
#   guard.sh --check <binary-name>   (hooks.json) only checks that the binary
#       is there and executable: exit 0 when it is, else exit 2 with the
#       reason on stderr, which blocks the tool call. Claude Code runs every
#       matching hook in parallel, so hooks.json lists the binary itself and
#       this check side by side: the call costs the slower of the two, not a
#       shell in front of the binary. The binary maps its own failures to
#       exit 2 (internal/relay: a Go panic exits 2, a handler that crashes or
#       returns another code becomes exit 2 with a message).
#   guard.sh <binary-name> [args...]   (clients that run hooks one by one,
#       internal/client) runs the binary and turns "missing", "not
#       executable" and "crashed" (any exit but 0 and 2) into exit 2.
check=
if [ "$1" = --check ]; then
  check=1
  shift
fi
name=$1
shift
bin="${0%/*}/../bin/$name"
if [ ! -x "$bin" ]; then
  echo "vibe: the $name hook binary is missing or not executable ($bin), so this write was refused to keep protected files safe. Run \`make build\` (or \`vibe setup\`) in the vibe plugin folder." >&2
  exit 2
fi
[ -n "$check" ] && exit 0
"$bin" "$@"
rc=$?
case $rc in
  0|2) exit $rc ;;
  *) echo "vibe: the $name hook failed (exit $rc), so this write was refused. See ~/.vibe-science/logs and run \`vibe doctor\`." >&2
     exit 2 ;;
esac
