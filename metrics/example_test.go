package metrics_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/metrics"
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
