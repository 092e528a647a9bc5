package metrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/prometheus/common/expfmt"
)

// WriteFile writes the metrics to path for node_exporter's textfile
// collector, atomically: a temporary dot-file in the same directory (which
// the collector, reading *.prom, ignores), synced and renamed over path.
// An error names path, never the temporary file, which is removed.
func (m *Metrics) WriteFile(path string) error {
	if m == nil {
		return ErrNilMetrics
	}
	fail := func(err error) error {
		return fmt.Errorf("metrics: cannot write %s: %w", path, bare(err))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fail(err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	fams, err := m.reg.Gather()
	if err != nil {
		return fail(err)
	}
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(tmp, f); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		done = true
		return fail(err)
	}
	done = true
	return nil
}

// bare drops the file names an *fs.PathError or *os.LinkError carries
// (the temporary file's), keeping the cause.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
