// Package metrics exposes what hab-gc finds and does as Prometheus
// metrics: for node_exporter's textfile collector (Metrics.WriteFile,
// written atomically) and for scraping (Metrics.Handler, the daemon's
// /metrics).
//
// Every metric carries a store label (the store's path, FS_ROOT/hab/pkgs);
// run metrics carry type (prune, check). Gauges describe the last plan or
// check of each store; counters add up what real runs did:
//
//	hab_gc_releases{store,action}                 releases by the last plan's action (keep, remove)
//	hab_gc_reclaimable_bytes{store}               bytes the last plan would free
//	hab_gc_problems{store,kind}                   problems the last scan found, by kind
//	hab_gc_freed_bytes_total{store}               bytes freed by removals
//	hab_gc_removed_releases_total{store}          releases removed
//	hab_gc_removals_failed_total{store}           removals that failed
//	hab_gc_runs_total{store,type,result}          runs by job type and result (ok, failed)
//	hab_gc_last_run_timestamp_seconds{store,type} when the last run of each type ended
//	hab_gc_last_run_success{store,type}           1 when that run succeeded, else 0
//	hab_gc_last_run_duration_seconds{store,type}  how long it took
//	hab_gc_store_bytes{store}                     bytes of the store's releases, when a plan measured them all
//	hab_gc_filesystem_free_bytes{store}           bytes available on the store's file system (statfs)
//	hab_gc_filesystem_size_bytes{store}           that file system's size
//	hab_gc_cache_files{store}                     *.hart files in FS_ROOT/hab/cache/artifacts
//	hab_gc_cache_bytes{store}                     their bytes
//
// The file-system and cache metrics are measured at each gathering.
// Restore reads a textfile back before it is rewritten, so counters
// continue and other invocations' series stay.
package metrics
