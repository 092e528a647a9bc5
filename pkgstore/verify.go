package pkgstore

import (
	"context"
	"fmt"
	"slices"
)

// Report is the integrity report of a store.
type Report struct {
	Inventory *Inventory
	// Problems holds every problem the scan found plus those only a
	// verification looks for: DEPS lines missing from TDEPS, specs that no
	// installed release satisfies, dangling binlinks. Sorted by path.
	Problems []Problem
}

// Verify scans the store and checks it in full. It backs `hab-gc check`
// and the scheduled check job.
func (s *Store) Verify(ctx context.Context, opts Options) (*Report, error) {
	inv, err := s.Scan(ctx, opts)
	if err != nil {
		return nil, err
	}
	return inv.Verify(), nil
}

// Verify checks an inventory in full (see Report.Problems).
func (inv *Inventory) Verify() *Report {
	ps := slices.Clone(inv.Problems)
	for _, r := range inv.Releases {
		if r.Damaged {
			continue // its files are already reported
		}
		for _, d := range r.Deps {
			if !slices.Contains(r.TDeps, d) {
				ps = append(ps, Problem{Path: storePath(r.Ident.Origin, r.Ident.Name, r.Ident.Version, r.Ident.Release, "TDEPS"),
					Kind: ProblemDepsNotInTDeps, Release: r.Ident.String(),
					Message: fmt.Sprintf("DEPS names %s but TDEPS does not", inv.Ident(d))})
			}
		}
	}
	for _, svc := range inv.Services {
		if !svc.Installed {
			ps = append(ps, Problem{Path: svc.SpecPath, Kind: ProblemSpecUnmatched,
				Message: fmt.Sprintf("no installed release satisfies %s", svc.Ident)})
		}
	}
	for _, bl := range inv.Binlinks {
		if bl.Dangling {
			ps = append(ps, Problem{Path: bl.Path, Kind: ProblemDanglingBinlink,
				Message: danglingMessage(bl)})
		}
	}
	return &Report{Inventory: inv, Problems: sortProblems(ps)}
}

// danglingMessage is the problem of a dangling binlink: where it points
// and why that leads nowhere.
func danglingMessage(bl Binlink) string {
	if bl.Why == "" {
		return fmt.Sprintf("points to %s, which does not exist", bl.Target)
	}
	return fmt.Sprintf("points to %s: %s", bl.Target, bl.Why)
}
