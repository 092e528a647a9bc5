package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/docs"
)

// helpCmd prints docs/TOPIC.md when there is one, even named as a command
// (help history), else cobra's help.
func helpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND | TOPIC]",
		Short: "Help about a command, or a documentation page as text (help history: docs/history.md)",
		Long: `Help about a command, or a documentation page (docs/TOPIC.md) as text.
A page named as a command is the page: hab-gc help history prints docs/history.md; the
command's own help is hab-gc history --help.`,
		ValidArgsFunction: func(_ *cobra.Command, argv []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return helpCompletions(root, argv, prefix), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, argv []string) error {
			if len(argv) == 1 {
				if t, ok := docs.Lookup(argv[0]); ok {
					_, err := fmt.Fprintf(c.OutOrStdout(), "%s\n%s\n\n%s", t.Title, strings.Repeat("=", len([]rune(t.Title))), t.Text())
					return err
				}
			}
			cmd, _, err := root.Find(argv)
			if cmd == nil || err != nil || (len(argv) > 0 && cmd == root) {
				return usageError{fmt.Errorf("no command or help topic %q (hab-gc help lists them)", strings.Join(argv, " "))}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

func helpCompletions(root *cobra.Command, argv []string, prefix string) []cobra.Completion {
	parent := root
	if len(argv) > 0 {
		c, _, err := root.Find(argv)
		if err != nil || c == root {
			return nil
		}
		parent = c
	}
	var out []cobra.Completion
	seen := map[string]bool{}
	for _, c := range parent.Commands() {
		if c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			if strings.HasPrefix(c.Name(), prefix) {
				out = append(out, cobra.CompletionWithDesc(c.Name(), c.Short))
				seen[c.Name()] = true
			}
		}
	}
	if len(argv) == 0 {
		for _, t := range docs.Topics() {
			if !seen[t.Name] && strings.HasPrefix(t.Name, prefix) {
				out = append(out, cobra.CompletionWithDesc(t.Name, t.Title+" (docs/"+t.Name+".md)"))
			}
		}
	}
	return out
}
