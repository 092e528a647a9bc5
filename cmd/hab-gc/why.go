package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// whyJSON is one explanation in why --json.
type whyJSON struct {
	Ident       string             `json:"ident"`
	Action      retention.Action   `json:"action"`
	Reasons     []retention.Reason `json:"reasons"`
	Chain       []string           `json:"chain"`
	RootReasons []retention.Reason `json:"root_reasons"`
}

func whyJSONOf(ex retention.Explanation) whyJSON {
	chain := []string{}
	for _, c := range ex.Chain {
		chain = append(chain, c.String())
	}
	return whyJSON{ex.Decision.Release.Ident.String(), ex.Decision.Action, ex.Decision.Reasons, chain, ex.RootReasons}
}

// explainAll explains id: a full ident its one release, a partial one
// (core/openssl, core/openssl/1.1.1) every installed release that
// satisfies it, newest first (retention.ErrNotInstalled when none does).
func explainAll(plan *retention.Plan, id pkgstore.Ident) ([]retention.Explanation, error) {
	if id.FullyQualified() {
		ex, err := plan.Why(id)
		if err != nil {
			return nil, err
		}
		return []retention.Explanation{ex}, nil
	}
	rels := slices.Clone(plan.Inventory.Satisfying(id))
	if len(rels) == 0 {
		return nil, fmt.Errorf("%s: %w", id, retention.ErrNotInstalled)
	}
	slices.Reverse(rels) // Habitat's order is oldest first
	out := make([]retention.Explanation, 0, len(rels))
	for _, r := range rels {
		ex, err := plan.Why(r.Ident)
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}

// printWhy prints one explanation for people.
func printWhy(w io.Writer, ex retention.Explanation) {
	rel := ex.Decision.Release.Ident
	if ex.Decision.Action == retention.Remove {
		fmt.Fprintf(w, "%s would be removed:\n", rel)
		for _, r := range ex.Decision.Reasons {
			fmt.Fprintf(w, "  %s\n", r.Text)
		}
		return
	}
	fmt.Fprintf(w, "%s is kept:\n", rel)
	for _, r := range ex.Decision.Reasons {
		fmt.Fprintf(w, "  %s\n", r.Text)
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
