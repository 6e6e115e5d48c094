package permission

import "strings"

// Guarded reports whether the project-relative file rel lies in one of the
// policy's protected sets or read-only sets, and which: the protected set's
// id ("ledger", "agent-config") or "read-only." plus the read-only set's id
// ("read-only.raw-data"). Tamper detection (internal/tamper) keeps snapshots
// of exactly these files.
func (p *Policy) Guarded(rel string) (set string, ok bool) {
	return p.guarded(foldPath(strings.TrimPrefix(toSlash(rel), "./")))
}

// GuardedFolder reports whether every file inside the project-relative
// folder rel is guarded (the folder lies in a protected tree such as
// 05-reviewer2/ or 02-data/raw/), and which set.
func (p *Policy) GuardedFolder(rel string) (set string, ok bool) {
	return p.guarded(join2(foldPath(strings.TrimPrefix(toSlash(rel), "./")), probe))
}

func (p *Policy) guarded(folded string) (string, bool) {
	for _, s := range p.protected {
		if s.set.match(folded) {
			return s.id, true
		}
	}
	for _, s := range p.readOnly {
		if s.set.match(folded) {
			return "read-only." + s.id, true
		}
	}
	return "", false
}

// SetDescription is the description of a protected or read-only set as
// Guarded names it ("the claim ledger"), or the id when it has none.
func (p *Policy) SetDescription(set string) string {
	list, id := p.protected, set
	if strings.HasPrefix(set, "read-only.") {
		list, id = p.readOnly, strings.TrimPrefix(set, "read-only.")
	}
	for _, s := range list {
		if s.id == id && s.desc != "" {
			return s.desc
		}
	}
	return set
}

// WriteAction is what the policy answers when role writes the
// project-relative file rel, with the deciding rule and what the role may
// do instead: Deny, Ask (the user's approval) or Allow. An unknown role is
// the default one. It judges the path only, not the tool or the command.
func (p *Policy) WriteAction(role, rel string) (action Action, rule, instead string) {
	r := p.roles[strings.ToLower(role)]
	if r == nil {
		r = p.roles[p.defaultRole]
	}
	rel = strings.TrimPrefix(toSlash(rel), "./")
	t := target{rel: rel, folded: foldPath(rel), outside: isAbs(rel), kind: kindFile}
	o := p.judgePath(r, r.name, t, nil)
	return o.action, o.rule, o.instead
}
