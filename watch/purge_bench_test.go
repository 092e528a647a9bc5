package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/benchstore"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// BenchmarkPurgeAfterUpdate measures issue 35 item 3: the plan of a purge
// after one package's update (watcher.plan: the last plan's inventory,
// the package's directory read again, everything outside the ORIGIN/NAME
// directories read afresh, a scoped plan: the package and what it needs)
// against a full dry run's plan of the same store (retention.PlanStore),
// in one process, on a generated store of HAB_GC_BENCH_PURGE_N releases
// (default 10,000; its own copy, as it is changed). Each iteration
// installs one release of another package as `hab pkg install` does,
// waits for its events to be handled and for its archive to settle (as
// the purge's Delay does), then times the purge's plan and a full plan,
// in alternating order; apply-s is the purge's Apply of its
// plan (no settle pause; its scans under the lock are the watcher's,
// applyScan: again only what inotify reported). Goal: the whole purge,
// purge+apply/full, <= 0.2. Runtime roots are off (no
// RootFinder), keep-latest 3, no minimum age, as the purge's policy
// (only the package, free-deps).
//
//	HAB_GC_BENCH_PURGE_N=130000 go test -run '^$' -bench PurgeAfterUpdate -benchtime 5x -timeout 0 ./watch
func BenchmarkPurgeAfterUpdate(b *testing.B) {
	n := 10_000
	if s := os.Getenv("HAB_GC_BENCH_PURGE_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	ctx := context.Background()
	root := b.TempDir()
	start := time.Now()
	if err := benchstore.Generate(root, n); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d releases in %s", n, time.Since(start).Round(time.Second))
	store, err := pkgstore.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	if err := os.MkdirAll(filepath.Join(root, pkgstore.SpecsDir), 0o755); err != nil {
		b.Fatal(err)
	}
	base := retention.Policy{KeepLatest: 3, MinAge: retention.NoMinAge}
	w := newWatcher(Options{Store: store, Policy: base, All: true})
	defer w.close()
	if w.fsw == nil {
		b.Fatal("no inotify")
	}
	scanAt := func(now time.Time) pkgstore.Options {
		return pkgstore.Options{Now: now, Target: storetest.DefaultTarget, InstallWindow: DefaultInstallWindow}
	}
	// The purge at start: a full plan, whose inventory the watcher keeps.
	if _, err := w.plan(ctx, base, time.Now(), scanAt(time.Now())); err != nil {
		b.Fatal(err)
	}
	var pkgs []pkgstore.Ident
	for _, r := range w.reads.last.Inventory.Releases {
		if id := r.Ident.Package(); len(pkgs) == 0 || pkgs[len(pkgs)-1] != id {
			pkgs = append(pkgs, id)
		}
	}
	in := storetest.NewInstaller(root, 35)
	sentinel := filepath.Join(w.specsDir, "sentinel")
	var purge, full, apply time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		pkg := pkgs[(i*7919)%len(pkgs)]
		id := fmt.Sprintf("%s/99.%d.0/20300101%06d", pkg, i, i)
		in.Publish(storetest.Archive{Ident: id})
		if err := in.Install(id); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(sentinel, nil, 0o644); err != nil {
			b.Fatal(err)
		}
		drainBench(b, w, sentinel)
		// The purge comes Delay after the install (30 s by default):
		// by then the archive fetched into the cache has settled, and
		// after the plan's read of it, Apply's reads take it again
		// (pkgstore's archive memo takes an archive settled 3 s).
		time.Sleep(archiveSettled)
		pol, ok := w.policyFor(pkg, TriggerUpdate)
		if !ok {
			b.Fatal("nothing to purge")
		}
		b.StartTimer()
		var p, f *retention.Plan
		timed := func(d *time.Duration, do func() (*retention.Plan, error)) *retention.Plan {
			now := time.Now()
			p, err := do()
			*d += time.Since(now)
			if err != nil {
				b.Fatal(err)
			}
			return p
		}
		incremental := func() (*retention.Plan, error) { return w.plan(ctx, pol, time.Now(), scanAt(time.Now())) }
		whole := func() (*retention.Plan, error) {
			return retention.PlanStore(ctx, store, pol, time.Now(), scanAt(time.Now()))
		}
		if i%2 == 0 {
			p, f = timed(&purge, incremental), timed(&full, whole)
		} else {
			f, p = timed(&full, whole), timed(&purge, incremental)
		}
		b.StopTimer()
		if a, c := len(p.Removals()), len(f.Removals()); a != c || len(p.Inventory.Releases) != len(f.Inventory.Releases) {
			b.Fatalf("the purge's plan removes %d, the full plan %d", a, c)
		}
		t0 := time.Now()
		unmarked := w.reads.full
		if _, err := p.Apply(ctx, store, applyOptionsForBench(w, p)); err != nil {
			b.Fatal(err)
		}
		apply += time.Since(t0)
		if !unmarked && w.reads.full {
			b.Fatal("the purge's Apply read the whole store")
		}
		b.StartTimer()
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(per(purge), "purge-plan-s")
	b.ReportMetric(per(full), "full-plan-s")
	b.ReportMetric(per(purge)/per(full), "purge/full")
	b.ReportMetric(per(apply), "apply-s")
	b.ReportMetric((per(purge)+per(apply))/per(full), "purge+apply/full")
	b.Logf("%d releases: the purge's plan %.3f s, a full plan %.3f s (%.3f), Apply %.3f s (the whole purge %.3f of a full plan), over %d updates",
		n, per(purge), per(full), per(purge)/per(full), per(apply), (per(purge)+per(apply))/per(full), b.N)
}

// archiveSettled is how long BenchmarkPurgeAfterUpdate waits after an
// install before the purge: longer than pkgstore's archive memo asks of
// an archive, shorter than watch's default Delay.
const archiveSettled = 3500 * time.Millisecond

// applyOptionsForBench are the purge's Apply options (its scans the
// watcher's, applyScan) without the settle pause.
func applyOptionsForBench(w *watcher, p *retention.Plan) retention.ApplyOptions {
	return retention.ApplyOptions{Settle: retention.NoSettle, Rescan: w.applyScan(p)}
}

// drainBench handles the watcher's events until the sentinel file's.
func drainBench(b *testing.B, w *watcher, sentinel string) {
	b.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case ev := <-w.fsw.Events:
			w.handle(ev)
			if ev.Name == sentinel {
				return
			}
		case err := <-w.fsw.Errors:
			w.handleError(err)
		case <-timeout:
			b.Fatal("no event for the sentinel")
		}
	}
}
