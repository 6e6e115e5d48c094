#!/bin/sh
# Installs vibe's binaries into the plugin's bin/ from the release archive of
# the plugin's own version, and answers for a hook while they are missing.
# POSIX sh; it needs curl or wget, tar, gzip, and sha256sum or shasum.
#
#   bootstrap.sh install   download vibe_<version>_<os>_<arch>.tar.gz and
#                          checksums.txt from <base>/v<version>/, check the
#                          archive's SHA-256 against its line, try the
#                          binaries, and move them into bin/ in one rename
#                          (run it by hand when a session could not)
#   bootstrap.sh info      print what install would fetch, and from where
#   bootstrap.sh hooks     print hooks.json as it is once bin/ is complete
#                          (each hook names its binary, without hook.sh)
#   bootstrap.sh settle    write that hooks.json in place of the plugin's
#                          own, in a copy that is not a git checkout and
#                          whose bin/ is complete (hook.sh runs it once)
#   bootstrap.sh hook BIN  what hook.sh runs when bin/BIN is missing
#
# <version> is .claude-plugin/plugin.json's "version"; <base> is
# $VIBE_RELEASE_URL, else "<repository>/releases/download" with plugin.json's
# "repository". A git checkout (.git next to hooks.json) never downloads:
# `make build` fills its bin/.
#
# State lives in <plugin>/.vibe-install/: lock/ (held by the one install
# that runs; lock/pid names it), error (why the last install failed), log.
#
# While the binaries are missing, a hook does not fail. SessionStart and
# Setup start the install and wait for it; PreToolUse waits for a running
# install; then each hook runs the binary if it arrived. If not, PreToolUse
# allows every call outside a vibe project (no .vibe-science folder at or
# above it) and, inside one, refuses writes to protected files (the claim
# ledger, reviews, raw data, vibe's and the agent's configuration), asks
# before shell commands and tools it cannot see into, and lets other file
# writes through; SessionStart tells the user what is missing and how to
# fix it; the other hooks say nothing.
set -u
here=$(cd "${0%/*}" 2>/dev/null && pwd -P) || here=.
root=$(cd "$here/.." && pwd -P)
self=$here/bootstrap.sh
state=$root/.vibe-install
lock=$state/lock

# The binaries hooks.json and vibe need (internal/cli/setup HookBinaries and
# the worker); an archive without one of them is not installed.
binaries="vibe vibe-hook vibe-embed-worker vibe-session-start vibe-prompt-submit vibe-pre-tool-use vibe-post-tool-use vibe-stop vibe-session-end"

# manifest KEY: plugin.json's top-level string KEY.
manifest() {
	sed -n 's/^[[:space:]]*"'"$1"'"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$root/.claude-plugin/plugin.json" 2>/dev/null | head -n 1
}

platform() {
	case $(uname -s) in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) os=$(uname -s) ;;
	esac
	case $(uname -m) in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch=$(uname -m) ;;
	esac
}

describe() {
	version=$(manifest version)
	platform
	base=${VIBE_RELEASE_URL:-}
	if [ -z "$base" ]; then
		base=$(manifest repository)/releases/download
	fi
	base=${base%/}
	archive=vibe_${version}_${os}_${arch}.tar.gz
	url=$base/v$version/$archive
	sums=$base/v$version/checksums.txt
}

# checkout: a git checkout, which `make build` fills; Claude Code's copy
# of a plugin from a marketplace has no .git.
checkout() { [ -e "$root/.git" ]; }

# sound FILE: a binary vibe runs: an executable regular file that is
# neither a symlink nor in a symlinked bin/, and has no other name (a hard
# link made elsewhere, or a symlink, would let whoever can write that other
# name swap the hook). hook.sh makes the same test.
sound() {
	[ -f "$1" ] && [ -x "$1" ] && [ ! -L "$1" ] && [ ! -L "${1%/*}" ] && [ -z "$(find "$1" -prune -links +1 2>/dev/null)" ]
}

complete() {
	for _b in $binaries; do
		sound "$root/bin/$_b" || return 1
	done
}

# linked: bin/ holds a hook binary that is a link (see sound).
linked() {
	for _b in $binaries; do
		{ [ -L "$root/bin/$_b" ] || [ -L "$root/bin" ] || [ -n "$(find "$root/bin/$_b" -prune -links +1 2>/dev/null)" ]; } && return 0
	done
	return 1
}

# unsafe ARCHIVE: the first entry of ARCHIVE that is not a plain file or
# folder (a symlink or hard link, whose target someone else may write) or
# whose name is absolute or climbs with ..; nothing for a sound archive.
unsafe() {
	tar -tzvf "$1" 2>/dev/null | awk '{ c = substr($1, 1, 1); if (c != "-" && c != "d") { print; exit } }'
	tar -tzf "$1" 2>/dev/null | grep -E '^/|(^|/)\.\.(/|$)' | head -n 1
}

