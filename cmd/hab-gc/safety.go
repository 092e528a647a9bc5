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

// safetyTopic is `hab-gc safety`: docs/safety.md.
func safetyTopic() *cobra.Command {
	t, _ := docs.Lookup("safety")
	return &cobra.Command{
		Annotations: map[string]string{topicAnnotation: "safety"},
		Use:         "safety",
		Short:       "Print the safety model: what hab-gc guarantees before it deletes anything, and how",
		Long:        "The safety model: what hab-gc guarantees before it deletes anything, and how.\n\n", // + the page: fillTopic
		Args:        args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), t.Text())
			return err
		},
	}
}

// fillTopic ends a topic's long help with its page, once: pages are
// rendered only when help needs them (~13 ms a command otherwise).
func fillTopic(c *cobra.Command) {
	name, ok := c.Annotations[topicAnnotation]
	if !ok || c.Annotations[topicFilledAnnotation] != "" {
		return
	}
	if t, ok := docs.Lookup(name); ok {
		c.Long += t.Text()
	}
	c.Annotations[topicFilledAnnotation] = "yes"
}

func fillTopics(root *cobra.Command) {
	fillTopic(root)
	for _, c := range root.Commands() {
		fillTopics(c)
	}
}

const (
	topicAnnotation       = "hab-gc/docs-page" // the docs page a command's long help is
	topicFilledAnnotation = "hab-gc/docs-page-filled"
	// manPlaceholder stands for a docs page in the markdown go-md2man
	// renders (it would refill code and tables); fillManTopics puts the
	// page's own roff there.
	manPlaceholder = "HABGCDOCSPAGEBODY"
)

// manTopics ends each topic's long help, and that of a command named as
// a page (history), in manPlaceholder, for man pages only.
func manTopics(root *cobra.Command) {
	for _, c := range root.Commands() {
		if name, ok := c.Annotations[topicAnnotation]; ok {
			t, _ := docs.Lookup(name)
			c.Long = strings.TrimSuffix(c.Long, t.Text()) + manPlaceholder
		} else if _, ok := docs.Lookup(c.Name()); ok {
			c.Long = strings.TrimSpace(c.Long) + "\n\n" + manPlaceholder
		}
	}
}

func fillManTopics(root *cobra.Command, dir string) error {
	for _, c := range root.Commands() {
		name, ok := c.Annotations[topicAnnotation]
		if !ok {
			name = c.Name()
		}
		t, ok := docs.Lookup(name)
		if !ok {
			continue
		}
		file := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		page := string(b)
		if !strings.Contains(page, manPlaceholder) {
			return fmt.Errorf("%s: the docs page %s has no place in it", file, name)
		}
		page = strings.Replace(page, manPlaceholder, "\n"+strings.TrimSuffix(t.Man(), "\n"), 1)
		if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// topicCmds are the help topics, one per docs page not a command.
func topicCmds(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, t := range docs.Topics() {
		if c, _, err := root.Find([]string{t.Name}); err == nil && c != root {
			continue // a command of that name (safety) carries the page itself
		}
		out = append(out, &cobra.Command{
			Annotations: map[string]string{topicAnnotation: t.Name},
			Use:         t.Name,
			Short:       t.Title + " (docs/" + t.Name + ".md)",
			Long:        t.Title + "\n\n", // + the page: fillTopic
		})
	}
	return out
}

// writeTopics writes the help topics, which cobra's tree writers skip.
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
