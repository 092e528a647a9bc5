package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
	"github.com/hab-gc/hab-gc/schedule"
)

// jobSettings are what a definition fixes for its job: the FS root, and a
// prune's count and minimum age; the rest are read as run reads them.
func jobSettings(fsRoot, owner, table string, p schedule.Params) []given {
	src := func(key string) string { return fmt.Sprintf("schedule %q [%s] %s", owner, table, key) }
	out := []given{{"fs_root", fsRoot, fmt.Sprintf("schedule %q fs_root", owner)}}
	if table == string(schedule.Check) {
		return out
	}
	out = append(out, given{"keep_latest", strconv.Itoa(p.Count()), src("keep_latest")})
	if p.MinAge != 0 {
		out = append(out, given{"min_age", humanize.DurationSetting(p.MinAge, retention.NoMinAge), src("min_age")})
	}
	return out
}

// jobSetup is the daemon's schedule.Setup: pruneSetup of each job.
func (a *app) jobSetup(daemon *cobra.Command) schedule.Setup {
	return func(fsRoot string, j schedule.Job) (retention.Policy, pkgstore.Options, error) {
		c, err := loadConfig(daemon, a.lookup, jobSettings(fsRoot, j.Owner, string(j.Type), j.Params)...)
		if err != nil {
			return retention.Policy{}, pkgstore.Options{}, err
		}
		if j.Type == schedule.Check {
			opts, err := c.scanOptions()
			return retention.Policy{}, opts, err
		}
		c.jobPins, c.jobPinSource = j.Params.Exclude, j.PinSource()
		return c.pruneSetup(true)
	}
}
