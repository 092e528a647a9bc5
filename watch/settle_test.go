package watch_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/watch"
)

// TestSettleIsEachPurgesPause: Options.Settle is each
// purge's pause between hiding the releases and the last check, so an
// embedded purge with a small Settle takes less than the default 2 s;
// Settle 0 is retention.DefaultSettle. The bounds below are the pause's
// own (a timer never fires early): a purge with a pause lasts at least
// that long.
func TestSettleIsEachPurgesPause(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settle   time.Duration
		min, max time.Duration // max 0: no upper bound
	}{
		{"small", 50 * time.Millisecond, 50 * time.Millisecond, retention.DefaultSettle},
		{"none", retention.NoSettle, 0, retention.DefaultSettle},
		{"zero is the default", 0, retention.DefaultSettle, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, in := fixture(t)
			w := start(t, b.Root, watch.Options{Settle: tc.settle})
			if err := in.Install("core/redis/7.0.1/20260101000000"); err != nil {
				t.Fatal(err)
			}
			restart(t, b.Root, "redis")
			p := w.next(t, 20*time.Second)
			if p.Err != nil || p.Result == nil || p.Result.Removed != 1 {
				t.Fatalf("purge: %v, result %+v; want 1 removed", p.Err, p.Result)
			}
			took := p.End.Sub(p.Start)
			if took < tc.min || (tc.max > 0 && took >= tc.max) {
				t.Fatalf("the purge with Settle %s took %s, want at least %s and less than %s", tc.settle, took, tc.min, tc.max)
			}
			t.Logf("Settle %s: the purge took %s", tc.settle, took)
		})
	}
}
