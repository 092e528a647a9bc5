package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/docs"
)

// renderedTopics counts the commands under root whose long help holds the
// rendered text of their docs page (topicAnnotation), or that fillTopic
// has marked as filled, and reports how many carry a page at all.
func renderedTopics(t *testing.T, root *cobra.Command) (rendered, topics int) {
	t.Helper()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if name, ok := c.Annotations[topicAnnotation]; ok {
			topics++
			tp, ok := docs.Lookup(name)
			if !ok {
				t.Fatalf("%s: no docs page %q", c.CommandPath(), name)
			}
			if c.Annotations[topicFilledAnnotation] != "" || strings.Contains(c.Long, strings.TrimSpace(tp.Text())) {
				rendered++
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return rendered, topics
}

// TestOrdinaryCommandsRenderNoTopic: building the command tree and running
// an ordinary command (or its --help) renders no docs page of a help
// topic: rendering them all on every start made each command ~13 ms
// slower (fixed by fillTopic; see safety.go). `safety --help` renders its
// page, and only its: the count sees a render.
func TestOrdinaryCommandsRenderNoTopic(t *testing.T) {
	t.Parallel()
	b := hostStore(t)
	b.Pkg("core/a/1/20200101000000")
	exec := func(root *cobra.Command, args ...string) {
		t.Helper()
		root.SetArgs(args)
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	for _, args := range [][]string{
		{"version"},
		{"list", "--fs-root", b.Root, "--runtime-roots=false"},
		{"run", "--dry-run", "--fs-root", b.Root, "--runtime-roots=false", "--keep-latest=1"},
		{"run", "--help"},
	} {
		var out, errb bytes.Buffer
		root := newRootCmd(&out, &errb, noEnv)
		if n, topics := renderedTopics(t, root); n != 0 || topics < 2 {
			t.Fatalf("a new command tree: %d of %d help topics rendered, want 0 of at least 2", n, topics)
		}
		exec(root, args...)
		if n, topics := renderedTopics(t, root); n != 0 {
			t.Errorf("%v: %d of %d help topics rendered, want none", args, n, topics)
		}
	}
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb, noEnv)
	exec(root, "safety", "--help")
	if n, _ := renderedTopics(t, root); n != 1 {
		t.Errorf("safety --help: %d help topics rendered, want 1", n)
	}
	if page, _ := docs.Lookup("safety"); !strings.Contains(out.String(), strings.TrimSpace(page.Text())) {
		t.Errorf("safety --help does not print the page:\n%s", out.String())
	}
}
