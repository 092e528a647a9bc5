package retention_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestApplyRescanner: with ApplyOptions.Rescan, each of Apply's scans
// under the lock is the Rescanner's (revalidation, and the last check
// after hiding), and Apply decides by what it returns: a dependent it
// shows keeps its dependency; its error stops Apply with nothing hidden
// before revalidation, and every hidden release put back after.
func TestApplyRescanner(t *testing.T) {
	const old, newer, dependent = "core/lib/1.0/20200101000000", "core/lib/2.0/20200201000000", "core/app/1.0/20200301000000"
	for _, tc := range []struct {
		name string
		// before is done before the Rescanner's call n (1: revalidation,
		// 2: the last check) scans; err fails that call instead.
		before  func(b *storetest.Builder, n int)
		failAt  int
		want    retention.RemovalStatus
		wantErr bool
		calls   int
	}{
		{name: "both scans are the Rescanner's", want: retention.StatusRemoved, calls: 2},
		{name: "a dependent it shows at revalidation keeps the release", before: func(b *storetest.Builder, n int) {
			if n == 1 {
				b.Add(storetest.Release{Ident: dependent, Deps: []string{old}, TDeps: []string{old}})
			}
		}, want: retention.StatusKept, calls: 1},
		{name: "a dependent it shows at the last check puts it back", before: func(b *storetest.Builder, n int) {
			if n == 2 {
				b.Add(storetest.Release{Ident: dependent, Deps: []string{old}, TDeps: []string{old}})
			}
		}, want: retention.StatusKept, calls: 2},
		{name: "its error at revalidation hides nothing", failAt: 1, want: retention.StatusNotAttempted, wantErr: true, calls: 1},
		{name: "its error at the last check puts back", failAt: 2, want: retention.StatusKept, wantErr: true, calls: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Add(storetest.Release{Ident: old}, storetest.Release{Ident: newer})
			p := planAt(t, b.Root, retention.Policy{KeepLatest: 1})
			s, err := pkgstore.Open(b.Root)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			calls := 0
			failed := errors.New("the rescanner failed")
			opts := fast
			opts.Rescan = func(ctx context.Context, o pkgstore.Options) (*pkgstore.Inventory, error) {
				calls++
				if err := s.HoldsLock(); err != nil {
					t.Errorf("call %d without the lock: %v", calls, err)
				}
				if tc.before != nil {
					tc.before(b, calls)
				}
				if calls == tc.failAt {
					return nil, failed
				}
				return s.Scan(ctx, o)
			}
			res, err := p.Apply(context.Background(), s, opts)
			if (err != nil) != tc.wantErr || tc.wantErr && !errors.Is(err, failed) {
				t.Fatalf("Apply: %v, want an error %v", err, tc.wantErr)
			}
			if calls != tc.calls {
				t.Errorf("the Rescanner was called %d times, want %d", calls, tc.calls)
			}
			o, ok := outcome(res, old)
			if !ok || o.Status != tc.want {
				t.Fatalf("%s: %+v, want %s", old, o, tc.want)
			}
			if gone := !exists(b.PkgPath(old) + "/TARGET"); gone != (tc.want == retention.StatusRemoved) {
				t.Errorf("%s on disk: gone %v, outcome %s", old, gone, o.Status)
			}
		})
	}
}
