#!/bin/sh
# Fail-closed runner for vibe's PreToolUse hook, for agent clients that run
# hooks one by one and have no way to say "refuse the call when this hook
# fails" (Codex, Gemini: internal/client writes `guard.sh vibe-pre-tool-use
# --client NAME` into their settings).
#
# Such a client treats a hook that cannot start (exit 127) or crashes as "no
# opinion", so a missing or broken binary would silently allow every
# protected write. This script is committed with the plugin, so it is always
# there:
#
#   guard.sh <binary-name> [args...]
#       runs the binary with the arguments and turns "missing", "not
#       executable" and "crashed" (any exit but 0 and 2) into exit 2, which
#       blocks the call, with the reason on stderr.
#
# Claude Code does not need it: hooks.json runs bin/vibe-pre-tool-use
# directly with "onFailure": "block", so the client itself refuses the call
# when the binary cannot start, crashes or answers JSON that fails validation.
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
