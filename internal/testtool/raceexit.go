package testtool

import (
	"os"
	"strings"
)

// NoRaceExitSleep makes the test binary's child processes exit at once
// when the race detector is on. A -race binary sleeps atexit_sleep_ms
// (default 1000: https://go.dev/doc/articles/race_detector#Options) before
// it exits, so every hab-gc a testscript runs, and every helper process a
// test starts from its own binary, took a second more than its work: about
// half of cmd/hab-gc's tests' time, and in TestApplyCrashSafety most kills
// landed in that sleep, after the apply it meant to interrupt had ended.
//
// Call it first in TestMain of a package whose tests re-execute the test
// binary. It changes GORACE in this process's environment, which children
// inherit, and keeps an atexit_sleep_ms already set there. Races found in
// a child are still reported and still make it exit 66; only one found in
// the last second of its life, by a goroutine still running when main
// returned, can be missed.
func NoRaceExitSleep() {
	v, _ := os.LookupEnv("GORACE")
	if strings.Contains(v, "atexit_sleep_ms=") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
}
