package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/metrics"
	"github.com/hab-gc/hab-gc/schedule"
)

func addMetricsFileFlag(cmd *cobra.Command) {
	cmd.Flags().String("metrics-file", "", "write Prometheus metrics to this file for node_exporter's textfile collector (atomically; counters continue from the file's values)")
}

// metricsFile is --metrics-file: counters continue from the file's.
type metricsFile struct {
	path  string
	m     *metrics.Metrics
	store string
}

// openMetricsFile is nil without --metrics-file. A file that cannot be
// written is refused before any work, or when optional (the daemon, watch)
// a warning: each write tries again.
func (a *app) openMetricsFile(c *config, fsRoot string, optional bool) (*metricsFile, error) {
	path := c.raw("metrics_file")
	if path == "" {
		return nil, nil
	}
	probe, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".probe*")
	if err != nil {
		err = fmt.Errorf("--metrics-file %s cannot be written (from %s): %v", path, c.source("metrics_file"), pathless(err))
		if !optional {
			return nil, usageError{err}
		}
		fmt.Fprintf(a.textErr, "hab-gc: warning: %v\n", err)
	} else {
		probe.Close()
		os.Remove(probe.Name())
	}
	mf := &metricsFile{path: path, m: metrics.New(), store: metrics.StorePath(fsRoot)}
	if err := mf.m.RestoreFile(path); err != nil {
		fmt.Fprintf(a.stderr, "hab-gc: warning: counters start again from 0: %v\n", err)
	}
	mf.m.Watch(mf.store, fsRoot)
	return mf, nil
}

// write writes the file; a failure is a warning.
func (mf *metricsFile) write(a *app) {
	if err := mf.writeErr(); err != nil {
		fmt.Fprintf(a.stderr, "hab-gc: warning: %v\n", err)
	}
}

func (mf *metricsFile) writeErr() error {
	if mf == nil {
		return nil
	}
	return mf.m.WriteFile(mf.path)
}

func observeJob(m *metrics.Metrics, j schedule.Job, fsRoot string, start, end time.Time, res schedule.RunResult, ok bool) {
	m.Watch(j.Store, fsRoot)
	switch j.Type {
	case schedule.Prune, schedule.Pressure:
		if res.Plan != nil {
			m.ObservePlan(j.Store, *res.Plan)
		} else if res.ProblemList != nil {
			m.ObserveProblems(j.Store, res.ProblemList)
		}
		if res.Plan != nil {
			m.ObserveApply(j.Store, res.Plan.Summary)
		}
		m.ObserveRun(j.Store, metrics.TypePrune, start, end, ok)
		if res.HistoryError != "" {
			m.ObserveHistoryFailure(j.Store)
		}
	case schedule.Check:
		m.ObserveProblems(j.Store, res.ProblemList)
		m.ObserveRun(j.Store, metrics.TypeCheck, start, end, ok && res.OK)
	}
}

func serveMetrics(ctx context.Context, addr string, m *metrics.Metrics, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageError{fmt.Errorf("invalid --metrics-listen %q: %v", addr, err)}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("serving metrics", "error", err)
		}
	}()
	log.Info("serving metrics", "addr", ln.Addr().String(), "path", "/metrics")
	return nil
}
