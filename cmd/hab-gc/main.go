// Command hab-gc removes old releases from a Habitat package store and never
// anything still needed. See README.md, or run hab-gc --help.
package main

import (
	"os"
	"runtime/debug"
)

func main() { os.Exit(Main()) }

// gcPercent is GOGC unless set: a run's heap only grows, and at 30 its
// peak is about 1.3 times what is live (BenchmarkBlindDryRun), not twice.
const gcPercent = 30

func Main() int {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	return execute(os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
}
