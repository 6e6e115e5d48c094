package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// FinishTree gives every command of the tree the same habits, so that no
// command has to remember them: a mistyped subcommand at any level is a
// usage error with a suggestion (cobra only does this at the top level and
// otherwise prints the group's help with status 0, so a CI job running
// `vibe gate chek` went green), argument errors are usage errors that name
// the missing argument, and `help` refuses topics it does not know. A help
// topic with topics under it (formats) stays a topic.
func FinishTree(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.SuggestionsMinimumDistance = 2
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil && !c.IsAdditionalHelpTopicCommand() {
			c.Args = cobra.ArbitraryArgs
			c.RunE = runGroup
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[groupAnnotation] = "true"
		} else {
			c.Args = usageArgs(c.Args)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	root.SetHelpCommand(newHelpCmd())
}

// groupAnnotation marks the commands FinishTree made groups.
const groupAnnotation = "vibe-group"

// unknownWithHelp is the usage error of `vibe gate chek --help`: cobra
// answers a help flag before it looks at the arguments, so a mistyped
// subcommand with --help printed the group's help with status 0, as if
// the command existed. Nil for any other command line.
func unknownWithHelp(root *cobra.Command, args []string) error {
	if !slices.Contains(args, "--help") && !slices.Contains(args, "-h") {
		return nil
	}
	c, rest, err := root.Find(args)
	if err != nil || c.Annotations[groupAnnotation] == "" {
		return nil
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			return unknownCommand(c, a)
		}
	}
	return nil
}

// runGroup runs a command that only groups others: without arguments it
// shows its help, with one it reports the unknown subcommand.
func runGroup(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	return unknownCommand(c, args[0])
}

func unknownCommand(c *cobra.Command, name string) error {
	if c.IsAdditionalHelpTopicCommand() && c.HasSubCommands() {
		var topics []string
		for _, sub := range c.Commands() {
			topics = append(topics, sub.Name())
		}
		msg := fmt.Sprintf("no topic %q in `vibe help %s`", name, c.Name())
		if s := Nearest(name, topics); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		msg += "\nRun 'vibe help " + c.Name() + "' for the list."
		return &UsageError{Err: fmt.Errorf("%s", msg)}
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	} else {
		msg += "\nRun '" + c.CommandPath() + " --help' for the list of commands."
	}
	return &UsageError{Err: fmt.Errorf("%s", msg)}
}

// usageArgs wraps a command's argument check: its failure becomes a usage
// error that says what was expected, in the words of the command's Use line.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(c *cobra.Command, args []string) error {
		if check(c, args) == nil {
			return nil
		}
		names, optional := argNames(c.Use)
		usage := "Usage: " + c.CommandPath()
		if i := strings.IndexByte(c.Use, ' '); i > 0 {
			usage += c.Use[i:]
		}
		all := append(append([]string{}, names...), optional...)
		noun := "arguments"
		if len(all) == 1 {
			noun = "argument"
		}
		switch {
		case len(all) == 0:
			return &UsageError{Err: fmt.Errorf("%q takes no arguments, got %s\n%s", c.CommandPath(), quoteAll(args), usage)}
		case len(args) < len(names):
			return &UsageError{Err: fmt.Errorf("missing %s\n%s", strings.Join(names[len(args):], " "), usage)}
		case len(optional) > 0:
			return &UsageError{Err: fmt.Errorf("%q takes at most %d %s (%s), got %d: %s\n%s",
				c.CommandPath(), len(all), noun, strings.Join(all, " "), len(args), quoteAll(args), usage)}
		default:
			return &UsageError{Err: fmt.Errorf("%q takes %d %s (%s), got %d: %s\n%s",
				c.CommandPath(), len(all), noun, strings.Join(all, " "), len(args), quoteAll(args), usage)}
		}
	}
}

// argNames are the arguments a Use line names after the command's name,
// up to its first flag: the upper-case words ("resolve ID" → ID, "import
// FILE.jsonl" → FILE.jsonl) are required, those in brackets optional ("pull
// [name]" → [name]).
func argNames(use string) (required, optional []string) {
	for _, w := range strings.Fields(use)[1:] {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "(") {
			break
		}
		if strings.HasPrefix(w, "[") {
			optional = append(optional, w)
			continue
		}
		stem, _, _ := strings.Cut(strings.TrimSuffix(w, "..."), ".")
		if stem == strings.ToUpper(stem) && strings.ToLower(stem) != stem {
			required = append(required, strings.TrimSuffix(w, "..."))
		}
	}
	return required, optional
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}

// newHelpCmd is `vibe help [command]`; unlike cobra's, an unknown topic is
// an error with a suggestion, not the top-level help with status 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command; also: vibe help environment, vibe help exit-codes",
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			if len(args) == 0 {
				return root.Help()
			}
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil {
				return unknownCommand(root, args[0])
			}
			if len(rest) > 0 {
				return unknownCommand(cmd, rest[0])
			}
			return cmd.Help()
		},
	}
}
