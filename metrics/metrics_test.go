package metrics

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// readFile parses a textfile with the client library's parser.
func readFile(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value is the value of the series of name with exactly these labels.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	fam, ok := fams[name]
	if !ok {
		t.Fatalf("no %s", name)
	}
	for _, m := range fam.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, lp := range m.GetLabel() {
			if labels[lp.GetName()] != lp.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return 0
}

func fakeRun() retention.Report {
	return retention.Report{
		DryRun:   true,
		Problems: []pkgstore.Problem{{Kind: pkgstore.ProblemDepMissing}, {Kind: pkgstore.ProblemDepMissing}, {Kind: pkgstore.ProblemSpecUnmatched}},
		Summary:  retention.ReportSummary{Releases: 10, Keep: 7, Remove: 3, BytesReclaimable: 3000, Removed: 2, Failed: 1, BytesFreed: 2000},
	}
}

func TestWriteRestore(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755)
	store := StorePath(root)
	path := filepath.Join(t.TempDir(), "hab_gc.prom")
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	m := New()
	m.Watch(store, root)
	rep := fakeRun()
	m.ObservePlan(store, rep)
	m.ObserveApply(store, rep.Summary)
	m.ObserveRun(store, TypePrune, t0, t0.Add(1500*time.Millisecond), false)
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	fams := readFile(t, path)
	s := map[string]string{"store": store}
	with := func(k, v string) map[string]string { return map[string]string{"store": store, k: v} }
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"hab_gc_releases", with("action", "keep"), 7},
		{"hab_gc_releases", with("action", "remove"), 3},
		{"hab_gc_reclaimable_bytes", s, 3000},
		{"hab_gc_freed_bytes_total", s, 2000},
		{"hab_gc_removed_releases_total", s, 2},
		{"hab_gc_removals_failed_total", s, 1},
		{"hab_gc_problems", with("kind", "dep-not-installed"), 2},
		{"hab_gc_problems", with("kind", "spec-unmatched"), 1},
		{"hab_gc_last_run_timestamp_seconds", with("type", "prune"), float64(t0.Unix()) + 1.5},
		{"hab_gc_last_run_success", with("type", "prune"), 0},
		{"hab_gc_last_run_duration_seconds", with("type", "prune"), 1.5},
		{"hab_gc_runs_total", map[string]string{"store": store, "type": "prune", "result": "failed"}, 1},
		{"hab_gc_runs_total", map[string]string{"store": store, "type": "prune", "result": "ok"}, 0},
		{"hab_gc_cache_files", s, 0},
	} {
		if got := value(t, fams, tc.name, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	for name, fam := range fams {
		if fam.GetHelp() == "" {
			t.Errorf("%s has no help text", name)
		}
	}
	if v := value(t, fams, "hab_gc_filesystem_free_bytes", s); v <= 0 {
		t.Errorf("free bytes %v", v)
	}

	// The next invocation (a check) reads the file back: counters
	// continue, the prune's series stay, the check's are added.
	m2 := New()
	if err := m2.RestoreFile(path); err != nil {
		t.Fatal(err)
	}
	m2.ObserveApply(store, rep.Summary)
	m2.ObserveProblems(store, []pkgstore.Problem{{Kind: pkgstore.ProblemSymlink}})
	m2.ObserveRun(store, TypeCheck, t0, t0.Add(time.Second), true)
	if err := m2.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	fams = readFile(t, path)
	if got := value(t, fams, "hab_gc_freed_bytes_total", s); got != 4000 {
		t.Errorf("freed after restore and a second run: %v, want 4000", got)
	}
	if got := value(t, fams, "hab_gc_last_run_success", with("type", "prune")); got != 0 {
		t.Errorf("the prune's last result was lost: %v", got)
	}
	if got := value(t, fams, "hab_gc_last_run_success", with("type", "check")); got != 1 {
		t.Errorf("check result %v", got)
	}
	if got := value(t, fams, "hab_gc_problems", with("kind", "symlink")); got != 1 {
		t.Errorf("symlink problems %v", got)
	}
	for _, m := range fams["hab_gc_problems"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "kind" && lp.GetValue() == "dep-not-installed" {
				t.Errorf("a problem kind the last scan did not find is still reported")
			}
		}
	}
	// Atomic: no temporary file left beside it.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files beside the textfile: %v", entries)
	}
}

func TestRestoreBad(t *testing.T) {
	m := New()
	if err := m.Restore([]byte("hab_gc_freed_bytes_total{store=\"/x\"} notanumber\n")); err == nil {
		t.Error("a bad file restored without error")
	}
	// A symlink is not followed.
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.prom")
	os.WriteFile(victim, []byte("# TYPE hab_gc_freed_bytes_total counter\nhab_gc_freed_bytes_total{store=\"/x\"} 5\n"), 0o644)
	link := filepath.Join(dir, "link.prom")
	os.Symlink(victim, link)
	if err := m.RestoreFile(link); err == nil {
		t.Error("restored through a symlink")
	}
	if err := m.RestoreFile(filepath.Join(dir, "missing.prom")); err != nil {
		t.Errorf("a missing file: %v", err)
	}
}

// TestLint: the client library's linter finds nothing against the
// naming conventions (units, _total, help).
func TestLint(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "hab", "pkgs"), 0o755)
	m := New()
	store := StorePath(root)
	m.Watch(store, root)
	rep := fakeRun()
	m.ObservePlan(store, rep)
	m.ObserveApply(store, rep.Summary)
	m.ObserveRun(store, TypeCheck, time.Now(), time.Now(), true)
	probs, err := testutil.GatherAndLint(m.Gatherer())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
