package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

func (a *app) docsCmd(root *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs DIR",
		Short: "Write man pages (--format man) or markdown (--format markdown) for every command into DIR",
		Args:  args(cobra.ExactArgs(1)),
	}
	cmd.Flags().String("format", "man", "man or markdown")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		format, _ := cmd.Flags().GetString("format")
		root.DisableAutoGenTag = true
		fillTopics(root)
		if err := os.MkdirAll(argv[0], 0o755); err != nil {
			return err
		}
		switch format {
		case "man":
			escapeFlagHelp(root)
			manExitCodes(root)
			manTopics(root)
			hdr := &doc.GenManHeader{Title: "HAB-GC", Section: "1"}
			if err := doc.GenManTree(root, hdr, argv[0]); err != nil {
				return err
			}
			if err := writeTopics(root, argv[0], ".1", func(c *cobra.Command, w io.Writer) error {
				h := *hdr
				return doc.GenMan(c, &h, w)
			}); err != nil {
				return err
			}
			return fillManTopics(root, argv[0])
		case "markdown":
			if err := doc.GenMarkdownTree(root, argv[0]); err != nil {
				return err
			}
			return writeTopics(root, argv[0], ".md", doc.GenMarkdown)
		}
		return usageError{fmt.Errorf("invalid --format %q: must be man or markdown", format)}
	}
	return cmd
}

// escapeFlagHelp keeps go-md2man from reading "<12'" as a tag.
func escapeFlagHelp(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		f.Usage = strings.NewReplacer("<", `\<`, ">", `\>`).Replace(f.Usage)
	})
	for _, sub := range c.Commands() {
		escapeFlagHelp(sub)
	}
}
