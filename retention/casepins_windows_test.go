//go:build windows

package retention_test

import (
	"context"
	"testing"

	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyWindowsCasePinsAndLeases: on Windows a pin or a lease written
// in another case than the store's directories (Core/Redis for
// core\redis) protects those releases, as Windows opens core\redis for
// that path: a pin of Core/Redis/4.0.14 keeps redis1, a lease of
// CORE/REDIS/5.0.1 keeps redis2, though the policy keeps only the
// newest. Before, both compared idents exactly and protected nothing.
func TestApplyWindowsCasePinsAndLeases(t *testing.T) {
	b := windowsStore(t)
	l, err := lease.Acquire(b.Root, "test", pkgstore.MustParseIdent("CORE/REDIS/5.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	pin, err := retention.ParseExclude("Core/Redis/4.0.14")
	if err != nil {
		t.Fatal(err)
	}
	s, err := pkgstore.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, Excludes: []retention.Exclude{pin}}
	p, err := retention.PlanStore(context.Background(), s, pol, now, pkgstore.Options{Target: "x86_64-windows"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{redis1, redis2, redis3} {
		if d, _ := p.Decision(pkgstore.MustParseIdent(id)); d.Action != retention.Keep {
			t.Errorf("%s: %s %v, want kept", id, d.Action, d.Reasons)
		}
	}
	res, err := p.Apply(context.Background(), s, fast)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 0 {
		t.Errorf("removed %d: %+v", res.Removed, res)
	}
	for _, id := range []string{redis1, redis2, redis3} {
		if !exists(b.PkgPath(id)) {
			t.Errorf("%s was removed", id)
		}
	}
}
