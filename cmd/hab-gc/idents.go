package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// identArgs accepts package idents; what says what the command does with
// them, for a count typed where --keep-latest's was meant.
func identArgs(command, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, argv []string) error {
		for _, s := range argv {
			if _, err := pkgstore.ParseIdent(s); err != nil {
				if isWholeNumber(s) {
					return usageError{fmt.Errorf("%q is not a package: %s takes package idents (origin/name[/version]) %s; for a count: --keep-latest %s", s, command, what, s)}
				}
				return usageError{err}
			}
		}
		return nil
	}
}

func parseIdents(argv []string) []pkgstore.Ident {
	ids := make([]pkgstore.Ident, 0, len(argv))
	for _, s := range argv {
		if id, err := pkgstore.ParseIdent(s); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// asOnly makes run's arguments --only entries.
func asOnly(next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, argv []string) error {
		for _, s := range argv {
			if err := cmd.Flags().Set("only", s); err != nil {
				return usageError{err}
			}
		}
		return next(cmd, argv)
	}
}

// filterReport keeps the releases that satisfy one of ids, recounted.
func filterReport(rep retention.Report, ids []pkgstore.Ident) (out retention.Report, unmatched []pkgstore.Ident) {
	out = rep
	out.Releases = nil
	out.Summary.Releases, out.Summary.Keep, out.Summary.Remove, out.Summary.BytesReclaimable = 0, 0, 0, 0
	matched := make([]bool, len(ids))
	for _, r := range rep.Releases {
		id, err := pkgstore.ParseIdent(r.Ident)
		if err != nil {
			continue
		}
		hit := false
		for i, want := range ids {
			if id.Satisfies(want) {
				matched[i], hit = true, true
			}
		}
		if !hit {
			continue
		}
		out.Releases = append(out.Releases, r)
		out.Summary.Releases++
		switch r.Action {
		case retention.Keep:
			out.Summary.Keep++
		case retention.Remove:
			out.Summary.Remove++
			switch {
			case r.Size == nil:
				out.Summary.BytesReclaimable = -1
			case out.Summary.BytesReclaimable >= 0:
				out.Summary.BytesReclaimable += *r.Size
			}
		}
	}
	for i, ok := range matched {
		if !ok {
			unmatched = append(unmatched, ids[i])
		}
	}
	return out, unmatched
}
