package permissions

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
)

// NewCmdPermissions builds `vibe permissions show|check`.
func NewCmdPermissions(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "permissions", Short: "Show the role and path policy, and explain a decision"}
	cmd.AddCommand(NewCmdPermissionsShow(f, nil), NewCmdPermissionsCheck(f, nil))
	return cmd
}

// PermissionsShowOptions are the flags of `vibe permissions show`.
type PermissionsShowOptions struct {
	IO          cli.IO
	FindProject func(dir string) (project.Project, error)

	Project string
}

// NewCmdPermissionsShow builds `vibe permissions show`.
func NewCmdPermissionsShow(f *cli.Factory, runF func(*PermissionsShowOptions) error) *cobra.Command {
	opts := &PermissionsShowOptions{IO: f.IO, FindProject: f.FindProject}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the effective policy (the shipped default merged with .vibe-science/permissions.json) as JSON",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runPermissionsShow(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	return cmd
}

func runPermissionsShow(o *PermissionsShowOptions) error {
	proj, err := o.FindProject(o.Project)
	if err != nil {
		return err
	}
	p, err := permission.Load(proj.Root)
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, string(raw))
	return nil
}

// PermissionsCheckOptions are the flags of `vibe permissions check`.
type PermissionsCheckOptions struct {
	IO          cli.IO
	FindProject func(dir string) (project.Project, error)

	Project string
	Role    string
	Agent   string
	Tool    string
	Path    string
	Command string
	JSON    bool
}

