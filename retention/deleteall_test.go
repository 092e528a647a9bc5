package retention_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// manyReleases makes pkgs packages of four releases each: three old ones
// to remove with keep-latest 1, sharing their NAME directory (one
// deletion worker's), and the newest.
func manyReleases(t *testing.T, pkgs int) *storetest.Builder {
	b := storetest.New(t)
	for i := range pkgs {
		for v := 1; v <= 4; v++ {
			oldPkg(b, fmt.Sprintf("core/lib%d/%d.0/2020010%d000000", i, v, v))
		}
	}
	return b
}

// TestDeleteAllReportsInOrder: deletions run on several workers, yet every
// outcome and progress event comes in the order the releases were hidden,
// one at a time (Progress is not called concurrently), and everything the
// plan removes is gone.
func TestDeleteAllReportsInOrder(t *testing.T) {
	b := manyReleases(t, 30)
	p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
	if n := len(p.Removals()); n != 90 {
		t.Fatalf("plan removes %d, want 90", n)
	}
	var hidden []pkgstore.Ident
	var events []pkgstore.Ident
	var inProgress sync.Mutex
	opts := retention.ApplyOptions{Settle: -1}
	retention.SetHook(&opts, func(stage string, id pkgstore.Ident, _ string) {
		if stage == "hidden" {
			hidden = append(hidden, id)
		}
	})
	retention.SetProgress(&opts, func(e retention.Event) {
		if !inProgress.TryLock() {
			t.Error("Progress called while another call is under way")
			return
		}
		defer inProgress.Unlock()
		if e.Done != len(events)+1 {
			t.Errorf("event %d says done %d", len(events)+1, e.Done)
		}
		events = append(events, e.Ident)
	})
	res, err := p.Apply(context.Background(), storetest.Open(t, b.Root), opts)
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []pkgstore.Ident
	for _, o := range res.Outcomes {
		if o.Status != retention.StatusRemoved {
			t.Errorf("%s: %s %v %v", o.Ident, o.Status, o.Reasons, o.Err)
		}
		outcomes = append(outcomes, o.Ident)
	}
	if !slices.Equal(outcomes, hidden) {
		t.Errorf("outcomes in another order than the hiding:\n got %v\nwant %v", outcomes, hidden)
	}
	if !slices.Equal(events, hidden) {
		t.Errorf("progress in another order than the hiding:\n got %v\nwant %v", events, hidden)
	}
	checkOnDisk(t, b.Root, res)
}

// TestDeleteAllCancelled: a cancel while the workers delete starts no
// deletion after it; every release is either removed (gone) or put back
// whole and said to be cancelled, and nothing is left hidden or doomed.
// A cancel once every release is doomed deletes nothing; a cancel from
// the progress of the deletions stops those not started yet (when the
// workers have started them all by then, Apply finishes and says nothing
// stopped).
func TestDeleteAllCancelled(t *testing.T) {
	cases := []struct {
		name string
		arm  func(opts *retention.ApplyOptions, cancel context.CancelFunc)
		// removedAtLeast is how many must be gone; -1: none may be.
		removedAtLeast int
	}{
		{"once all are doomed", func(opts *retention.ApplyOptions, cancel context.CancelFunc) {
			n := 0
			retention.SetHook(opts, func(stage string, _ pkgstore.Ident, _ string) {
				if stage == "doomed" {
					if n++; n == 90 {
						cancel()
					}
				}
			})
		}, -1},
	}
	for _, at := range []int{1, 10, 45} {
		cases = append(cases, struct {
			name           string
			arm            func(opts *retention.ApplyOptions, cancel context.CancelFunc)
			removedAtLeast int
		}{fmt.Sprint("at event ", at), func(opts *retention.ApplyOptions, cancel context.CancelFunc) {
			retention.SetProgress(opts, func(e retention.Event) {
				if e.Done == at {
					cancel()
				}
			})
		}, at})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := manyReleases(t, 30)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := retention.ApplyOptions{Settle: -1}
			tc.arm(&opts, cancel)
			res, err := p.Apply(ctx, storetest.Open(t, b.Root), opts)
			if ctx.Err() == nil {
				t.Fatal("never cancelled")
			}
			n := countOutcomes(t, p, res)
			switch {
			case tc.removedAtLeast < 0 && n[retention.StatusRemoved] != 0:
				t.Errorf("removed %d after a cancel before any deletion", n[retention.StatusRemoved])
			case n[retention.StatusRemoved] < tc.removedAtLeast:
				t.Errorf("removed %d, want at least %d", n[retention.StatusRemoved], tc.removedAtLeast)
			}
			if stopped := n[retention.StatusKept] > 0; stopped != errors.Is(err, context.Canceled) {
				t.Errorf("kept %d, Apply: %v (want the cancel exactly when some were put back)", n[retention.StatusKept], err)
			}
			for _, o := range res.Outcomes {
				if o.Status == retention.StatusKept && !hasReason(o.Reasons, codeCancelled, "") {
					t.Errorf("%s kept without saying it was cancelled: %+v", o.Ident, o.Reasons)
				}
			}
			checkOnDisk(t, b.Root, res)
			// Put back whole: the store scans clean of damage.
			inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				t.Fatal(err)
			}
			if len(inv.Problems) != 0 {
				t.Errorf("problems after the cancel: %v", inv.Problems)
			}
		})
	}
}
