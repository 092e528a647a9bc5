package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hab-gc/hab-gc/internal/suggest"
	"github.com/hab-gc/hab-gc/retention"
)

// testOnlyEnv are HAB_GC_* variables hab-gc's own tests give the processes
// they start (internal/proctest and the test helpers): known, not settings.
var testOnlyEnv = []string{"HAB_GC_TEST_", "HAB_GC_FLOCK_HELPER", "HAB_GC_LEASE_HELPER", "HAB_GC_PROCTEST_MAP",
	"HAB_GC_RUNROOTS_BLIND_PLAN", "HAB_GC_BENCH_"}

// knownEnv are the HAB_GC_* variables hab-gc reads: the settings', and
// those read only from the environment (HAB_GC_CONFIG, HAB_GC_MACHINE_ID,
// HAB_GC_STOP_GRACE).
func knownEnv() []string {
	var out []string
	for _, s := range settings() {
		for _, e := range s.env {
			if strings.HasPrefix(e, "HAB_GC_") {
				out = append(out, e)
			}
		}
	}
	return append(out, "HAB_GC_CONFIG", "HAB_GC_MACHINE_ID", stopGraceEnv)
}

// warnUnknownEnv warns of each non-empty HAB_GC_* variable hab-gc does not
// read, naming the nearest one it does: a misspelt HAB_GC_EXCLUDES would
// silently drop the pin it carries.
func (c *config) warnUnknownEnv() {
	known := knownEnv()
	var unknown []string
	for _, kv := range os.Environ() {
		name, v, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "HAB_GC_") || v == "" {
			continue
		}
		isKnown := false
		for _, k := range known {
			isKnown = isKnown || k == name
		}
		for _, p := range testOnlyEnv {
			isKnown = isKnown || strings.HasPrefix(name, p)
		}
		if !isKnown {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		hint := suggest.Hint(name, known, len(name)/3)
		c.warnings = append(c.warnings, fmt.Sprintf("unknown environment variable %s%s; it is ignored", name, hint))
	}
}

// warnIneffective warns of a setting given that does nothing as the
// others stand: cache_keep_latest without cache.
func (c *config) warnIneffective() {
	if c.cmd.Flags().Lookup("cache") == nil || !c.isSet("cache_keep_latest") {
		return
	}
	if on, err := c.boolean("cache"); err == nil && !on {
		c.warnings = append(c.warnings, fmt.Sprintf("cache_keep_latest %s (%s) does nothing without --cache (HAB_GC_CACHE, cache = true): the artifact cache is not cleaned",
			c.raw("cache_keep_latest"), c.source("cache_keep_latest")))
	}
}

// warnZeroMinAge warns that a min_age of 0 (0, 0s, 0m...: the habit from
// before `none` existed) means the default hour, not "no minimum age".
func (c *config) warnZeroMinAge() {
	if !c.isSet("min_age") {
		return
	}
	raw := strings.TrimSpace(c.raw("min_age"))
	d, err := retention.ParseDuration(raw, retention.NoMinAge)
	if err != nil || d != 0 || strings.EqualFold(raw, "none") {
		return
	}
	c.warnings = append(c.warnings, fmt.Sprintf("min_age %q (from %s) means the default minimum age (%s), not none: releases installed less than %s ago are kept; say none (--min-age=none, HAB_GC_MIN_AGE=none, min_age = \"none\") to turn it off",
		raw, c.source("min_age"), retention.DefaultMinAge, retention.DefaultMinAge))
}
