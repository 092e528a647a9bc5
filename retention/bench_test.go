package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// BenchmarkPlan measures graph construction plus planning (scan excluded)
// on generated stores of 10,000 and 100,000 releases. Compare ns/release
// between the two sizes (linear: the ratio should stay under 1.5) and
// against BenchmarkScan's ns/release (target: under half).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(itoa(n), func(b *testing.B) {
			root := benchstore.Get(b, n)
			inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux"})
			if err != nil {
				b.Fatal(err)
			}
			pol := retention.Policy{KeepLatest: 3, MinAge: retention.NoMinAge}
			when := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := retention.Compute(inv, pol, nil, when, nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Decisions) != n {
					b.Fatal("short plan")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/release")
		})
	}
}
