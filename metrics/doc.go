// Package metrics exposes what hab-gc finds and does as Prometheus
// metrics, for node_exporter's textfile collector (Metrics.WriteFile) and
// for scraping (Metrics.Handler); docs/metrics.md lists them. Every series
// has a store label (FS_ROOT/hab/pkgs), run series a type (prune, check).
// RestoreFile reads a textfile back before it is rewritten, so counters
// continue and other invocations' series stay. See ExampleMetrics.
package metrics
