package metrics

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// TestNilMetrics: a nil *Metrics records nothing: its Observe and Watch
// methods do nothing, and the methods that return an error return
// ErrNilMetrics.
func TestNilMetrics(t *testing.T) {
	t.Parallel()
	var m *Metrics
	for name, call := range map[string]func() error{
		"Watch":                 func() error { m.Watch("s", "/"); return nil },
		"ObservePlan":           func() error { m.ObservePlan("s", retention.Report{}); return nil },
		"ObserveProblems":       func() error { m.ObserveProblems("s", []pkgstore.Problem{{}}); return nil },
		"ObserveApply":          func() error { m.ObserveApply("s", retention.ReportSummary{}); return nil },
		"ObserveHistoryFailure": func() error { m.ObserveHistoryFailure("s"); return nil },
		"ObserveNotRun":         func() error { m.ObserveNotRun("s", "prune"); return nil },
		"ObserveRun":            func() error { m.ObserveRun("s", "prune", time.Now(), time.Now(), true); return nil },
		"Restore":               func() error { return want(m.Restore(nil)) },
		"RestoreFile":           func() error { return want(m.RestoreFile(filepath.Join(t.TempDir(), "m.prom"))) },
		"WriteFile":             func() error { return want(m.WriteFile(filepath.Join(t.TempDir(), "m.prom"))) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			if err := call(); err != nil {
				t.Error(err)
			}
		})
	}
}

// want is nil when err wraps ErrNilMetrics, else an error saying what err was.
func want(err error) error {
	if errors.Is(err, ErrNilMetrics) {
		return nil
	}
	return errors.New("got " + errString(err) + ", want ErrNilMetrics")
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
