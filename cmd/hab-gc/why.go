package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

type whyJSON struct {
	Ident       string             `json:"ident"`
	Action      retention.Action   `json:"action"`
	Reasons     []retention.Reason `json:"reasons"`
	Chain       []string           `json:"chain"`
	RootReasons []retention.Reason `json:"root_reasons"`
	InstalledBy string             `json:"installed_by"`
}

func whyJSONOf(ex retention.Explanation) whyJSON {
	chain := []string{}
	for _, c := range ex.Chain {
		chain = append(chain, c.String())
	}
	return whyJSON{ex.Decision.Release.Ident.String(), ex.Decision.Action, ex.Decision.Reasons, chain, ex.RootReasons, ex.InstalledBy}
}

func printWhy(w io.Writer, ex retention.Explanation) {
	rel := ex.Decision.Release.Ident
	if ex.Decision.Action == retention.Remove {
		fmt.Fprintf(w, "%s would be removed:\n", rel)
	} else {
		fmt.Fprintf(w, "%s is kept:\n", rel)
	}
	for _, r := range ex.Decision.Reasons {
		fmt.Fprintf(w, "  %s\n", r.Text)
	}
	fmt.Fprintf(w, "installed by: %s\n", ex.InstalledBy)
	if ex.Decision.Action == retention.Remove {
		return
	}
	if len(ex.Chain) > 1 {
		fmt.Fprintf(w, "chain from the root that keeps it:\n")
		for i, id := range ex.Chain {
			fmt.Fprintf(w, "  %s%s\n", strings.Repeat("  ", i), id)
		}
		fmt.Fprintf(w, "the root %s is kept because:\n", ex.Chain[0])
		for _, r := range ex.RootReasons {
			fmt.Fprintf(w, "  %s\n", r.Text)
		}
	}
}

// removedNote says when hab-gc removed a release no longer installed.
func removedNote(fsRoot string, id pkgstore.Ident) string {
	hint := "hab-gc history " + id.String() + " shows what hab-gc removed of it"
	j, err := history.ForFSRoot(fsRoot)
	if err != nil {
		return hint
	}
	recs, _, err := j.Read()
	if err != nil {
		return hint
	}
	recs = history.Filter{Ident: &id}.Select(recs)
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Kind == history.KindRelease && r.Outcome == string(retention.StatusRemoved) {
			return fmt.Sprintf("%s was removed at %s by run %s (%s): hab-gc history %s", r.Ident,
				r.Time.UTC().Format(time.RFC3339), r.RunID, jobText(r), id)
		}
	}
	return hint
}

func (a *app) whyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "why IDENT",
		Short: "Explain why a release is kept (the chain to the root that keeps it) or removed",
		Long: `Explain the plan's decision for one release. IDENT may be partial (core/redis, core/redis/6.2.6): every
installed release that satisfies it is explained, newest first (with --json, an array of what a full
IDENT gives). Takes the same policy flags as run.`,
		Args: args(cobra.ExactArgs(1)),
	}
	addPolicyFlags(cmd.Flags())
	cmd.RunE = a.withConfig(func(cmd *cobra.Command, c *config, argv []string) error {
		id, err := pkgstore.ParseIdent(argv[0])
		if err != nil {
			return usageError{err}
		}
		if !c.isSet("keep_latest") {
			return refusedError{fmt.Errorf(`why explains what a policy does with a release: set one, as for run:
  hab-gc why --keep-latest=3 %s
  HAB_GC_KEEP_LATEST=3 hab-gc why %s
  keep_latest = 3      (in FS_ROOT/hab/etc/hab-gc.toml, or the file given by --config)`, argv[0], argv[0])}
		}
		plan, store, err := a.planFor(cmd, c, true, false)
		if err != nil {
			return err
		}
		defer store.Close()
		exs, err := plan.WhyAll(id)
		if err != nil {
			if errors.Is(err, retention.ErrNotInstalled) {
				return usageError{fmt.Errorf("%w\n%s", err, removedNote(c.fsRoot(), id))}
			}
			return err
		}
		if a.wantJSON(cmd) {
			if id.FullyQualified() { // one release: one object, as always
				return writeJSON(a.stdout, whyJSONOf(exs[0]))
			}
			out := make([]whyJSON, 0, len(exs))
			for _, ex := range exs {
				out = append(out, whyJSONOf(ex))
			}
			return writeJSON(a.stdout, out)
		}
		for i, ex := range exs {
			if i > 0 {
				fmt.Fprintln(a.text)
			}
			printWhy(a.text, ex)
		}
		return nil
	})
	return cmd
}
