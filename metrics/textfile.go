package metrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/prometheus/common/expfmt"
)

// WriteFile writes path atomically through a dot-file (which the
// collector ignores); an error names path, never the temporary file.
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
		return fail(err)
	}
	done = true
	return nil
}

// bare drops the temporary file's name from err.
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
