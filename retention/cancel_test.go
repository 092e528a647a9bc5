package retention_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

const (
	statusNotAttempted = retention.RemovalStatus("not-attempted")
	codeCancelled      = retention.Code("cancelled")
)

// libStore makes n packages with an old release (to remove) and a new one.
func libStore(t *testing.T, n int) *storetest.Builder {
	b := storetest.New(t)
	for i := 0; i < n; i++ {
		oldPkg(b, fmt.Sprintf("core/lib%d/1.0/20200101000000", i))
		oldPkg(b, fmt.Sprintf("core/lib%d/2.0/20210101000000", i))
	}
	return b
}

// countOutcomes checks that every planned removal has exactly one outcome
// and that the Result's counts agree with them.
func countOutcomes(t *testing.T, p *retention.Plan, res *retention.Result) map[retention.RemovalStatus]int {
	t.Helper()
	n := map[retention.RemovalStatus]int{}
	seen := map[pkgstore.Ident]bool{}
	for _, o := range res.Outcomes {
		if seen[o.Ident] {
			t.Errorf("two outcomes for %s", o.Ident)
		}
		seen[o.Ident] = true
		n[o.Status]++
	}
	for _, d := range p.Removals() {
		if !seen[d.Release.Ident] {
			t.Errorf("no outcome for %s", d.Release.Ident)
		}
	}
	if res.Removed != n[retention.StatusRemoved] || res.Kept != n[retention.StatusKept] || res.Failed != n[retention.StatusFailed] {
		t.Errorf("result counts %d/%d/%d, outcomes %v", res.Removed, res.Kept, res.Failed, n)
	}
	return n
}

// checkOnDisk: what the outcomes say was removed is gone; everything else
// the plan removes is listed, whole; nothing is left hidden.
func checkOnDisk(t *testing.T, root string, res *retention.Result) {
	t.Helper()
	inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Debris) != 0 {
		t.Errorf("left hidden: %v", inv.Debris)
	}
	for _, o := range res.Outcomes {
		_, err := os.Stat(filepath.Join(root, "hab/pkgs", o.Ident.String(), "TARGET"))
		if (o.Status == retention.StatusRemoved) != (err != nil) {
			t.Errorf("%s: outcome %s, but on disk: %v", o.Ident, o.Status, err)
		}
	}
}

// TestApplyCancel: a cancel before the final check puts every hidden
// release back and deletes nothing; once deletion has started, it stops
// between releases. Every planned removal gets an outcome, and Apply
// returns the Result with the context's error.
func TestApplyCancel(t *testing.T) {
	tests := []struct {
		name string
		libs int
		// arm sets up the cancel.
		arm        func(opts *retention.ApplyOptions, cancel context.CancelFunc)
		anyRemoved bool
	}{
		{"while hiding", 20, func(opts *retention.ApplyOptions, cancel context.CancelFunc) {
			n := 0
			retention.SetHook(opts, func(stage string, _ pkgstore.Ident, _ string) {
				if stage == "hidden" {
					if n++; n == 5 {
						cancel()
					}
				}
			})
		}, false},
		{"during the settle pause", 20, func(opts *retention.ApplyOptions, cancel context.CancelFunc) {
			opts.Settle = time.Hour
			n := 0
			retention.SetHook(opts, func(stage string, _ pkgstore.Ident, _ string) {
				if stage == "hidden" {
					if n++; n == 20 {
						time.AfterFunc(100*time.Millisecond, cancel)
					}
				}
			})
		}, false},
		{"at the 3rd event of 400 deletions", 400, func(opts *retention.ApplyOptions, cancel context.CancelFunc) {
			retention.SetProgress(opts, func(e retention.Event) {
				if e.Done == 3 {
					cancel()
				}
			})
		}, true},
		{"while paced", 400, func(opts *retention.ApplyOptions, cancel context.CancelFunc) {
			// Every probe takes 1ms by this clock, over the 1µs target:
			// the first pauses every worker, and the cancel comes during
			// that pause, which then lasts until the run's context ends.
			var mu sync.Mutex
			now := time.Unix(0, 0)
			clock := func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				now = now.Add(time.Millisecond)
				return now
			}
			retention.SetPacer(opts, time.Microsecond, clock, func(ctx context.Context, _ time.Duration) error {
				cancel()
				<-ctx.Done()
				return ctx.Err()
			})
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := libStore(t, tt.libs)
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			s := storetest.Open(t, b.Root)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := retention.ApplyOptions{Settle: -1}
			tt.arm(&opts, cancel)
			start := time.Now()
			res, err := p.Apply(ctx, s, opts)
			if !errors.Is(err, context.Canceled) || res == nil {
				t.Fatalf("got %v, %v; want a Result and context.Canceled", res, err)
			}
			if time.Since(start) > time.Minute {
				t.Fatal("the settle pause was not cut short")
			}
			n := countOutcomes(t, p, res)
			if n[retention.StatusRemoved] >= tt.libs || (n[retention.StatusRemoved] > 0) != tt.anyRemoved {
				t.Errorf("removed %d of %d", n[retention.StatusRemoved], tt.libs)
			}
			for _, o := range res.Outcomes {
				if o.Status == retention.StatusKept && !hasReason(o.Reasons, codeCancelled, "") {
					t.Errorf("%s kept without saying it was cancelled: %+v", o.Ident, o.Reasons)
				}
			}
			if tt.name == "while hiding" && n[statusNotAttempted] == 0 {
				t.Errorf("releases never reached should be not-attempted: %v", n)
			}
			if tt.name == "while paced" && res.Paced <= 0 {
				t.Errorf("paced %s: the pause is not reported", res.Paced)
			}
			checkOnDisk(t, b.Root, res)
		})
	}
}
