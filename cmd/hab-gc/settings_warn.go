package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/hab-gc/hab-gc/internal/suggest"
	"github.com/hab-gc/hab-gc/supervisor"
)

// testOnlyEnv are variables hab-gc's own tests give their processes.
var testOnlyEnv = []string{"HAB_GC_TEST_", "HAB_GC_FLOCK_HELPER", "HAB_GC_LEASE_HELPER", "HAB_GC_PROCTEST_MAP",
	"HAB_GC_RUNROOTS_BLIND_PLAN", "HAB_GC_BENCH_"}

func knownEnv() []string {
	var out []string
	for _, s := range settings() {
		out = append(out, s.env...)
	}
	return append(out, "HAB_GC_CONFIG", "HAB_GC_MACHINE_ID", stopGraceEnv, "HAB_BINLINK_DIR", supervisor.TokenEnv)
}

// warnUnknownEnv warns of each HAB_GC_* variable hab-gc does not read (a
// misspelt HAB_GC_EXCLUDES drops a pin), and of other HAB_* near-misses.
func (c *config) warnUnknownEnv() {
	known := knownEnv()
	var unknown []string
	for _, kv := range os.Environ() {
		name, v, _ := strings.Cut(kv, "=")
		if v == "" || !strings.HasPrefix(name, "HAB_") || slices.Contains(known, name) || slices.ContainsFunc(testOnlyEnv, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		unknown = append(unknown, name)
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		ours, edits := strings.HasPrefix(name, "HAB_GC_"), 2
		if ours {
			edits = len(name) / 3
		}
		if hint := suggest.Hint(name, known, edits); ours || hint != "" {
			c.warnings = append(c.warnings, fmt.Sprintf("unknown environment variable %s%s; it is ignored", name, hint))
		}
	}
}

func (c *config) warnIneffective() {
	if c.cmd.Flags().Lookup("cache") == nil || !c.isSet("cache_keep_latest") {
		return
	}
	if on, err := c.boolean("cache"); err == nil && !on {
		c.warnings = append(c.warnings, fmt.Sprintf("cache_keep_latest %s (%s) does nothing without --cache (HAB_GC_CACHE, cache = true): the artifact cache is not cleaned",
			c.raw("cache_keep_latest"), c.source("cache_keep_latest")))
	}
}
