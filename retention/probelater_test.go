package retention_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/lease"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/runroots"
)

// probeFinder is a RootFinder that could not see everything, as runroots'
// is where /proc does not show every process: its Found has a Probe. The
// probe records the directories of each call, finds busy in use when it
// is asked about it, and fails with fail when that is set.
type probeFinder struct {
	mu    sync.Mutex
	calls [][]string
	busy  pkgstore.Ident
	fail  error
}

func (f *probeFinder) FindRoots(context.Context, *pkgstore.Inventory) (retention.Found, error) {
	return retention.Found{Source: "probing", Summary: "saw part", Counts: map[string]int{"seen": 1}, Probe: f.probe}, nil
}

func (f *probeFinder) probe(_ context.Context, dirs []retention.ProbeDir) (retention.Probed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for _, d := range dirs {
		names = append(names, d.Dir())
	}
	f.calls = append(f.calls, names)
	if f.fail != nil {
		return retention.Probed{}, f.fail
	}
	out := retention.Probed{Counts: map[string]int{"probed": len(dirs)}, Summary: "probed"}
	for _, d := range dirs {
		if d.Ident == f.busy {
			out.Roots = append(out.Roots, retention.Root{Ident: d.Ident, Code: retention.CodeInUse, Text: "a process has it open"})
		}
	}
	return out, nil
}

// A real run's probe checks each file where it decides.
// PlanStore probes at the plan, Apply under the lock and after hiding:
// three passes over the files of every release to remove. PlanToApply
// leaves the first to Apply: two. A release its probe finds in use under
// the lock is kept there, with what it needs; a probe that cannot check
// refuses the Apply before anything is changed (a dead lease is not even
// swept).
func TestPlanToApplyLeavesProbesToApply(t *testing.T) {
	const (
		app1 = "core/app/1.0.0/20200101000000"
		app2 = "core/app/2.0.0/20210101000000"
		lib1 = "core/lib/1.0.0/20200101000000"
		lib2 = "core/lib/2.0.0/20210101000000"
	)
	newStore := func(t *testing.T) *storetest.Builder {
		b := storetest.New(t)
		b.Pkg(lib1).Pkg(lib2).Pkg(app1, lib1).Pkg(app2, lib2)
		return b
	}
	mustIdent := func(s string) pkgstore.Ident {
		id, err := pkgstore.ParseFullIdent(s)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	plan := func(t *testing.T, toApply bool, root string, f *probeFinder) (*pkgstore.Store, *retention.Plan) {
		t.Helper()
		s, err := pkgstore.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		pol := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, RuntimeRoots: runroots.ModeOff, RootFinders: []retention.RootFinder{f}}
		planStore := retention.PlanStore
		if toApply {
			planStore = retention.PlanToApply
		}
		p, err := planStore(context.Background(), s, pol, now, pkgstore.Options{Target: "x86_64-linux"})
		if err != nil {
			t.Fatal(err)
		}
		if p.ProbesLeftToApply() != toApply {
			t.Fatalf("ProbesLeftToApply = %v, want %v", p.ProbesLeftToApply(), toApply)
		}
		return s, p
	}
	removals := []string{app1, lib1}

	for _, tc := range []struct {
		name    string
		toApply bool
		passes  int
	}{{"PlanStore", false, 3}, {"PlanToApply", true, 2}} {
		t.Run(tc.name+" removes, probing each release "+itoa(tc.passes)+" times", func(t *testing.T) {
			b := newStore(t)
			f := &probeFinder{}
			s, p := plan(t, tc.toApply, b.Root, f)
			res, err := p.Apply(context.Background(), s, fast)
			if err != nil {
				t.Fatal(err)
			}
			if res.Removed != 2 {
				t.Fatalf("removed %d, want 2: %+v", res.Removed, res.Outcomes)
			}
			if len(f.calls) != tc.passes {
				t.Fatalf("probed %d times (%v), want %d", len(f.calls), f.calls, tc.passes)
			}
			for i, c := range f.calls[:len(f.calls)-1] { // the last asks under the hidden names
				if slices.Sort(c); !slices.Equal(c, removals) {
					t.Fatalf("probe %d asked about %v, want %v", i, c, removals)
				}
			}
			rep := p.Report(res)
			if len(rep.RootSources) != 1 || rep.RootSources[0].Counts["probed"] != 2 {
				t.Fatalf("the report's root sources %+v: want the probe's count of 2 releases", rep.RootSources)
			}
		})
	}

	t.Run("a release found in use under the lock is kept, with what it needs", func(t *testing.T) {
		b := newStore(t)
		f := &probeFinder{busy: mustIdent(app1)}
		s, p := plan(t, true, b.Root, f)
		if got := len(p.Removals()); got != 2 {
			t.Fatalf("the plan removes %d releases, want 2 (nothing probed yet)", got)
		}
		res, err := p.Apply(context.Background(), s, fast)
		if err != nil {
			t.Fatal(err)
		}
		if res.Removed != 0 || res.Kept != 2 {
			t.Fatalf("removed %d, kept %d, want 0 and 2: %+v", res.Removed, res.Kept, res.Outcomes)
		}
		for _, o := range res.Outcomes {
			if o.Ident.String() == app1 && (len(o.Reasons) == 0 || o.Reasons[0].Code != retention.CodeInUse) {
				t.Fatalf("%s kept for %+v, want the probe's reason (in-use)", app1, o.Reasons)
			}
		}
		for _, id := range removals {
			if _, err := os.Stat(b.PkgPath(id)); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
		if len(f.calls) != 1 {
			t.Fatalf("probed %d times, want once (under the lock; nothing hidden)", len(f.calls))
		}
		if rs := p.Report(res).RootSources; len(rs) != 1 || len(rs[0].Roots) != 1 {
			t.Fatalf("the report's root sources %+v: want the root the probe found under the lock", rs)
		}
	})

	t.Run("a probe that cannot check refuses the Apply before it changes anything", func(t *testing.T) {
		b := newStore(t)
		dir := lease.Dir(b.Root)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		dead := filepath.Join(dir, "install-dead.lease")
		if err := os.WriteFile(dead, []byte(app1+"\n"), 0o600); err != nil { // no holder: dead
			t.Fatal(err)
		}
		cannot := errors.New("no lease on it")
		f := &probeFinder{fail: cannot}
		s, p := plan(t, true, b.Root, f)
		res, err := p.Apply(context.Background(), s, fast)
		if !errors.Is(err, retention.ErrRootsUnknown) || !errors.Is(err, cannot) {
			t.Fatalf("Apply: %v, want ErrRootsUnknown wrapping the probe's error", err)
		}
		if res.Applied() || res.NotAttempted != 2 {
			t.Fatalf("Applied %v, not attempted %d: want a refusal, both not attempted", res.Applied(), res.NotAttempted)
		}
		for _, id := range removals {
			if _, err := os.Stat(b.PkgPath(id)); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
		if _, err := os.Stat(dead); err != nil {
			t.Fatalf("the refused Apply swept a dead lease: %v", err)
		}
	})
}
