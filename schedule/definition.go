package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pressure"
	"github.com/hab-gc/hab-gc/retention"
)

// JobType is the kind of job a schedule asks for.
type JobType string

const (
	Check JobType = "check"
	Prune JobType = "prune"
	// Pressure is a prune that runs when free space on the store's file
	// system falls below a definition's [pressure] min_free.
	Pressure JobType = "pressure"
)

// ErrDefinition is wrapped by errors about definition files.
var ErrDefinition = errors.New("invalid schedule definition")

// errNoDir is wrapped by the problem of a schedules directory that is
// missing or unreadable (being replaced): Reload then keeps everything.
var errNoDir = errors.New("schedules directory unreadable")

// JobDef is one job a definition asks for.
type JobDef struct {
	Type   JobType
	Spec   Spec
	Params Params // prune only
}

// Definition is one schedule file.
type Definition struct {
	// Name defaults to the file stem.
	Name string
	// File is the definition's path.
	File string
	// Created orders schedules for ownership; zero when the file does not
	// say (the scheduler then uses when it first saw it).
	Created time.Time
	// FSRoot is the store's FS root as written; Store the canonical store
	// path (absolute, symlinks resolved as far as it exists).
	FSRoot, Store string
	root          string // FSRoot, canonical
	Jobs          []JobDef
	// Pressure is the [pressure] table: prune when free space on the
	// store's file system falls below MinFree (nil: none).
	Pressure *PressureDef
	// Watch is the [watch] table: the daemon watches the store and purges
	// after installs (nil: none).
	Watch *WatchDef
}

// PressureDef is a definition's [pressure] table: when the store's file
// system has less than MinFree free, prune with Params until MaxFree is
// free (see package pressure).
type PressureDef struct {
	Params Params
	Limits pressure.Limits
}

// Params are a prune job's parameters. They are part of what makes two
// schedules the same job. They mean what retention.Policy's fields do:
// the zero value is refused.
type Params struct {
	// KeepLatest is 1 or more, or retention.KeepNone to keep no release
	// by count (keep_latest = 0 in a file). 0 is unset, and refused
	// (retention.ErrEmptyPolicy).
	KeepLatest int
	Exclude    []string
	// MinAge is 0 for the default (hab-gc's min_age setting, else
	// retention.DefaultMinAge), retention.NoMinAge for none.
	MinAge time.Duration
}

// Validate checks the parameters as the policy they make
// (retention.Policy.Validate): KeepLatest 0 is refused, MinAge below zero
// other than retention.NoMinAge too.
func (p Params) Validate() error {
	_, err := p.Policy()
	return err
}

// Count is KeepLatest as a file or flag writes it: 0 for KeepNone.
func (p Params) Count() int { return max(p.KeepLatest, 0) }

// normaliseExcludes trims each exclude, sorts them and drops repeats, so
// that lists that differ only in that way are one job.
func normaliseExcludes(ex []string) []string {
	out := make([]string, 0, len(ex))
	for _, e := range ex {
		out = append(out, strings.TrimSpace(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Canonical encodes the parameters deterministically (excludes trimmed,
// sorted, without repeats).
//
// The encoding is the one job keys have always hashed (keep_latest as a
// file writes it; has_min_age for a min age that is set), so that a
// schedule keeps its key and its state.
func (p Params) canonical() string {
	b, _ := json.Marshal(struct {
		KeepLatest int           `json:"keep_latest"`
		Exclude    []string      `json:"exclude"`
		MinAge     time.Duration `json:"min_age"`
		HasMinAge  bool          `json:"has_min_age"`
	}{p.Count(), normaliseExcludes(p.Exclude), p.MinAge, p.MinAge != 0})
	return string(b)
}

// Policy returns the retention policy of a prune job.
func (p Params) Policy() (retention.Policy, error) {
	pol := retention.Policy{KeepLatest: p.KeepLatest, MinAge: p.MinAge}
	for _, e := range p.Exclude {
		ex, err := retention.ParseExclude(e)
		if err != nil {
			return pol, err
		}
		pol.Excludes = append(pol.Excludes, ex)
	}
	return pol, pol.Validate()
}

// pruneParams reads a prune's keys (of the [prune] or [pressure] table).
func pruneParams(fail func(field, format string, args ...any) error, table string, keep *int, exclude []string, minAge *string) (Params, error) {
	if keep == nil {
		return Params{}, fail(table+".keep_latest", "missing: a prune job needs a policy")
	}
	if *keep < 0 {
		return Params{}, fail(table+".keep_latest", "%d is negative", *keep)
	}
	p := Params{KeepLatest: retention.KeepCount(*keep), Exclude: normaliseExcludes(exclude)}
	if minAge != nil {
		dur, err := retention.ParseDuration(*minAge, retention.NoMinAge)
		if err != nil {
			return Params{}, fail(table+".min_age", "%v", err)
		}
		p.MinAge = dur
	}
	if _, err := p.Policy(); err != nil {
		return Params{}, fail(table+".exclude", "%v", err)
	}
	return p, nil
}

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