# locked: an install runs (lock/ exists, and its pid is alive or it is too
# young to have written one). A dead holder's lock is removed.
locked() {
	[ -d "$lock" ] || return 1
	pid=$(cat "$lock/pid" 2>/dev/null) || pid=
	if [ -n "$pid" ]; then
		kill -0 "$pid" 2>/dev/null && return 0
	elif [ -z "$(find "$lock" -prune -mmin +2 2>/dev/null)" ]; then
		return 0
	fi
	rm -rf "$lock"
	return 1
}

fetch() { # url file
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --connect-timeout 15 --retry 2 --max-time 900 -o "$2" "$1" 2>&1
	elif command -v wget >/dev/null 2>&1; then
		wget -q -T 30 -t 3 -O "$2" "$1" 2>&1
	else
		echo "neither curl nor wget is installed"
		return 1
	fi
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d ' ' -f 1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d ' ' -f 1
	else
		return 1
	fi
}

fail() {
	printf '%s\n' "$*" >"$state/error"
	echo "vibe bootstrap: $*" >&2
	exit 1
}

# install [--locked]: --locked when the hook that started it holds the lock.
install() {
	mkdir -p "$state" 2>/dev/null || {
		echo "vibe bootstrap: cannot write $root; install vibe from source (docs/install.md)" >&2
		exit 1
	}
	if [ "${1:-}" != --locked ]; then
		if locked || ! mkdir "$lock" 2>/dev/null; then
			echo "vibe bootstrap: another install is running (pid $(cat "$lock/pid" 2>/dev/null)); wait for it" >&2
			exit 1
		fi
	fi
	echo $$ >"$lock/pid"
	tmp=
	trap 'rm -rf "$lock" ${tmp:+"$tmp"}' EXIT
	trap 'exit 1' HUP INT TERM
	complete && {
		rm -f "$state/error"
		exit 0
	}
	checkout && fail "$root is a git checkout: run \`make build\` there (docs/install.md)"
	describe
	[ -n "$version" ] || fail "no version in $root/.claude-plugin/plugin.json"
	case $os/$arch in
	linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64) ;;
	*) fail "no release archive for $os/$arch; build vibe from source (docs/install.md)" ;;
	esac
	tmp=$(mktemp -d "$state/tmp.XXXXXX") || fail "cannot make a temporary folder in $state"
	echo "vibe bootstrap: downloading $url"
	out=$(fetch "$sums" "$tmp/checksums.txt") || fail "could not download $sums: $out"
	out=$(fetch "$url" "$tmp/$archive") || fail "could not download $url: $out"
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")
	[ -n "$want" ] || fail "$sums has no line for $archive"
	got=$(sha256 "$tmp/$archive") || fail "neither sha256sum nor shasum is installed, so the download cannot be checked"
	[ "$got" = "$want" ] || fail "$archive has SHA-256 $got, but checksums.txt says $want: the download is corrupt or was changed; nothing was installed"
	bad=$(unsafe "$tmp/$archive" | head -n 1)
	[ -z "$bad" ] || fail "$archive holds a link or a name outside its folder ($bad): a release holds only plain files and folders; nothing was installed"
	mkdir "$tmp/x" && out=$(tar -xzof "$tmp/$archive" -C "$tmp/x" 2>&1) || fail "could not unpack $archive: $out"
	bad=$(find "$tmp/x" ! -type f ! -type d -print -o -type f -links +1 -print | head -n 1)
	[ -z "$bad" ] || fail "$archive holds a link or a name outside its folder (${bad#"$tmp/x/"}): a release holds only plain files and folders; nothing was installed"
	for n in $binaries; do
		[ -f "$tmp/x/bin/$n" ] || fail "$archive lacks bin/$n"
		chmod 755 "$tmp/x/bin/$n"
	done
	out=$("$tmp/x/bin/vibe" version </dev/null 2>&1) || fail "the downloaded vibe does not run on this system: $out"
	if [ -e "$root/bin" ]; then
		mv "$root/bin" "$tmp/old-bin" || fail "cannot move the incomplete $root/bin aside"
	fi
	mv "$tmp/x/bin" "$root/bin" || fail "cannot move the binaries into $root/bin"
	settle
	rm -f "$state/error"
	echo "vibe bootstrap: installed $(printf '%s\n' "$out" | head -n 1) into $root/bin"
}

# direct: hooks.json as the client runs it once bin/ is complete, each
# hook.sh line naming its binary instead: hook.sh costs a shell's start-up
# on every hook (docs/install.md).
direct() {
	sed 's|"${CLAUDE_PLUGIN_ROOT}/plugin/hook.sh", *"args": *\["\(vibe-[a-z-]*\)"\]|"${CLAUDE_PLUGIN_ROOT}/bin/\1", "args": []|g' "$root/hooks.json"
}

