package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hab-gc/hab-gc/internal/safeio"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// Job types (the type label).
const (
	TypePrune = "prune"
	TypeCheck = "check"
)

const restoreLimit = 16 << 20

var ErrNilMetrics = errors.New("metrics: nil *Metrics")

// Metrics has a registry of its own. A nil *Metrics records and serves
// nothing; its methods that return an error return ErrNilMetrics.
type Metrics struct {
	reg         *prometheus.Registry
	releases    *prometheus.GaugeVec
	reclaimable *prometheus.GaugeVec
	storeBytes  *prometheus.GaugeVec
	problems    *prometheus.GaugeVec
	freed       *prometheus.CounterVec
	removed     *prometheus.CounterVec
	failed      *prometheus.CounterVec
	runs        *prometheus.CounterVec
	lastRun     *prometheus.GaugeVec
	lastOK      *prometheus.GaugeVec
	duration    *prometheus.GaugeVec
	history     *prometheus.CounterVec
	notRun      *prometheus.CounterVec
	stores      *storeCollector
	restorable  map[string]restorable
}

type restorable struct {
	gauge   *prometheus.GaugeVec
	counter *prometheus.CounterVec
}

func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		releases: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_releases",
			Help: "Installed releases by the action of the last plan (keep, remove)."}, []string{"store", "action"}),
		reclaimable: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_reclaimable_bytes",
			Help: "Bytes the last plan's removals would free (its releases to remove, measured)."}, []string{"store"}),
		storeBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_store_bytes",
			Help: "Bytes on disk of the store's releases, set by a plan that measured every release (run --verbose, run --max-free), less what its run removed; other runs, which measure only what they remove, leave it."}, []string{"store"}),
		problems: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_problems",
			Help: "Problems the last scan of the store found, by kind (see hab-gc check)."}, []string{"store", "kind"}),
		freed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hab_gc_freed_bytes_total",
			Help: "Bytes freed by removed releases."}, []string{"store"}),
		removed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hab_gc_removed_releases_total",
			Help: "Releases removed."}, []string{"store"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hab_gc_removals_failed_total",
			Help: "Removals that failed (the release may be partly removed; see hab-gc history)."}, []string{"store"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hab_gc_runs_total",
			Help: "Runs by job type (prune, check) and result (ok, failed)."}, []string{"store", "type", "result"}),
		lastRun: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_last_run_timestamp_seconds",
			Help: "When the last run of each job type ended, in seconds since the epoch."}, []string{"store", "type"}),
		lastOK: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_last_run_success",
			Help: "1 when the last run of each job type succeeded, 0 when it failed (a prune with a failed removal, a check with errors)."}, []string{"store", "type"}),
		duration: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hab_gc_last_run_duration_seconds",
			Help: "How long the last run of each job type took."}, []string{"store", "type"}),
		notRun: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hab_gc_scheduled_jobs_not_run_total",
			Help: "Due scheduled jobs hab-gc could not run (store locked past the timeout, unusable store or state); each stays due and is retried."}, []string{"store", "job"}),
		history: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hab_gc_history_write_failures_total",
			Help: "Runs whose records could not be appended to the store's history (a journal locked by another process, a full disk); the run's work stands."}, []string{"store"}),
		stores: newStoreCollector(),
	}
	m.reg.MustRegister(m.releases, m.reclaimable, m.storeBytes, m.problems, m.freed, m.removed, m.failed, m.runs,
		m.lastRun, m.lastOK, m.duration, m.history, m.notRun, m.stores)
	m.restorable = map[string]restorable{
		"hab_gc_releases":                     {gauge: m.releases},
		"hab_gc_reclaimable_bytes":            {gauge: m.reclaimable},
		"hab_gc_store_bytes":                  {gauge: m.storeBytes},
		"hab_gc_problems":                     {gauge: m.problems},
		"hab_gc_freed_bytes_total":            {counter: m.freed},
		"hab_gc_removed_releases_total":       {counter: m.removed},
		"hab_gc_removals_failed_total":        {counter: m.failed},
		"hab_gc_runs_total":                   {counter: m.runs},
		"hab_gc_last_run_timestamp_seconds":   {gauge: m.lastRun},
		"hab_gc_last_run_success":             {gauge: m.lastOK},
		"hab_gc_last_run_duration_seconds":    {gauge: m.duration},
		"hab_gc_history_write_failures_total": {counter: m.history},
		"hab_gc_scheduled_jobs_not_run_total": {counter: m.notRun},
	}
	return m
}

