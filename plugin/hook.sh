#!/bin/sh
# How Claude Code runs every vibe hook (hooks.json: command hook.sh, args
# [binary]): `hook.sh vibe-pre-tool-use` runs <plugin>/bin/vibe-pre-tool-use
# with the hook's stdin, arguments and exit code, through one exec, so the
# binary is what the client waits for and what "onFailure": "block" judges.
#
# The script exists because bin/ does not: the plugin installed from its
# repository (a Claude Code marketplace) has no binaries until bootstrap.sh
# downloads the release archive of its version. Until then bootstrap.sh
# answers in the binary's place (starting the download, waiting for it
# within the hook's time budget, and refusing only what touches protected
# files); see docs/install.md.
case $0 in
*/*) d=${0%/*} ;;
*) d=. ;;
esac
b=$d/../bin/${1:?usage: hook.sh BINARY [ARGS...]}
# Only a plain file with one name (bootstrap.sh sound): a symlinked or
# hard-linked binary could be swapped through its other name, so
# bootstrap.sh answers in its place and installs the release's own.
if [ -f "$b" ] && [ -x "$b" ] && [ ! -L "$b" ] && [ ! -L "${b%/*}" ] && [ -z "$(find "$b" -prune -links +1 2>/dev/null)" ]; then
	shift
	# A copy installed with its binaries (a checkout's `vibe setup`, an
	# archive unpacked by hand) names them in hooks.json from its next
	# session on: settle it once. A git checkout keeps the repository's.
	[ -e "$d/../.git" ] || [ -e "$d/../.vibe-install/direct" ] || /bin/sh "$d/bootstrap.sh" settle </dev/null >/dev/null 2>&1
	exec "$b" "$@"
fi
exec /bin/sh "$d/bootstrap.sh" hook "$@"
