package retention_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// deepStore makes a store whose old release holds a payload nested depth
// directories deep, with a file at every level.
func deepStore(tb testing.TB, depth int) (*storetest.Builder, string) {
	b := storetest.New(tb)
	oldPkg(b, "core/deep/1/20200101000000")
	oldPkg(b, "core/deep/2/20210101000000")
	dir := b.PkgPath("core/deep/1/20200101000000")
	storetest.Deep(tb, dir, depth)
	return b, dir
}

// planAndApplyStore plans as the CLI does (PlanStore, sizes of removals
// only) and applies.
func planAndApplyStore(tb testing.TB, root string) (*retention.Plan, *retention.Result) {
	s, err := pkgstore.Open(root)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	p, err := retention.PlanStore(context.Background(), s, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, now, pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		tb.Fatal(err)
	}
	res, err := p.Apply(context.Background(), s, retention.ApplyOptions{Settle: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return p, res
}

// TestDeepTreeMeasuredAndRemoved: a payload 3,000 directories deep is
// measured (every level counted) and removed whole.
func TestDeepTreeMeasuredAndRemoved(t *testing.T) {
	const depth = 3000
	b, dir := deepStore(t, depth)
	p, res := planAndApplyStore(t, b.Root)
	d := decision(t, p, "core/deep/1/20200101000000")
	// Each level holds a directory and a one-byte file: at least a block
	// for each file.
	if d.Release.Size < depth*512 {
		t.Errorf("measured %d bytes, want at least %d", d.Release.Size, depth*512)
	}
	o, _ := outcome(res, "core/deep/1/20200101000000")
	if o.Status != retention.StatusRemoved || o.Bytes != d.Release.Size {
		t.Errorf("outcome %+v (plan measured %d)", o, d.Release.Size)
	}
	if exists(dir) || exists(filepath.Dir(dir)) {
		t.Error("the deep release was not removed")
	}
}

// BenchmarkDeepTree plans (measuring the release to remove) and applies
// on a release nested depth directories deep. Time per level should stay
// flat as depth grows (linear work); ns/level is reported.
func BenchmarkDeepTree(b *testing.B) {
	for _, depth := range []int{1000, 2000, 3000} {
		b.Run("depth="+itoa(depth), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				st, _ := deepStore(b, depth)
				b.StartTimer()
				planAndApplyStore(b, st.Root)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
		})
	}
}
