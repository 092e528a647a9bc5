package retention_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// finderSeq is a RootFinder that answers its n-th call with answers[n]
// (the last one from then on) and counts its calls.
type finderSeq struct {
	answers [][]retention.Root
	err     error
	calls   int
}

func (f *finderSeq) FindRoots(_ context.Context, _ *pkgstore.Inventory) (retention.Found, error) {
	i := min(f.calls, len(f.answers)-1)
	f.calls++
	if f.err != nil {
		return retention.Found{}, f.err
	}
	return retention.Found{Source: "test", Roots: f.answers[i], Summary: "test finder"}, nil
}

func inUse(ident string) retention.Root {
	return retention.Root{Ident: pkgstore.MustParseIdent(ident), Code: retention.CodeInUse, Text: "process 7 (app) executes bin/app of it"}
}

// rootsStore: two releases of app, each needing its own lib.
func rootsStore(t *testing.T) *storetest.Builder {
	b := storetest.New(t)
	oldPkg(b, "core/lib/1/1")
	oldPkg(b, "core/lib/2/2")
	oldPkg(b, "core/app/1/1", "core/lib/1/1")
	oldPkg(b, "core/app/2/2", "core/lib/2/2")
	return b
}

func planStore(t *testing.T, root string, pol retention.Policy) (*retention.Plan, error) {
	t.Helper()
	s, err := pkgstore.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pol.MinAge = retention.NoMinAge
	return retention.PlanStore(context.Background(), s, pol, now, pkgstore.Options{Target: "x86_64-linux"})
}

func TestRootFinderKeepsReleaseAndClosure(t *testing.T) {
	b := rootsStore(t)
	f := &finderSeq{answers: [][]retention.Root{{inUse("core/app/1/1"), inUse("core/gone/1/1")}}}
	p, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{f}})
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, p, "core/app/1/1"); d.Action != retention.Keep || !hasCode(d, retention.CodeInUse, "executes bin/app") {
		t.Errorf("release in use: %+v", d)
	}
	if d := decision(t, p, "core/lib/1/1"); d.Action != retention.Keep || !hasCode(d, retention.CodeDependency, "dependency of core/app/1/1 (process 7 (app) executes bin/app of it)") {
		t.Errorf("dependency of a release in use: %+v", d)
	}
	if len(p.Found) != 1 || p.Found[0].Source != "test" {
		t.Errorf("plan.Found = %+v", p.Found)
	}
	if rep := p.Report(nil); len(rep.RootSources) != 1 || rep.RootSources[0].Summary != "test finder" {
		t.Errorf("report root sources = %+v", rep.RootSources)
	}
	if f.calls != 1 {
		t.Errorf("finder called %d times at plan time, want 1", f.calls)
	}
}

func TestRootFinderFailureRefuses(t *testing.T) {
	b := rootsStore(t)
	boom := errors.New("cannot read /proc")
	_, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{&finderSeq{answers: [][]retention.Root{nil}, err: boom}}})
	if !errors.Is(err, retention.ErrRootsUnknown) || !errors.Is(err, boom) {
		t.Fatalf("plan with a failing finder: %v", err)
	}

	// A finder that fails only when Apply asks: nothing is removed.
	f := &finderSeq{answers: [][]retention.Root{nil}}
	p, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{f}})
	if err != nil {
		t.Fatal(err)
	}
	f.err = boom
	s := storetest.Open(t, b.Root)
	if _, err := p.Apply(context.Background(), s, fast); !errors.Is(err, retention.ErrRootsUnknown) {
		t.Fatalf("Apply with a failing finder: %v", err)
	}
	if !exists(b.PkgPath("core/app/1/1")) {
		t.Fatal("removed a release although what is in use was unknown")
	}
}

func TestApplyConsultsRootFinders(t *testing.T) {
	cases := []struct {
		name      string
		answers   [][]retention.Root // plan, revalidation, after hiding
		wantCalls int                // nothing hidden: no call after hiding
	}{
		{"at revalidation", [][]retention.Root{nil, {inUse("core/app/1/1")}, nil}, 2},
		{"after hiding", [][]retention.Root{nil, nil, {inUse("core/app/1/1")}}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := rootsStore(t)
			f := &finderSeq{answers: tc.answers}
			p, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{f}})
			if err != nil {
				t.Fatal(err)
			}
			if d := decision(t, p, "core/app/1/1"); d.Action != retention.Remove {
				t.Fatalf("plan keeps core/app/1/1: %+v", d)
			}
			res := applyPlan(t, p, b.Root, fast)
			o, ok := outcome(res, "core/app/1/1")
			if !ok || o.Status != retention.StatusKept || len(o.Reasons) == 0 || o.Reasons[0].Code != retention.CodeInUse {
				t.Fatalf("outcome for a release that came in use %s: %+v", tc.name, o)
			}
			if !exists(b.PkgPath("core/app/1/1") + "/IDENT") {
				t.Fatal("release in use is not in place")
			}
			if entries, _ := os.ReadDir(b.PkgPath("core/app/1")); len(entries) != 1 {
				t.Fatalf("version directory holds %d entries, want the release alone", len(entries))
			}
			if f.calls != tc.wantCalls {
				t.Errorf("finder called %d times, want %d", f.calls, tc.wantCalls)
			}
		})
	}
}

// TestPartialRootIdents: a RootFinder that names a release by a partial
// ident (ORIGIN/NAME/VERSION or ORIGIN/NAME) keeps every installed release
// satisfying it, as a lease with that ident does; one naming no package
// at all fails the plan with ErrRootsUnknown.
func TestPartialRootIdents(t *testing.T) {
	for _, tc := range []struct {
		name  string
		roots []retention.Root
		kept  []string
	}{
		{"version", []retention.Root{inUse("core/app/1")}, []string{"core/app/1/1", "core/lib/1/1"}},
		{"package", []retention.Root{inUse("core/lib")}, []string{"core/lib/1/1", "core/lib/2/2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := rootsStore(t)
			f := &finderSeq{answers: [][]retention.Root{tc.roots}}
			p, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{f}})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tc.kept {
				if d := decision(t, p, k); d.Action != retention.Keep {
					t.Errorf("%s: %+v, want kept", k, d)
				}
			}
		})
	}
	t.Run("no package", func(t *testing.T) {
		b := rootsStore(t)
		f := &finderSeq{answers: [][]retention.Root{{{Ident: pkgstore.Ident{Origin: "core"}, Code: retention.CodeInUse, Text: "?"}}}}
		_, err := planStore(t, b.Root, retention.Policy{KeepLatest: 1, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{f}})
		if !errors.Is(err, retention.ErrRootsUnknown) {
			t.Fatalf("err = %v, want ErrRootsUnknown", err)
		}
	})
}