func (m *Metrics) Gatherer() prometheus.Gatherer {
	if m == nil {
		return prometheus.Gatherers{}
	}
	return m.reg
}

func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Gatherer(), promhttp.HandlerOpts{})
}

// StorePath is an FS root's store label, absolute and with symlinks
// resolved, so that run, check and the daemon label one store alike.
func StorePath(fsRoot string) string {
	p := filepath.Join(fsRoot, "hab", "pkgs")
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

// Watch measures the file system and artifact cache of fsRoot at each
// gathering.
func (m *Metrics) Watch(store, fsRoot string) {
	if m == nil {
		return
	}
	m.stores.mu.Lock()
	defer m.stores.mu.Unlock()
	m.stores.roots[store] = fsRoot
}

// ObservePlan: after a real run the gauges say what is left (kept at
// revalidation counts as keep, a failed removal as remove).
func (m *Metrics) ObservePlan(store string, rep retention.Report) {
	if m == nil {
		return
	}
	s := rep.Summary
	keep, remove, reclaimable := s.Keep, s.Remove, s.BytesReclaimable
	if !rep.DryRun {
		keep, remove = s.Keep+s.KeptAtRun, s.Failed
		if reclaimable >= 0 {
			reclaimable = max(reclaimable-s.BytesFreed, 0)
		}
	}
	m.releases.WithLabelValues(store, string(retention.Keep)).Set(float64(keep))
	m.releases.WithLabelValues(store, string(retention.Remove)).Set(float64(remove))
	if reclaimable >= 0 {
		m.reclaimable.WithLabelValues(store).Set(float64(reclaimable))
	}
	if size, ok := storeBytes(rep.Releases); ok {
		m.storeBytes.WithLabelValues(store).Set(float64(size))
	}
	m.ObserveProblems(store, rep.Problems)
}

// storeBytes is what is left after the run; ok unless one was not measured.
func storeBytes(rels []retention.ReportRelease) (size int64, ok bool) {
	for _, r := range rels {
		if r.Size == nil {
			return 0, false
		}
		if o := r.Outcome; o == nil || o.Status != retention.StatusRemoved && o.Status != retention.StatusGone {
			size += *r.Size
		}
	}
	return size, true
}

func (m *Metrics) ObserveProblems(store string, problems []pkgstore.Problem) {
	if m == nil {
		return
	}
	m.problems.DeletePartialMatch(prometheus.Labels{"store": store})
	for _, p := range problems {
		m.problems.WithLabelValues(store, string(p.Kind)).Inc()
	}
}

// ObserveApply shows the counters even at 0.
func (m *Metrics) ObserveApply(store string, s retention.ReportSummary) {
	if m == nil {
		return
	}
	m.freed.WithLabelValues(store).Add(float64(max(s.BytesFreed, 0)))
	m.removed.WithLabelValues(store).Add(float64(max(s.Removed, 0)))
	m.failed.WithLabelValues(store).Add(float64(max(s.Failed, 0)))
}

func (m *Metrics) ObserveHistoryFailure(store string) {
	if m != nil {
		m.history.WithLabelValues(store).Inc()
	}
}

func (m *Metrics) ObserveNotRun(store, typ string) {
	if m != nil {
		m.notRun.WithLabelValues(store, typ).Inc()
	}
}

func (m *Metrics) ObserveRun(store, typ string, start, end time.Time, ok bool) {
	if m == nil {
		return
	}
	result, okv := "failed", 0.0
	if ok {
		result, okv = "ok", 1
	}
	for _, r := range []string{"ok", "failed"} {
		m.runs.WithLabelValues(store, typ, r).Add(0)
	}
	m.runs.WithLabelValues(store, typ, result).Inc()
	m.lastRun.WithLabelValues(store, typ).Set(float64(end.UnixNano()) / 1e9)
	m.lastOK.WithLabelValues(store, typ).Set(okv)
	m.duration.WithLabelValues(store, typ).Set(end.Sub(start).Seconds())
}

// restore: counters continue from the file's values, gauges keep them
// until observed again; unknown series are ignored.
func (m *Metrics) restore(data []byte) error {
	if m == nil {
		return ErrNilMetrics
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	for name, fam := range fams {
		r, ok := m.restorable[name]
		if !ok {
			continue
		}
		for _, mt := range fam.GetMetric() {
			labels := prometheus.Labels{}
			for _, lp := range mt.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			switch {
			case r.counter != nil && fam.GetType() == dto.MetricType_COUNTER:
				if c, err := r.counter.GetMetricWith(labels); err == nil && mt.GetCounter().GetValue() >= 0 {
					c.Add(mt.GetCounter().GetValue())
				}
			case r.gauge != nil && fam.GetType() == dto.MetricType_GAUGE:
				if g, err := r.gauge.GetMetricWith(labels); err == nil {
					g.Set(mt.GetGauge().GetValue())
				}
			}
		}
	}
	return nil
}

// RestoreFile reads the textfile at path, if any, not following a symlink.
func (m *Metrics) RestoreFile(path string) error {
	if m == nil {
		return ErrNilMetrics
	}
	b, err := safeio.ReadFile(path, restoreLimit, safeio.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("metrics: previous file %s: %w", path, err)
	}
	return m.restore(b)
}

type storeCollector struct {
	mu    sync.Mutex
	roots map[string]string // store label -> FS root

	free, size, cacheFiles, cacheBytes *prometheus.Desc
}

func newStoreCollector() *storeCollector {
	return &storeCollector{roots: map[string]string{},
		free: prometheus.NewDesc("hab_gc_filesystem_free_bytes",
			"Bytes available to unprivileged users on the file system the store is on (statfs).", []string{"store"}, nil),
		size: prometheus.NewDesc("hab_gc_filesystem_size_bytes",
			"Size of the file system the store is on (statfs); the store's own is hab_gc_store_bytes.", []string{"store"}, nil),
		cacheFiles: prometheus.NewDesc("hab_gc_cache_files",
			"Package archives (*.hart) in FS_ROOT/hab/cache/artifacts (hab-gc removes them only with run --cache).", []string{"store"}, nil),
		cacheBytes: prometheus.NewDesc("hab_gc_cache_bytes",
			"Bytes of the package archives in FS_ROOT/hab/cache/artifacts.", []string{"store"}, nil),
	}
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.free
	ch <- c.size
	ch <- c.cacheFiles
	ch <- c.cacheBytes
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	roots := maps.Clone(c.roots)
	c.mu.Unlock()
	for store, root := range roots {
		sp, err := pressure.Statfs(filepath.Join(root, "hab", "pkgs"))()
		if err != nil {
			continue // no store yet, or no statfs here
		}
		ch <- prometheus.MustNewConstMetric(c.free, prometheus.GaugeValue, float64(sp.Avail), store)
		ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(sp.Total), store)
		if files, bytes, ok := cache(root); ok {
			ch <- prometheus.MustNewConstMetric(c.cacheFiles, prometheus.GaugeValue, float64(files), store)
			ch <- prometheus.MustNewConstMetric(c.cacheBytes, prometheus.GaugeValue, float64(bytes), store)
		}
	}
}

// cache counts the regular *.hart files; ok is false when unlistable.
func cache(root string) (files, size int64, ok bool) {
	entries, err := safeio.ReadDir(filepath.Join(root, "hab", "cache", "artifacts"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, true
	}
	if err != nil {
		return 0, 0, false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".hart") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		files++
		size += fi.Size()
	}
	return files, size, true
}
