package tamper

import "strings"

// SetBriefPrefix starts the set name of a file a Critical brief constraint
// protects ("brief.BC-001"): no role changes it, whatever the policy says.
const SetBriefPrefix = "brief."

// briefSet reports whether set is a brief constraint's.
func briefSet(set string) (string, bool) { return set, strings.HasPrefix(set, SetBriefPrefix) }