// NewCmdPermissionsCheck builds `vibe permissions check`.
func NewCmdPermissionsCheck(f *cli.Factory, runF func(*PermissionsCheckOptions) error) *cobra.Command {
	opts := &PermissionsCheckOptions{IO: f.IO, FindProject: f.FindProject}
	cmd := &cobra.Command{
		Use:   "check --role R --tool T (--path P | --command \"…\")",
		Short: "Explain whether a role may make a tool call, and which rule decides",
		Example: `  vibe permissions check --role reviewer2 --tool Write --path CLAIM-LEDGER.md
  vibe permissions check --role researcher --tool Bash --command "echo x >> 05-reviewer2/r.md"`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if opts.Path == "" && opts.Command == "" {
				return &cli.UsageError{Err: fmt.Errorf("give --path or --command")}
			}
			if opts.Role == "" && opts.Agent == "" {
				return &cli.UsageError{Err: fmt.Errorf("give --role (or --agent-type as Claude Code sends it)")}
			}
			if runF != nil {
				return runF(opts)
			}
			return runPermissionsCheck(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Project, "project", "", "project folder (default: the current one)")
	fl.StringVar(&opts.Role, "role", "", "role: researcher, lead, reviewer2, judge, serendipity, experimenter")
	fl.StringVar(&opts.Agent, "agent-type", "", "agent_type as Claude Code sends it, e.g. vibe:reviewer2 (instead of --role)")
	fl.StringVar(&opts.Tool, "tool", "Write", "tool name: Write, Edit, Bash, …")
	fl.StringVar(&opts.Path, "path", "", "file the tool would write")
	fl.StringVar(&opts.Command, "command", "", "shell command (for --tool Bash)")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runPermissionsCheck(o *PermissionsCheckOptions) error {
	proj, err := o.FindProject(o.Project)
	if err != nil {
		return err
	}
	p, err := permission.Load(proj.Root)
	if err != nil {
		return err
	}
	role, err := knownRole(p, o.Role)
	if err != nil {
		return err
	}
	if plugin, name, ok := strings.Cut(o.Agent, ":"); ok && strings.EqualFold(plugin, p.Config().Plugin) {
		// vibe's own agents name a role; a typo would be the guest role.
		if _, err := knownRole(p, name); err != nil {
			return &cli.UsageError{Err: fmt.Errorf("--agent-type %q%s", o.Agent, strings.TrimPrefix(err.Error(), fmt.Sprintf("--role %q", name)))}
		}
	}
	input := map[string]string{}
	tool := o.Tool
	if o.Command != "" {
		if tool == "Write" {
			tool = "Bash"
		}
		input["command"] = o.Command
	} else {
		input["file_path"] = o.Path
		input["content"] = ""
		input["old_string"], input["new_string"] = "x", "y"
	}
	raw, _ := json.Marshal(input)
	cwd, _ := os.Getwd()
	req := permission.Request{ProjectRoot: proj.Root, Cwd: cwd, AgentType: o.Agent, ToolName: tool, ToolInput: raw, Role: role}
	if tool == "Bash" {
		req.Compute = permission.ComputeAllowance(proj.Root) // as PreToolUse judges it
	}
	d := p.Check(req)
	steps := p.Explain(req)
	if o.JSON {
		return cli.WriteJSON(o.IO.Out, map[string]any{"decision": string(d.Action), "role": d.Role, "rule": d.Rule,
			"reason": d.Reason, "paths": d.Paths, "explain": steps, "policy_file": permission.ProjectFile, "policy_key": policyKey(d.Rule)})
	}
	fmt.Fprintf(o.IO.Out, "%s: %s (rule %s)\n", strings.ToUpper(string(d.Action)), d.Role, cli.OrDash(d.Rule))
	if d.Reason != "" {
		fmt.Fprintln(o.IO.Out, d.Reason)
	}
	fmt.Fprintln(o.IO.Out, "\nrules considered:")
	for _, s := range steps {
		fmt.Fprintln(o.IO.Out, "  "+s)
	}
	if d.Action != permission.Allow {
		if key := policyKey(d.Rule); key != "" {
			if !strings.HasPrefix(key, "the ") {
				key = "the key " + key
			}
			fmt.Fprintf(o.IO.Out, "\nto change it: in %s, %s (`vibe permissions show` prints the policy in force)\n",
				permission.ProjectFile, key)
		}
	}
	if d.Action == permission.Deny {
		return fmt.Errorf("denied")
	}
	return nil
}

// policyKey is where in permissions.json the rule that decided lives, as a
// path of JSON keys ("" when the rule is no key of the file: an allow, a
// built-in limit). The project's .vibe-science/permissions.json overrides
// the shipped policy key by key.
func policyKey(rule string) string {
	q := func(parts ...string) string {
		for i, p := range parts {
			parts[i] = `"` + p + `"`
		}
		return strings.Join(parts, " → ")
	}
	head, rest, _ := strings.Cut(rule, ".")
	switch {
	case head == "read-only":
		return q("read_only", rest)
	case head == "approval":
		return q("approval", rest)
	case strings.HasPrefix(rest, "deny."):
		return fmt.Sprintf(`the %s entry with "id": %q`, q("roles", head, "deny"), strings.TrimPrefix(rest, "deny."))
	case rest == "tools":
		return q("roles", head, "tools")
	case rest == "bash.programs", rest == "bash.write":
		b, k, _ := strings.Cut(rest, ".")
		return q("roles", head, b, k)
	case rest == "write-only":
		return q("roles", head, "write_only")
	case rest == "outside-root":
		return q("outside_root", "allow") + " (or " + q("roles", head, "outside_root") + ")"
	}
	return ""
}

// knownRole is the policy's name for --role (any letter case, or one of
// the policy's aliases such as r2), and refuses a role the policy does not
// define: the policy would treat it as the default (guest) role, so a typo
// answered ALLOW silently.
func knownRole(p *permission.Policy, role string) (string, error) {
	if role == "" {
		return "", nil
	}
	roles := p.Roles()
	aliasMap := p.Config().Aliases
	aliases := cli.SortedKeysOf(aliasMap)
	r := strings.ToLower(strings.TrimSpace(role))
	for _, k := range roles {
		if strings.ToLower(k) == r {
			return k, nil
		}
	}
	for _, k := range aliases {
		if strings.ToLower(k) == r {
			return aliasMap[k], nil
		}
	}
	msg := fmt.Sprintf("--role %q: no such role", role)
	if s := cli.Nearest(role, append(roles, aliases...)); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	msg += "\nRoles: " + strings.Join(roles, ", ")
	if len(aliases) > 0 {
		msg += " (aliases: " + strings.Join(aliases, ", ") + ")"
	}
	return "", &cli.UsageError{Err: fmt.Errorf("%s", msg)}
}
