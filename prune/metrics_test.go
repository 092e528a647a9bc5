package prune_test

import (
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/prune"
	"github.com/hab-gc/hab-gc/retention"
)

// TestRunMetricsNameTheStoreAndItsFileSystem: hab_gc_store_bytes is the
// bytes of the releases a run leaves, as a scan measuring every release
// finds them, once a run measured every release (Scan.Sizes); a run that
// measured only what it removes neither sets nor changes it. The
// hab_gc_filesystem_* metrics are the store's file system's (statfs).
func TestRunMetricsNameTheStoreAndItsFileSystem(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	for i, id := range []string{"core/redis/6.2.4/20210901000000", "core/redis/6.2.5/20211001000000", "core/redis/6.2.6/20211101000000",
		"core/nginx/1.20/20210101000000", "core/nginx/1.21/20210201000000"} {
		b.Add(storetest.Release{Ident: id, ModTime: storetest.OldTime(), Files: map[string]string{"bin/x": strings.Repeat("x", 10000*(i+1))}})
	}
	store := storetest.Open(t, b.Root)
	m := metrics.New()
	label := metrics.StorePath(b.Root)
	m.Watch(label, b.Root)
	run := func(keep int, sizes bool) {
		t.Helper()
		o := prune.Options{Policy: retention.Policy{KeepLatest: keep, MinAge: retention.NoMinAge}, Metrics: m, NoHistory: true,
			Scan: pkgstore.Options{Target: storetest.DefaultTarget, Sizes: sizes}, Settle: retention.NoSettle}
		if _, err := prune.Run(t.Context(), store, o); err != nil {
			t.Fatal(err)
		}
	}
	run(2, false) // core/redis/6.2.4 goes, measured alone
	if n := series(t, m, "hab_gc_store_bytes"); n != 0 {
		t.Errorf("%d hab_gc_store_bytes series after a run that measured only what it removed, want none", n)
	}
	run(1, true) // core/redis/6.2.5 and core/nginx/1.20 go, every release measured
	inv, err := store.Scan(t.Context(), pkgstore.Options{Target: storetest.DefaultTarget, Sizes: true})
	if err != nil {
		t.Fatal(err)
	}
	var left int64
	for _, r := range inv.Releases {
		left += r.Size
	}
	if len(inv.Releases) != 2 || left <= 0 {
		t.Fatalf("%d releases (%d bytes) left, want 2", len(inv.Releases), left)
	}
	if got := gauge(t, m, "hab_gc_store_bytes", label); got != float64(left) {
		t.Errorf("hab_gc_store_bytes %v, want the %d bytes of the releases left", got, left)
	}
	run(1, false)
	if got := gauge(t, m, "hab_gc_store_bytes", label); got != float64(left) {
		t.Errorf("hab_gc_store_bytes %v after a run that measured nothing, want it left at %d", got, left)
	}
	sp, err := pressure.Statfs(store.Path())()
	if err != nil {
		t.Fatal(err)
	}
	if got := gauge(t, m, "hab_gc_filesystem_size_bytes", label); got != float64(sp.Total) {
		t.Errorf("hab_gc_filesystem_size_bytes %v, want statfs's %d", got, sp.Total)
	}
	if got := gauge(t, m, "hab_gc_filesystem_free_bytes", label); got <= 0 || got > float64(sp.Total) {
		t.Errorf("hab_gc_filesystem_free_bytes %v, want within the file system's %d", got, sp.Total)
	}
}

// series counts m's series of name.
func series(t *testing.T, m *metrics.Metrics, name string) int {
	t.Helper()
	fams, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return len(f.GetMetric())
		}
	}
	return 0
}

// gauge is the value of m's gauge name of store.
func gauge(t *testing.T, m *metrics.Metrics, name, store string) float64 {
	t.Helper()
	fams, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		for _, s := range f.GetMetric() {
			if f.GetName() == name && len(s.GetLabel()) == 1 && s.GetLabel()[0].GetValue() == store {
				return s.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no %s{store=%q}", name, store)
	return 0
}