# settle: from the next session on, the client runs each binary itself:
# direct's hooks.json replaces the plugin's own, in a copy that is not a git
# checkout (whose hooks.json is the repository's) and whose bin/ is
# complete. .vibe-install/direct records that it is done, so hook.sh looks
# for it with a test of its own and runs this once.
settle() {
	checkout && return 0
	if ! complete; then
		# A linked binary is replaced by the release's own (see sound).
		linked && start
		return 1
	fi
	mkdir -p "$state" 2>/dev/null || return 1
	_t=$(mktemp "$state/hooks.XXXXXX") || return 1
	if direct >"$_t" && mv "$_t" "$root/hooks.json"; then
		: >"$state/direct"
		return 0
	fi
	rm -f "$_t"
	return 1
}

# start: start an install in the background unless one runs; the hook
# holds the lock for it until the install writes its own pid.
start() {
	mkdir -p "$state" 2>/dev/null || return 1
	locked && return 0
	mkdir "$lock" 2>/dev/null || return 0
	if command -v setsid >/dev/null 2>&1; then
		setsid /bin/sh "$self" install --locked </dev/null >>"$state/log" 2>&1 &
	else
		/bin/sh "$self" install --locked </dev/null >>"$state/log" 2>&1 &
	fi
	echo $! >"$lock/pid"
}

# wait_install SECONDS: until no install runs (it ends after the rename and
# the rewrite of hooks.json) or the time is up.
wait_install() {
	_ticks=$(($1 * 5))
	while [ "$_ticks" -gt 0 ] && locked; do
		sleep 0.2 2>/dev/null || sleep 1
		_ticks=$((_ticks - 1))
	done
}

# field NAME: the hook input's string field NAME (the last one: an escaped
# quote in a value never matches), empty when missing or escaped.
field() {
	printf '%s' "$in" | sed -n 's/.*"'"$1"'"[[:space:]]*:[[:space:]]*"\([^"\\]*\)".*/\1/p' | head -n 1
}

json() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037'; }

# status: why the binaries are missing and how to get them.
status() {
	if linked; then
		fix="run \`sh $root/plugin/bootstrap.sh install\` to replace it, or start a new session"
		checkout && fix="delete $root/bin and run \`make build\` in $root"
		echo "$root/bin holds a hook binary that is a link (a symlink, or a file with another name someone could write), which vibe does not run; $fix"
	elif checkout; then
		echo "this is a git checkout that is not built: run \`make build\` in $root"
	elif locked; then
		echo "the download of vibe's release is still running; the hooks judge every call once it is done"
	elif [ -s "$state/error" ]; then
		echo "installing vibe's release failed: $(head -n 1 "$state/error"). Fix that, then run \`sh $root/plugin/bootstrap.sh install\` or start a new session"
	else
		echo "run \`sh $root/plugin/bootstrap.sh install\` or start a new session"
	fi
}

