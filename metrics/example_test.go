package metrics_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/history"
	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pkgstore/pkgstoretest"
	"github.com/hab-gc/hab-gc/retention"
)

// A program that runs hab-gc's library records each run in a Metrics and
// writes them for node_exporter's textfile collector (or serves Handler).
func ExampleMetrics() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	m := metrics.New()
	start := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	m.ObserveRun("/hab/pkgs", metrics.TypePrune, start, start.Add(2*time.Second), true)
	m.ObserveApply("/hab/pkgs", retention.ReportSummary{Removed: 3, BytesFreed: 4096})
	file := filepath.Join(dir, "hab_gc.prom")
	if err := m.WriteFile(file); err != nil {
		panic(err)
	}
	b, _ := os.ReadFile(file)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "hab_gc_removed_releases_total") || strings.HasPrefix(l, "hab_gc_freed_bytes_total") || strings.HasPrefix(l, "hab_gc_runs_total") {
			fmt.Println(l)
		}
	}
	// Output:
	// hab_gc_freed_bytes_total{store="/hab/pkgs"} 4096
	// hab_gc_removed_releases_total{store="/hab/pkgs"} 3
	// hab_gc_runs_total{result="failed",store="/hab/pkgs",type="prune"} 0
	// hab_gc_runs_total{result="ok",store="/hab/pkgs",type="prune"} 1
}

// A program that prunes with the library records the run as hab-gc does:
// in the store's history (the journal `hab-gc history` reads) and in
// metrics, written for node_exporter's textfile collector. Then it reads
// the history back.
func Example_historyAndMetrics() {
	ctx := context.Background()
	fsRoot, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(fsRoot)
	s, _ := pkgstoretest.New(fsRoot)
	for _, id := range []string{"core/redis/7.0.0/20220101000000", "core/redis/7.0.1/20220201000000"} {
		s.Add(pkgstoretest.Release{Ident: id, Target: pkgstore.DefaultTarget()})
	}
	if err := s.Err(); err != nil {
		panic(err)
	}
	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	promFile := filepath.Join(fsRoot, "hab_gc.prom")

	policy := retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}
	start := time.Now()
	plan, err := retention.PlanStore(ctx, store, policy, start)
	if err != nil {
		log.Fatal(err)
	}
	res, err := plan.Apply(ctx, store)
	id := "purge-" + start.UTC().Format("20060102T150405Z")
	run := history.Run{ID: id, Job: history.JobRun, FSRoot: fsRoot,
		Policy: policy}
	herr := history.LogContext(ctx, start, run, plan, res, err)
	if herr != nil {
		log.Print("history: ", herr) // the run happened all the same
	}
	m, label := metrics.New(), metrics.StorePath(fsRoot)
	m.ObservePlan(label, plan.Report(res))
	m.ObserveApply(label, plan.Report(res).Summary)
	ok := err == nil && !res.Partial()
	m.ObserveRun(label, metrics.TypePrune, start, time.Now(), ok)
	if err := m.WriteFile(promFile); err != nil {
		log.Fatal(err)
	}

	j, err := history.ForFSRoot(fsRoot)
	if err != nil {
		log.Fatal(err)
	}
	recs, _, err := j.Read()
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range recs {
		fmt.Println(r.Kind, r.Outcome, r.Ident, r.BytesFreed > 0)
	}
	b, _ := os.ReadFile(promFile)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "hab_gc_removed_releases_total") || strings.HasPrefix(l, "hab_gc_last_run_success") {
			fmt.Println(strings.Replace(l, label, "STORE", 1))
		}
	}
	// Output:
	// release removed core/redis/7.0.0/20220101000000 true
	// run ok  true
	// hab_gc_last_run_success{store="STORE",type="prune"} 1
	// hab_gc_removed_releases_total{store="STORE"} 1
}
