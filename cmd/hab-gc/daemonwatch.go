package main

import (
	"context"
	"strconv"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
	"github.com/hab-gc/hab-gc/watch"
)

// watchConfig is the configuration a definition's [watch] runs with: that
// of `hab-gc watch --fs-root ROOT --keep-latest=K [--exclude=E...]
// [--min-age=M] [--keep-latest-for=P=N...]` in the daemon's environment,
// with the daemon's --config, --target and --lock-timeout, as jobConfig
// does for a scheduled prune.
func (a *app) watchConfig(daemon *cobra.Command, fsRoot string, wd schedule.WatchDef) (*config, error) {
	cmd := a.watchCmd()
	addRootFlags(cmd.Flags())
	set := func(name, value string) error { return cmd.Flags().Set(name, value) }
	for _, name := range storeFlags() {
		if f := daemon.Flags().Lookup(name); f != nil && f.Changed {
			if err := set(name, f.Value.String()); err != nil {
				return nil, err
			}
		}
	}
	vals := [][2]string{{"fs-root", fsRoot}, {"keep-latest", strconv.Itoa(wd.Params.Count())}}
	for _, e := range wd.Params.Exclude {
		vals = append(vals, [2]string{"exclude", e})
	}
	for _, k := range wd.KeepLatestFor {
		vals = append(vals, [2]string{"keep-latest-for", k})
	}
	if wd.Params.MinAge != 0 {
		vals = append(vals, [2]string{"min-age", humanize.DurationSetting(wd.Params.MinAge, retention.NoMinAge)})
	}
	for _, v := range vals {
		if err := set(v[0], v[1]); err != nil {
			return nil, err
		}
	}
	return loadConfig(cmd, a.lookup)
}

// startWatches starts, beside the scheduler's jobs, a watch (package
// watch) of each store whose definition has a [watch] table; its purges
// take the store's lock as the jobs do. The returned function waits for
// them to stop once ctx is done. A definition's watch that cannot start
// is logged and left out; the jobs run regardless.
func (a *app) startWatches(ctx context.Context, daemon *cobra.Command, s *schedule.Scheduler, mf *metricsFile) func() {
	defs, _ := s.Watches()
	var wg sync.WaitGroup
	var mu sync.Mutex // one metrics file, written after each purge
	for _, d := range defs {
		log := s.Logger.With("watch", d.Name, "store", d.Store)
		c, err := a.watchConfig(daemon, d.FSRoot, *d.Watch)
		var o watch.Options
		if err == nil {
			o.Policy, o.Scan, err = c.pruneSetup(true)
		}
		if err == nil {
			o.Store, err = c.open()
		}
		if err != nil {
			log.Error("the store's watch cannot start; its scheduled jobs run regardless", "error", err)
			continue
		}
		o.All, o.Delay, o.OnUnload, o.UnloadGrace = d.Watch.All, d.Watch.Delay, d.Watch.OnUnload, d.Watch.UnloadGrace
		o.InstallWindow = o.Scan.InstallWindow // install_window, as `hab-gc watch` (0: the default)
		o.LockTimeout, o.Logger, o.Schedule = s.LockTimeout, log, d.Name
		if mf != nil {
			o.Metrics = mf.m
			if mf.path != "" {
				o.OnPurge = func(watch.Purge) { mu.Lock(); defer mu.Unlock(); mf.write(a) }
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer o.Store.Close()
			if err := watch.Run(ctx, o); err != nil {
				log.Error("the store's watch stopped", "error", err)
			}
		}()
	}
	return wg.Wait
}
