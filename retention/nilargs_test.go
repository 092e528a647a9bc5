package retention_test

import (
	"context"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// TestNilCasesAreErrors: the nil cases the API documents return an error
// (or nothing), never panic.
func TestNilCasesAreErrors(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: "core/a/1/20200101000000", ModTime: old, Target: pkgstore.DefaultTarget()})
	st := storetest.Open(t, b.Root)
	inv, err := st.Scan(context.Background(), pkgstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol := retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff}
	var nilPlan *retention.Plan
	var nilCtx context.Context
	for name, call := range map[string]func() error{
		"RootFinderFunc(nil)": func() error {
			_, err := retention.RootFinderFunc(nil).FindRoots(context.Background(), inv)
			return err
		},
		"Why on a nil plan": func() error {
			_, err := nilPlan.Why(pkgstore.MustParseIdent("core/a"))
			return err
		},
		"WhyAll on a nil plan": func() error {
			_, err := nilPlan.WhyAll(pkgstore.MustParseIdent("core/a"))
			return err
		},
		"FindRoots with a nil inventory": func() error {
			_, err := pol.FindRoots(context.Background(), nil)
			return err
		},
		"PlanStore with a nil context": func() error {
			_, err := retention.PlanStore(nilCtx, st, pol, now)
			return err
		},
		"Apply with a nil context": func() error {
			p, err := retention.PlanStore(context.Background(), st, pol, now)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Apply(nilCtx, st)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			if err := call(); err == nil {
				t.Error("no error")
			}
		})
	}
	if r := nilPlan.Removals(); r != nil {
		t.Errorf("Removals of a nil plan: %v, want none", r)
	}
}
