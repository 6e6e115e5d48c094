package tamper

import (
	"encoding/json"
	"reflect"
)

// claudeLocalSettings is the file Claude Code itself writes when the user
// answers a permission prompt with "don't ask again" (it adds a rule under
// "permissions"). That write is no tool call, so it would be charged to the
// next one and undone; a change limited to "permissions" is accepted. Any
// other change (hooks, disableAllHooks, env) is judged like the rest of
// .claude/.
const claudeLocalSettings = ".claude/settings.local.json"

// onlyPermissionsChanged reports whether two versions of a Claude Code
// settings file differ in their "permissions" object alone.
func onlyPermissionsChanged(old, cur []byte) bool {
	var a, b map[string]any
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(cur, &b) != nil || a == nil || b == nil {
		return false
	}
	delete(a, "permissions")
	delete(b, "permissions")
	return reflect.DeepEqual(a, b)
}
