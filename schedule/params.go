package schedule

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/retention"
)

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
func (p Params) Canonical() string {
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
