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

// fillTopic ends the long help of a command carrying a docs page
// (topicAnnotation) with the page's text, once. The pages are rendered
// only when a help or docs command needs them: rendering every page on
// every start cost each command ~13 ms (and TestFleetSpread, 1,000
// commands, 242 s of the package's 512 s under -race).
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

// fillTopics is fillTopic for every command under root.
func fillTopics(root *cobra.Command) {
	fillTopic(root)
	for _, c := range root.Commands() {
		fillTopics(c)
	}
}

// topicFilledAnnotation marks a command whose long help fillTopic has
// ended with its page.
const topicFilledAnnotation = "hab-gc/docs-page-filled"

// topicAnnotation marks a command whose long help is a docs page: the
// page's name. Its man page is written from docs.Topic.Man (see manTopics).
const topicAnnotation = "hab-gc/docs-page"

// manPlaceholder stands for a docs page in the long help cobra's man
// writer renders (go-md2man refills code and runs tables off the page);
// fillManTopics puts the page's own roff (docs.Topic.Man) in its place.
const manPlaceholder = "HABGCDOCSPAGEBODY"

// manTopics rewrites the long help of every command carrying a docs page
// (topicAnnotation) to end in manPlaceholder instead of the page's text,
// for man pages only.
// A command that has a page of its name but not as its help (history)
// gets the page after its help.
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

// fillManTopics replaces manPlaceholder in the man page of every command
// carrying a docs page or named as one, in dir, with the page's roff.
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
			Annotations: map[string]string{topicAnnotation: t.Name},
			Use:         t.Name,
			Short:       t.Title + " (docs/" + t.Name + ".md)",
			Long:        t.Title + "\n\n", // + the page: fillTopic
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
