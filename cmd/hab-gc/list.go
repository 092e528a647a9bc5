package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

func (a *app) listCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [IDENT...]",
		Short: "List installed releases by package, newest first, with size and what the policy would do",
		Long: `List installed releases by package, newest first, with size and, with a policy, what it would do.
With IDENT arguments (origin/name[/version[/release]]: core/redis, core/redis/6.2.6), only the releases
that satisfy one of them are listed; the plan is still the whole store's.`,
		Example: `  hab-gc list core/redis
  hab-gc list --keep-latest=2 core/redis core/openssl`,
		Args: identArgs("list", "to list"),
	}
	addPolicyFlags(cmd.Flags())
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		plan, store, err := a.planFor(cmd, c, false, true)
		if err != nil {
			return err
		}
		defer store.Close()
		hasPolicy := c.isSet("keep_latest")
		rep := plan.Report(nil)
		if len(argv) > 0 {
			var unmatched []pkgstore.Ident
			rep, unmatched = filterReport(rep, parseIdents(argv))
			for _, id := range unmatched {
				fmt.Fprintf(a.textErr, "hab-gc: warning: %s matches no installed release\n", id)
			}
		}
		if a.wantJSON(cmd) {
			return writeJSON(a.stdout, listJSON(hasPolicy, rep))
		}
		tw := tabwriter.NewWriter(a.text, 0, 4, 2, ' ', 0)
		pkg, pkgs := "", 0
		rels := slices.Clone(rep.Releases)
		slices.Reverse(rels)                                                 // newest first within each package...
		slices.SortStableFunc(rels, func(x, y retention.ReportRelease) int { // ...packages in order
			return strings.Compare(pkgOf(x.Ident), pkgOf(y.Ident))
		})
		for _, r := range rels {
			if p := pkgOf(r.Ident); p != pkg {
				pkg, pkgs = p, pkgs+1
				fmt.Fprintf(tw, "%s\n", p)
			}
			size := "-"
			if r.Size != nil {
				size = humanBytes(*r.Size)
			}
			if !hasPolicy { // no action to show, nor a reason for one
				fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimPrefix(r.Ident, pkg+"/"), size)
				continue
			}
			why := reasonLines(r.Reasons)
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", strings.TrimPrefix(r.Ident, pkg+"/"), size, r.Action, why[0])
			for _, l := range why[1:] {
				fmt.Fprintf(tw, "\t\t\t%s\n", l)
			}
		}
		tw.Flush()
		fmt.Fprintf(a.text, "\n%s in %s.", plural(rep.Summary.Releases, "release"), plural(pkgs, "package"))
		if hasPolicy {
			fmt.Fprintf(a.text, " The policy would keep %d and remove %d (%s).\n", rep.Summary.Keep, rep.Summary.Remove, humanBytes(rep.Summary.BytesReclaimable))
		} else {
			fmt.Fprintln(a.text, " No policy set (--keep-latest): actions not shown.")
		}
		return nil
	})
	return cmd
}

// listedRelease is list --json's release: without a policy, no action
// and no reasons (null).
type listedRelease struct {
	Ident       string             `json:"ident"`
	Action      *retention.Action  `json:"action"`
	Reasons     []retention.Reason `json:"reasons"`
	Size        *int64             `json:"size"`
	InstalledBy string             `json:"installed_by"`
}

func listJSON(hasPolicy bool, rep retention.Report) any {
	type listed struct {
		Policy   bool                `json:"policy"`
		Releases []listedRelease     `json:"releases"`
		Warnings []retention.Warning `json:"warnings"`
	}
	out := listed{Policy: hasPolicy, Releases: make([]listedRelease, 0, len(rep.Releases)), Warnings: rep.Warnings}
	for i, r := range rep.Releases {
		lr := listedRelease{Ident: r.Ident, Size: r.Size, InstalledBy: r.InstalledBy}
		if hasPolicy { // pointing into the report: no allocation per release
			lr.Action, lr.Reasons = &rep.Releases[i].Action, r.Reasons
		}
		out.Releases = append(out.Releases, lr)
	}
	return out
}

func pkgOf(ident string) string {
	parts := strings.SplitN(ident, "/", 3)
	return parts[0] + "/" + parts[1]
}
