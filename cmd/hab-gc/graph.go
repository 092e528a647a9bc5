package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/depgraph"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

func (a *app) graphCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graph [IDENT]",
		Short: "Print the dependency graph (DOT or JSON), or one release's closure",
		Args:  args(cobra.MaximumNArgs(1)),
	}
	cmd.Flags().String("format", "dot", "output format: dot or json")
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		format, _ := cmd.Flags().GetString("format")
		if format != "dot" && format != "json" {
			return usageError{fmt.Errorf("invalid --format %q: must be dot or json", format)}
		}
		if a.wantJSON(cmd) {
			format = "json"
		}
		store, opts, err := c.openStore()
		if err != nil {
			return err
		}
		defer store.Close()
		inv, err := store.Scan(cmd.Context(), opts)
		if err != nil {
			return err
		}
		g := depgraph.New(inv)
		var roots []pkgstore.Ref
		if len(argv) == 1 {
			id, err := pkgstore.ParseIdent(argv[0])
			if err != nil {
				return usageError{err}
			}
			r := inv.Latest(id)
			if r == nil {
				return usageError{fmt.Errorf("%s: %w", id, retention.ErrNotInstalled)}
			}
			roots = []pkgstore.Ref{r.Ref}
		}
		var out []byte
		if format == "json" {
			out, err = g.JSON(roots)
		} else {
			out, err = g.DOT(roots)
		}
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", out)
		return err
	})
	return cmd
}
