package retention

import (
	"context"
	"errors"
	"fmt"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// ErrRootsUnknown is wrapped by the error of a plan or an Apply when a
// RootFinder failed: what is in use is then unknown, so nothing is
// removed.
var ErrRootsUnknown = errors.New("cannot tell which releases are in use: refusing to remove anything")

// Root is a release kept for a reason that the store's files do not show:
// a process using it, a Supervisor running it, a lease on it.
type Root struct {
	// Ident is the fully qualified release. A release that is not
	// installed (for example one Apply has just hidden) may be named: Apply
	// then puts it back.
	Ident pkgstore.Ident `json:"ident"`
	Code  Code           `json:"code"`
	Text  string         `json:"text"`
}

// Found is what one RootFinder found.
type Found struct {
	// Source names the finder ("processes", "supervisor").
	Source string `json:"source"`
	Roots  []Root `json:"roots"`
	// Summary says what was looked at, in one sentence, for reports.
	Summary string `json:"summary"`
	// Counts are the numbers behind Summary (for example "inspected",
	// "not_inspected"), for machine-readable reports.
	Counts map[string]int `json:"counts,omitempty"`
}

// A RootFinder finds releases in use outside the store's own files. The
// plan consults it, and Apply consults it again under the store's lock
// and once more just before deleting, so that a use that began after the
// plan still keeps its release. It must return an error, never a partial
// answer it cannot vouch for, when it cannot look.
type RootFinder interface {
	FindRoots(ctx context.Context, inv *pkgstore.Inventory) (Found, error)
}

// FindRoots asks every finder of the policy, in order, then reads the
// live leases of the store's FS root (package lease; its Found, source
// "leases", is listed when there is any lease), which every policy
// honours. A failure of any of them is an error wrapping ErrRootsUnknown.
func (p Policy) FindRoots(ctx context.Context, inv *pkgstore.Inventory) ([]Found, error) {
	var out []Found
	for _, f := range p.RootFinders {
		found, err := f.FindRoots(ctx, inv)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRootsUnknown, err)
		}
		out = append(out, found)
	}
	leased, any, err := leaseRoots(inv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRootsUnknown, err)
	}
	if any {
		out = append(out, leased)
	}
	return out, nil
}

// rootsByIdent indexes found roots by release, first reason first.
func rootsByIdent(found []Found) map[pkgstore.Ident][]Reason {
	m := map[pkgstore.Ident][]Reason{}
	for _, f := range found {
		for _, r := range f.Roots {
			m[r.Ident] = append(m[r.Ident], Reason{Code: r.Code, Text: r.Text})
		}
	}
	return m
}

// RootFinderFunc adapts a function to RootFinder.
type RootFinderFunc func(ctx context.Context, inv *pkgstore.Inventory) (Found, error)

// FindRoots calls f.
func (f RootFinderFunc) FindRoots(ctx context.Context, inv *pkgstore.Inventory) (Found, error) {
	return f(ctx, inv)
}

// HiddenRelease returns the release a directory named name (in a VERSION
// directory) holds when it is one Apply hid a release under
// (pkgstore.DebrisPrefix + "pending-RELEASE-..." or "doomed-RELEASE-..."),
// so that a RootFinder that meets a path inside it can name the release.
func HiddenRelease(name string) (release string, ok bool) {
	_, release, ok = parseDebris(name)
	if !ok || release == "x" {
		return "", false
	}
	return release, true
}
