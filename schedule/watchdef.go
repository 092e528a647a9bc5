package schedule

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/retention"
)

// WatchDef is a definition's [watch] table: `hab-gc daemon` watches the
// definition's store as `hab-gc watch` does (package watch), beside its
// scheduled jobs, and purges a package right after a new release of it is
// installed. Its purges take the store's lock, as the jobs do.
type WatchDef struct {
	// Params are the prune keys keep_latest (required), exclude, min_age.
	Params Params
	// KeepLatestFor are keep_latest_for's entries, "ORIGIN/NAME=N", sorted.
	KeepLatestFor []string
	// All: any package, not only loaded services' and the Supervisor's.
	All bool
	// Delay and UnloadGrace are 0 for the defaults (watch.DefaultDelay,
	// watch.DefaultUnloadGrace).
	Delay       time.Duration
	OnUnload    bool
	UnloadGrace time.Duration
}

type watchFormat struct {
	KeepLatest    *int             `toml:"keep_latest"`
	Exclude       []string         `toml:"exclude"`
	MinAge        *string          `toml:"min_age"`
	KeepLatestFor map[string]int64 `toml:"keep_latest_for"`
	All           bool             `toml:"all"`
	Delay         *string          `toml:"delay"`
	OnUnload      bool             `toml:"on_unload"`
	UnloadGrace   *string          `toml:"unload_grace"`
}

// parseWatch reads the [watch] table.
func parseWatch(fail func(field, format string, args ...any) error, wf *watchFormat) (*WatchDef, error) {
	p, err := pruneParams(fail, "watch", wf.KeepLatest, wf.Exclude, wf.MinAge)
	if err != nil {
		return nil, err
	}
	w := &WatchDef{Params: p, All: wf.All, OnUnload: wf.OnUnload}
	for pkg, n := range wf.KeepLatestFor {
		w.KeepLatestFor = append(w.KeepLatestFor, fmt.Sprintf("%s=%d", pkg, n))
	}
	slices.Sort(w.KeepLatestFor)
	if _, err := w.Policy(); err != nil {
		return nil, fail("watch.keep_latest_for", "%v", err)
	}
	dur := func(field string, s *string) (time.Duration, error) {
		if s == nil {
			return 0, nil
		}
		d, err := time.ParseDuration(strings.TrimSpace(*s))
		if strings.TrimSpace(*s) == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return 0, fail("watch."+field, "%q is not a duration such as 30s or 10m (0: the default)", *s)
		}
		return d, nil
	}
	if w.Delay, err = dur("delay", wf.Delay); err != nil {
		return nil, err
	}
	if w.UnloadGrace, err = dur("unload_grace", wf.UnloadGrace); err != nil {
		return nil, err
	}
	return w, nil
}

// Policy returns the watch's retention policy (Params.Policy with
// KeepLatestFor).
func (w WatchDef) Policy() (retention.Policy, error) {
	pol, err := w.Params.Policy()
	if err != nil {
		return pol, err
	}
	for _, c := range w.KeepLatestFor {
		pc, err := retention.ParsePackageCount(c)
		if err != nil {
			return pol, err
		}
		pol.KeepLatestFor = append(pol.KeepLatestFor, pc)
	}
	return pol, pol.Validate()
}

// String describes the watch in one line, as flags would say it.
func (w WatchDef) String() string {
	parts := []string{fmt.Sprintf("keep_latest=%d", w.Params.Count())}
	for _, c := range w.KeepLatestFor {
		parts = append(parts, "keep_latest_for="+c)
	}
	for _, e := range w.Params.Exclude {
		parts = append(parts, fmt.Sprintf("exclude=%q", e))
	}
	if w.Params.MinAge != 0 {
		parts = append(parts, "min_age="+humanize.DurationSetting(w.Params.MinAge, retention.NoMinAge))
	}
	if w.All {
		parts = append(parts, "all")
	}
	if w.Delay > 0 {
		parts = append(parts, "delay="+w.Delay.String())
	}
	if w.OnUnload {
		parts = append(parts, "on_unload")
		if w.UnloadGrace > 0 {
			parts = append(parts, "unload_grace="+w.UnloadGrace.String())
		}
	}
	return strings.Join(parts, " ")
}

// Watches returns the definitions of Dir (and those registered) that have
// a [watch] table, one per store (the first by name when several watch
// one store), and the errors of the rejected ones.
func (s *Scheduler) Watches() ([]Definition, []error) {
	defs, errs := s.definitions()
	slices.SortFunc(defs, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	seen := map[string]bool{}
	var out []Definition
	for _, d := range defs {
		if d.Watch == nil || seen[d.Store] {
			continue
		}
		seen[d.Store] = true
		out = append(out, d)
	}
	return out, errs
}