# optedin DIR: DIR or a folder above it holds a .vibe-science folder that
# is neither vibe's home nor a home left behind (internal/vibehome OptedIn).
optedin() {
	d=$1
	vh=${VIBE_HOME:-${HOME:-/nonexistent}/.vibe-science}
	while [ -n "$d" ]; do
		if [ "$d/.vibe-science" != "$vh" ] && [ -d "$d/.vibe-science" ] && [ ! -d "$d/.vibe-science/db" ]; then
			return 0
		fi
		[ "$d" = / ] && return 1
		d=${d%/*}
		[ -n "$d" ] || d=/
	done
	return 1
}

# physical PATH: PATH through the symlinks of its deepest existing folder.
physical() {
	p=$1
	rest=
	while [ ! -d "$p" ]; do
		rest=/${p##*/}$rest
		p=${p%/*}
		[ -n "$p" ] || p=/
	done
	d=$(cd "$p" 2>/dev/null && pwd -P) || return 1
	printf '%s%s\n' "${d%/}" "$rest"
}

reply() { # decision reason
	printf '{"hookSpecificOutput":{"hookEventName":"%s","permissionDecision":"%s","permissionDecisionReason":"%s"}}\n' \
		"$event" "$1" "$(json "$2")"
}

# judge: PreToolUse without the binary.
judge() {
	cwd=$(field cwd)
	tool=$(field tool_name)
	path=$(field file_path)
	[ -n "$path" ] || path=$(field notebook_path)
	case $path in
	"" | /*) ;;
	*) path=$cwd/$path ;;
	esac
	optedin "${CLAUDE_PROJECT_DIR:-/nonexistent}" || optedin "${cwd:-/nonexistent}" ||
		{ [ -n "$path" ] && optedin "$(physical "${path%/*}" 2>/dev/null || echo "${path%/*}")"; } ||
		exit 0
	why="vibe cannot judge this call: its binaries are not installed in $root/bin yet ($(status))"
	case $event:$tool in
	PreToolUse:Write | PreToolUse:Edit | PreToolUse:MultiEdit | PreToolUse:NotebookEdit) ;;
	*)
		reply ask "$why. Allow it only if it leaves the claim ledger, reviews, raw data and vibe's configuration alone."
		exit 0
		;;
	esac
	if [ -z "$path" ] || [ -L "$path" ] || printf '%s' "$path" | LC_ALL=C grep -q '[^ -~]'; then
		reply ask "$why, and it cannot tell which file this writes. Allow it only if the file is not protected."
		exit 0
	fi
	case /$path/ in
	*/../* | */./*)
		reply ask "$why, and it cannot tell which file $path is. Allow it only if the file is not protected."
		exit 0
		;;
	esac
	real=$(physical "$path") || real=$path
	lower=$(printf '%s' "$real" | LC_ALL=C tr '[:upper:]' '[:lower:]')
	rootl=$(printf '%s' "$root" | LC_ALL=C tr '[:upper:]' '[:lower:]')
	vhl=$(printf '%s' "${VIBE_HOME:-${HOME:-/nonexistent}/.vibe-science}" | LC_ALL=C tr '[:upper:]' '[:lower:]')
	what=
	case $lower in
	*/claim-ledger.md*) what="the claim ledger" ;;
	*/serendipity.md*) what="the serendipity log" ;;
	*/05-reviewer2 | */05-reviewer2/*) what="a review report" ;;
	*/02-data/raw/* | */data/raw/*) what="raw data" ;;
	*/.claude/* | */.claude.json | */.mcp.json) what="the agent's configuration" ;;
	"$rootl" | "$rootl"/*) what="vibe's plugin folder" ;;
	"$vhl" | "$vhl"/*) what="vibe's home" ;;
	*/.vibe-science/*)
		# The project's configuration: .vibe-science/*.json and schemas/,
		# not the research folders next to them.
		case ${lower##*/.vibe-science/} in
		schemas | schemas/*) what="vibe's configuration" ;;
		*/*) ;;
		*.json) what="vibe's configuration" ;;
		esac
		;;
	esac
	if [ -n "$what" ]; then
		reply deny "vibe refused this write to $path ($what): its binaries are not installed in $root/bin yet, so it cannot check the write, and protected files are not written unchecked ($(status)). Write other files meanwhile."
	fi
	exit 0
}

hook() {
	name=${1:?usage: bootstrap.sh hook BINARY [ARGS...]}
	shift
	bin=$root/bin/$name
	in=$(cat)
	event=$(field hook_event_name)
	if [ -e "$bin" ] && ! [ -x "$bin" ] && ! linked; then
		echo "vibe: $bin is not executable; run \`chmod +x $bin\` or reinstall with \`sh $root/plugin/bootstrap.sh install\`" >&2
		exit 2
	fi
	budget=${VIBE_BOOTSTRAP_WAIT:-20}
	case $event in
	SessionStart | Setup)
		checkout || start
		wait_install "$budget"
		;;
	PreToolUse | PreSkillShellCommand)
		checkout || [ -s "$state/error" ] || start
		wait_install "$budget"
		;;
	SessionEnd) ;;
	*) checkout || [ -s "$state/error" ] || start ;;
	esac
	if sound "$bin"; then
		exec "$bin" "$@" <<EOF
$in
EOF
	fi
	case $event in
	PreToolUse | PreSkillShellCommand) judge ;;
	SessionStart | Setup)
		msg="vibe is not active yet: its binaries are not installed in $root/bin ($(status))."
		printf '{"systemMessage":"%s","hookSpecificOutput":{"hookEventName":"%s","additionalContext":"%s"}}\n' \
			"$(json "$msg")" "$event" "$(json "$msg Until they are, vibe refuses writes to the claim ledger, reviews, raw data and vibe's configuration, and asks before shell commands in vibe projects.")"
		;;
	esac
	exit 0
}

case ${1:-} in
install)
	shift
	install "$@"
	;;
hooks)
	direct
	;;
settle)
	settle
	;;
info)
	describe
	printf 'version %s\nplatform %s/%s\narchive %s\nchecksums %s\nbin %s\n' "$version" "$os" "$arch" "$url" "$sums" "$root/bin"
	;;
hook)
	shift
	hook "$@"
	;;
*)
	echo "usage: bootstrap.sh install | info | hooks | settle | hook BINARY" >&2
	exit 2
	;;
esac
