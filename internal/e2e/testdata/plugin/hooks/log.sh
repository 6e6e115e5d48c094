#!/bin/sh
# log.sh EVENT: records the hook input for the E2E harness tests, then makes
# the decisions those tests assert. E2E_HOOK_LOG is the directory to log to.
# One file per call, named by a nanosecond timestamp so the names sort in
# firing order.
ev="$1"
in=$(cat)
f=$(mktemp "$E2E_HOOK_LOG/$(date +%s%N)-$ev-XXXXXX") || exit 1
printf '%s\n' "$in" >"$f"
case "$ev" in
SessionStart)
	printf '%s' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"E2E-SESSION-MARKER"}}'
	;;
PreToolUse)
	case "$in" in
	*DENIED.txt*)
		printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"E2E-DENY-MARKER DENIED.txt is protected"}}'
		;;
	esac
	;;
Stop)
	case "$in" in
	*'"stop_hook_active":false'*)
		printf '%s' '{"decision":"block","reason":"E2E-STOP-MARKER finish the review first"}'
		;;
	esac
	;;
esac
exit 0
