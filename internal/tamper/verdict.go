package tamper

import (
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/verdict"
)

// CheckName is the check name of tamper verdicts.
const CheckName = "tamper"

// Who names the actor of a call for messages.
func Who(agentType string) string {
	if agentType == "" {
		return "the main thread"
	}
	return agentType
}

// Verdicts turns a report into verdicts: one BLOCK (HIGH) per change that
// was undone or could not be, naming the file, the role, the call and what
// was restored; an accepted domain-config change passes on its drift
// verdict (a WARN). result is the result of the blocking ones (Stop passes
// Warn while its block is already active, so a file that keeps changing
// cannot hold the turn open forever).
func Verdicts(rep Report, c Call, result verdict.Result) []verdict.Verdict {
	p, role := rep.Policy, rep.Role
	if p == nil {
		p = permission.Default()
		role = p.RoleFor(c.AgentType, p.TeamMode())
	}
	call := "at the end of the turn"
	if c.Tool != "" {
		call = "during " + c.Tool
		if c.ToolUseID != "" {
			call += " " + c.ToolUseID
		}
	}
	var out []verdict.Verdict
	for _, f := range rep.Findings {
		if f.Outcome == Accepted {
			if f.Drift != nil {
				out = append(out, *f.Drift)
			}
			if f.Veto != nil && f.Veto.Result != verdict.Pass {
				out = append(out, *f.Veto)
			}
			continue
		}
		if f.Outcome == External {
			out = append(out, externalVerdict(p, f))
			continue
		}
		who, role, call := Who(c.AgentType), role, call
		if f.ByTool != "" {
			// A change found after its call returned, charged to that call.
			who, role = Who(f.ByAgent), p.RoleFor(f.ByAgent, p.TeamMode())
			call = "during " + f.ByTool + " " + f.ByID
		}
		what := describeSet(p, f.Set)
		if f.Folder {
			what = "a folder of " + what
		}
		if f.Meta != "" {
			what += ", " + f.Meta
		}
		var reason, rec string
		why := fmt.Sprintf("which the %s role may not %s", role, verbFor(f.Change))
		if f.Rule != "" {
			why += " (rule " + f.Rule + ")"
		}
		if f.Drift != nil {
			why = "loosening its thresholds past the drift cap: " + strings.TrimSuffix(f.Drift.Reason, ".")
			if f.Drift.Check == permission.ComputeAllowanceCheck {
				why = "and " + strings.TrimSuffix(f.Drift.Reason, ".")
			}
		}
		if f.Veto != nil {
			why = "and " + strings.TrimSuffix(f.Veto.Reason, ".")
		}
		switch f.Outcome {
		case Restored:
			reason = fmt.Sprintf("%s %s %s (%s) %s, %s. vibe restored it from its snapshot (%d bytes, sha256 %s).",
				who, f.Change, f.Path, what, call, why, f.Size, short(f.Sum))
			switch {
			case f.Link != "":
				reason = fmt.Sprintf("%s changed the link %s (%s, kept in %s) %s, %s. vibe put the link back.",
					who, f.Path, what, f.Link, call, why)
			case f.Folder && f.Change == Deleted:
				reason = fmt.Sprintf("%s deleted the folder %s (%s) %s, %s. vibe made it again with its mode and owner.",
					who, f.Path, what, call, why)
			case f.Change == ModeChanged:
				reason = fmt.Sprintf("%s changed the mode or owner of %s (%s) %s, %s. vibe put them back.",
					who, f.Path, what, call, why)
			case f.Change == Deleted:
				reason = fmt.Sprintf("%s deleted %s (%s) %s, %s. vibe recreated it from its snapshot (%d bytes, sha256 %s).",
					who, f.Path, what, call, why, f.Size, short(f.Sum))
			}
			if f.Quarantine != "" {
				reason += " The changed version was moved to " + f.Quarantine + "."
			}
			rec = fmt.Sprintf("Leave %s as restored; %s", f.Path, instead(f))
		case Quarantined:
			reason = fmt.Sprintf("%s created %s (%s) %s, %s. vibe moved it to %s.",
				who, f.Path, what, call, why, f.Quarantine)
			rec = instead(f)
		default:
			err := "it could not be undone"
			if f.Err != nil {
				err = f.Err.Error()
			}
			reason = fmt.Sprintf("%s %s %s (%s) %s, %s. vibe could not restore it: %s.",
				who, f.Change, f.Path, what, call, why, strings.TrimSuffix(err, "."))
			if f.Sum != "" {
				rec = fmt.Sprintf("Restore %s from your own copy or version control (its snapshot had %d bytes, sha256 %s) and leave it unchanged.",
					f.Path, f.Size, f.Sum)
			} else {
				rec = fmt.Sprintf("Remove or restore %s by hand; %s", f.Path, instead(f))
			}
		}
		switch {
		case f.Outcome == Restored && f.Change == Deleted:
			rec += fmt.Sprintf(" If the user deleted it on purpose, they can delete it again and run `vibe tamper accept %s` themselves.", f.Path)
		case f.Quarantine != "" && f.Veto == nil: // a vetoed change is fixed as the veto says
			rec += fmt.Sprintf(" If the user made this change outside Claude Code, they can move %s back to %s and run `vibe tamper accept %s` themselves.",
				f.Quarantine, f.Path, f.Path)
		}
		tool, id := c.Tool, c.ToolUseID
		if f.ByTool != "" {
			tool, id = f.ByTool, f.ByID
		}
		input := map[string]any{"path": f.Path, "change": f.Change, "outcome": f.Outcome, "role": role,
			"tool": tool, "tool_use_id": id, "set": f.Set, "sha256": f.Sum}
		v := verdict.New(CheckName, result, verdict.High, reason, input)
		v.Recommendation = rec
		v.Evidence.Paths = []string{f.Path}
		if f.Veto != nil {
			v.Evidence.Claims = f.Veto.Evidence.Claims
		}
		if f.Quarantine != "" {
			v.Evidence.Paths = append(v.Evidence.Paths, f.Quarantine)
		}
		if f.Rule != "" {
			v.Evidence.Notes = []string{"rule " + f.Rule}
		}
		out = append(out, v)
	}
	return out
}

// externalVerdict is the one WARN of a change made outside any call: kept
// as it is, the person decides.
func externalVerdict(p *permission.Policy, f Finding) verdict.Verdict {
	what := describeSet(p, f.Set)
	if f.Folder {
		what = "a folder of " + what
	}
	if f.Meta != "" {
		what += ", " + f.Meta
	}
	reason := fmt.Sprintf("%s was %s outside any tool call (%s): no call's time on disk explains the change, so a person or another program made it. vibe keeps it as it is and does not restore it.",
		f.Path, f.Change, what)
	v := verdict.New(CheckName, verdict.Warn, verdict.Med, reason,
		map[string]any{"path": f.Path, "change": f.Change, "outcome": f.Outcome, "set": f.Set})
	v.Recommendation = fmt.Sprintf("Leave %s as it is; the user keeps the change with `vibe tamper accept %s` or puts the earlier version back with `vibe tamper restore %s`.",
		f.Path, f.Path, f.Path)
	v.Evidence.Paths = []string{f.Path}
	return v
}

func verbFor(change string) string {
	switch change {
	case Deleted:
		return "delete"
	case Created:
		return "create"
	}
	return "change"
}

func describeSet(p *permission.Policy, set string) string {
	if set == SetDomainConfig {
		return "the domain config"
	}
	return p.SetDescription(set)
}

func instead(f Finding) string {
	if f.Instead != "" {
		return f.Instead
	}
	return "make the change through the role that owns the file."
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
