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
	Check    JobType = "check"
	Prune    JobType = "prune"
	Pressure JobType = "pressure" // a prune when free space is low
)

// ErrDefinition is wrapped by errors about definition files.
var ErrDefinition = errors.New("invalid schedule definition")

// errNoDir is a schedules directory missing or unreadable (being
// replaced): Reload then keeps everything.
var errNoDir = errors.New("schedules directory unreadable")

// JobDef is one job a definition asks for.
type JobDef struct {
	Type   JobType
	Spec   Spec
	Params Params // prune only
}

// Definition is one schedule file.
type Definition struct {
	Name    string    // default: the file stem
	File    string    // the definition's path
	Created time.Time // orders schedules for ownership; zero: when first seen
	// FSRoot is the store's FS root as written; Store the canonical store
	// path.
	FSRoot, Store string
	root          string // FSRoot, canonical
	Jobs          []JobDef
	Pressure      *PressureDef
	Watch         *WatchDef
}

// PressureDef is a definition's [pressure] table: below MinFree free,
// prune with Params until MaxFree is free (see package pressure).
type PressureDef struct {
	Params Params
	Limits pressure.Limits
}

// Params are a prune job's parameters, part of what makes two schedules
// the same job. They mean what retention.Policy's fields do: the zero
// value is refused.
type Params struct {
	KeepLatest int // retention.KeepNone for keep_latest = 0
	Exclude    []string
	MinAge     time.Duration // 0: the default; retention.NoMinAge: none
}

// Validate checks the parameters as the policy they make.
func (p Params) Validate() error {
	_, err := p.Policy()
	return err
}

// Count is KeepLatest as a file or flag writes it: 0 for KeepNone.
func (p Params) Count() int { return max(p.KeepLatest, 0) }

func normaliseExcludes(ex []string) []string {
	out := make([]string, 0, len(ex))
	for _, e := range ex {
		out = append(out, strings.TrimSpace(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// canonical is the encoding job keys have always hashed: a schedule
// keeps its key and its state.
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
// store as `hab-gc watch` does, beside its scheduled jobs.
type WatchDef struct {
	Params        Params
	KeepLatestFor []string // "ORIGIN/NAME=N", sorted
	All           bool     // any package, not only loaded services' and the Supervisor's
	// Delay and UnloadGrace are 0 for watch's defaults.
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

// Policy returns the watch's retention policy.
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

// Watches returns the definitions with a [watch] table, one per store
// (the first by name), and the errors of the rejected ones.
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
