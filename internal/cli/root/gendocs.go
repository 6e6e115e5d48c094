package root

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/vibe-science/vibe/internal/cli"
)

// docsDate is the date the man pages carry. It is fixed, so that the pages
// depend on the commands alone and the docs test can compare them; change
// it when the CLI changes in substance.
var docsDate = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

// NewCmdGenDocs builds the hidden `vibe gen-docs DIR`, which writes the
// reference docs from the command tree: DIR/cli/*.md and DIR/man/*.1
// (`make docs` runs it into docs/).
func NewCmdGenDocs(f *cli.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "gen-docs DIR",
		Short:  "Write the Markdown reference and man pages of every command into DIR/cli and DIR/man",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := genDocs(f, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "wrote %s and %s\n", filepath.Join(args[0], "cli"), filepath.Join(args[0], "man"))
			return nil
		},
	}
}

// genDocs writes the docs of a fresh command tree (so nothing of the
// running command leaks in) into dir/cli and dir/man, replacing what was
// there.
func genDocs(f *cli.Factory, dir string) error {
	root := NewRootCmd(f)
	root.DisableAutoGenTag = true
	md, man := filepath.Join(dir, "cli"), filepath.Join(dir, "man")
	for _, d := range []string{md, man} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("gen-docs: %w", err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("gen-docs: %w", err)
		}
	}
	if err := doc.GenMarkdownTree(root, md); err != nil {
		return fmt.Errorf("gen-docs: markdown: %w", err)
	}
	// cobra's generator skips help topics; they are reference too.
	for _, c := range root.Commands() {
		if c.IsAdditionalHelpTopicCommand() {
			page := fmt.Sprintf("## vibe help %s\n\n%s\n\n```\n%s\n```\n", c.Name(), c.Short, c.Long)
			if err := os.WriteFile(filepath.Join(md, "vibe_help_"+c.Name()+".md"), []byte(page), 0o644); err != nil {
				return fmt.Errorf("gen-docs: %w", err)
			}
		}
	}
	date := docsDate
	header := &doc.GenManHeader{Title: "VIBE", Section: "1", Source: "vibe", Manual: "vibe manual", Date: &date}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("gen-docs: man pages: %w", err)
	}
	return nil
}
