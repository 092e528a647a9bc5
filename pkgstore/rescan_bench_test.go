package pkgstore_test

import (
	"context"
	"testing"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// BenchmarkRescan measures what a watch purge's reads cost beside a full
// scan (issue 35 item 3), on the generated stores of BenchmarkScan (sizes:
// benchSizes): each iteration times a Scan of the store and a Rescan of
// that inventory with one ORIGIN/NAME directory marked changed (read
// again; nothing changed in it), and reports both per release and their
// ratio. What a Rescan costs besides the directories it reads again is
// its work over what it takes again (the parts, the releases' order, the
// Refs, the dependencies not installed): flat per release, and small.
//
//	HABGC_BENCH_SIZES=10000,100000,130000,300000 go test -run '^$' -bench Rescan -benchtime 10x -timeout 0 ./pkgstore
func BenchmarkRescan(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(itoa(n), func(b *testing.B) {
			ctx := context.Background()
			root := benchstore.Get(b, n)
			store, err := pkgstore.Open(root)
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			opts := pkgstore.Options{Target: "x86_64-linux"}
			inv, err := store.Scan(ctx, opts)
			if err != nil {
				b.Fatal(err)
			}
			changed := []pkgstore.Ident{inv.Releases[len(inv.Releases)/2].Ident.Package()}
			var scanNs, rescanNs int64
			b.ResetTimer()
			for range b.N {
				start := nanotime()
				full, err := store.Scan(ctx, opts)
				if err != nil {
					b.Fatal(err)
				}
				scanNs += nanotime() - start
				start = nanotime()
				re, err := store.Rescan(ctx, inv, changed, opts)
				if err != nil {
					b.Fatal(err)
				}
				rescanNs += nanotime() - start
				if len(re.Releases) != len(full.Releases) || len(re.Releases) != n {
					b.Fatalf("rescan read %d releases, scan %d, want %d", len(re.Releases), len(full.Releases), n)
				}
				inv = re
			}
			per := func(ns int64) float64 { return float64(ns) / float64(b.N) / float64(n) }
			b.ReportMetric(per(scanNs), "scan-ns/release")
			b.ReportMetric(per(rescanNs), "rescan-ns/release")
			b.ReportMetric(float64(rescanNs)/float64(b.N)/1e6, "rescan-ms")
			b.ReportMetric(float64(rescanNs)/float64(scanNs), "rescan/scan")
		})
	}
}
