package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/docs"
)

// safetyTopic is `hab-gc safety`: the safety model (docs/safety.md), in the
// help and in the man pages and markdown that `hab-gc docs` writes.
func safetyTopic() *cobra.Command {
	t, _ := docs.Lookup("safety")
	return &cobra.Command{
		Use:   "safety",
		Short: "Print the safety model: what hab-gc guarantees before it deletes anything, and how",
		Long:  "The safety model: what hab-gc guarantees before it deletes anything, and how.\n\n" + t.Text(),
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), t.Text())
			return err
		},
	}
}

// topicCmds are the help topics (`hab-gc help TOPIC`), one per page of
// docs/ that is not already a command: cobra lists them under "Additional
// help topics", and `hab-gc docs` writes each as a man page.
func topicCmds(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, t := range docs.Topics() {
		if c, _, err := root.Find([]string{t.Name}); err == nil && c != root {
			continue // a command of that name (safety) carries the page itself
		}
		out = append(out, &cobra.Command{
			Use:   t.Name,
			Short: t.Title + " (docs/" + t.Name + ".md)",
			Long:  t.Title + "\n\n" + t.Text(),
		})
	}
	return out
}

// writeTopics writes each help topic of root into dir as hab-gc-TOPIC+ext
// with gen: cobra's tree writers skip help topics.
func writeTopics(root *cobra.Command, dir, ext string, gen func(*cobra.Command, io.Writer) error) error {
	for _, c := range root.Commands() {
		if !c.IsAdditionalHelpTopicCommand() {
			continue
		}
		var b bytes.Buffer
		if err := gen(c, &b); err != nil {
			return err
		}
		name := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+ext)
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
