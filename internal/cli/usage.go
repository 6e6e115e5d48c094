package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// finishTree gives every command of the tree the same habits, so that no
// command has to remember them: a mistyped subcommand at any level is a
// usage error with a suggestion (cobra only does this at the top level and
// otherwise prints the group's help with status 0, so a CI job running
// `vibe gate chek` went green), argument errors are usage errors that name
// the missing argument, and `help` refuses topics it does not know.
func finishTree(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.SuggestionsMinimumDistance = 2
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
			c.Args = cobra.ArbitraryArgs
			c.RunE = runGroup
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

// runGroup runs a command that only groups others: without arguments it
// shows its help, with one it reports the unknown subcommand.
func runGroup(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	return unknownCommand(c, args[0])
}

func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	} else {
		msg += "\nRun '" + c.CommandPath() + " --help' for the list of commands."
	}
	return &usageError{fmt.Errorf("%s", msg)}
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
			return &usageError{fmt.Errorf("%q takes no arguments, got %s\n%s", c.CommandPath(), quoteAll(args), usage)}
		case len(args) < len(names):
			return &usageError{fmt.Errorf("missing %s\n%s", strings.Join(names[len(args):], " "), usage)}
		case len(optional) > 0:
			return &usageError{fmt.Errorf("%q takes at most %d %s (%s), got %d: %s\n%s",
				c.CommandPath(), len(all), noun, strings.Join(all, " "), len(args), quoteAll(args), usage)}
		default:
			return &usageError{fmt.Errorf("%q takes %d %s (%s), got %d: %s\n%s",
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

// exitCodesHelp is `vibe help exit-codes`; ExitCode implements it.
const exitCodesHelp = `vibe's exit codes are the same for every command:

  0  success: the command did what was asked; a check found nothing that fails
  1  a check failed (a gate, doctor, a validation, bad lines in an import) or
     the command could not finish (a database or file error); stderr says which
  2  usage: an unknown command or flag, a missing or extra argument, a bad flag
     value, or a project command run outside a vibe project

A CI job can therefore tell "the research does not pass" (1) from "the job is
misconfigured" (2).`

// environmentHelp is `vibe help environment`. A test fails when the code
// reads a VIBE_* variable that is not described here.
const environmentHelp = `Variables that change what vibe does:

  VIBE_HOME
      Where vibe keeps its files: the database, models, logs, the worker's
      socket and pid (default ~/.vibe-science).
  VIBE_DB
      The database file (default $VIBE_HOME/db/vibe-science.db).
  VIBE_WORKER
      "off": hooks and the CLI never start the resident worker; hooks then
      run their handlers in a vibe-hook process of their own.
  VIBE_EMBED_FALLBACK
      "off": while no embedding model is installed, the worker leaves memories
      unembedded and recall lexical, instead of embedding them with the
      fallback hashed-token embedder (degraded vectors, labelled as such and
      replaced once the model is installed).
  VIBE_MODEL_PULL
      "off": the worker never downloads the current model by itself when an
      embedding is needed and it is not installed (use ` + "`vibe model pull`" + `).
  VIBE_CLIENT
      Set by a hook binary for its handler from its --client argument (codex,
      gemini; unset for Claude Code): which client's event shapes and reply
      vocabulary the handler speaks. Not meant to be set by hand.
  VIBE_RELAY_NOTE
      Set by a hook binary for its handler when it could not use the resident
      worker (not running, or a process vibe does not trust on its socket):
      the reason, shown to the user. Not meant to be set by hand.
  VIBE_RELAY
      "off": hook binaries do not hand the event to the resident worker and
      run vibe-hook directly (slower; for diagnosing the relay).
  VIBE_BUSY_TIMEOUT_MS
      How long a hook waits for a locked database, in milliseconds.
  VIBE_PLUGIN_ROOT
      The plugin's checkout (holding bin/ and hooks.json), when vibe cannot
      find it beside its own binary.

For developers and CI (make test, the end-to-end suite, the test model):

  VIBE_CLAUDE_BIN
      The claude CLI the end-to-end suite drives (default: the pinned copy
      .ci/install-claude.sh installs).
  VIBE_E2E_CACHE
      Where the pinned Claude Code is cached (default ~/.cache/vibe-e2e).
  VIBE_CLAUDE_DIR
      Install prefix of the pinned Claude Code (default
      $VIBE_E2E_CACHE/claude-<version>).
  VIBE_E2E_REQUIRE
      Set: a missing claude CLI fails the end-to-end suite instead of
      skipping it (CI sets it).
  VIBE_REQUIRE_TEST_MODEL
      "1": a test model that cannot be generated fails the tests instead of
      skipping them (CI sets it).
  VIBE_TEST_MODELS
      Cache of the generated test models (default: the user cache folder's
      vibe/test-models).
  VIBE_GEN_MODEL
      Path of gen_model.py, the script that writes the test model.`

// newTopicCmd is a help topic: a command with no run function, which
// cobra lists under "Additional help topics".
func newTopicCmd(name, short, long string) *cobra.Command {
	return &cobra.Command{Use: name, Short: short, Long: long}
}
