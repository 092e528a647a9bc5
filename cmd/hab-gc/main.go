// Command hab-gc removes old releases from a Habitat package store and never
// anything still needed. See README.md, or run hab-gc --help.
package main

import (
	"os"
	"runtime/debug"
)

func main() { os.Exit(Main()) }

// gcPercent is the garbage collector's GOGC for a hab-gc process unless
// the GOGC variable sets one. A run keeps its inventory and plan to the
// end, so its heap only grows, and Go's default (100) lets the heap reach
// twice what is live before collecting: at 100,000 releases a dry run's
// peak was 1.3 KiB a release for 0.7 KiB live. At 30 the peak is about
// 1.3 times what is live, for about 0.3 s more user CPU at 130,000
// releases, measured under load (BenchmarkBlindDryRun): 40 left a blind
// dry run at 100,000 releases at 1.0-1.1 KiB a release.
const gcPercent = 30

// Main runs hab-gc with the process's arguments and streams and returns
// its exit code.
func Main() int {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	return execute(os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
}
