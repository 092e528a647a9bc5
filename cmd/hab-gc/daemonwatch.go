package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/schedule"
	"github.com/hab-gc/hab-gc/watch"
)

// watchConfig is the configuration of a definition's [watch].
func (a *app) watchConfig(daemon *cobra.Command, d schedule.Definition) (*config, error) {
	fixed := jobSettings(d.FSRoot, d.Name, "watch", d.Watch.Params)
	if len(d.Watch.KeepLatestFor) > 0 {
		fixed = append(fixed, given{"keep_latest_for", strings.Join(d.Watch.KeepLatestFor, ";"), fmt.Sprintf("schedule %q [watch] keep_latest_for", d.Name)})
	}
	c, err := loadConfig(daemon, a.lookup, fixed...)
	if err == nil {
		c.jobPins, c.jobPinSource = d.Watch.Params.Exclude, fmt.Sprintf("schedule %q [watch] exclude", d.Name)
	}
	return c, err
}

// startWatches starts each definition's [watch]; one that cannot start is
// logged, the jobs run regardless. wait returns once they have stopped.
func (a *app) startWatches(ctx context.Context, daemon *cobra.Command, s *schedule.Scheduler, mf *metricsFile) func() {
	defs, _ := s.Watches()
	var wg sync.WaitGroup
	var mu sync.Mutex // one metrics file, written after each purge
	for _, d := range defs {
		log := s.Logger.With("watch", d.Name, "store", d.Store)
		c, err := a.watchConfig(daemon, d)
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
		o.InstallWindow = o.Scan.InstallWindow
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
