package main

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// A command that keeps making progress after the signal (a put-back of
// thousands of releases) is given a grace from its last progress, not
// from the signal, but at most maxStopGraces graces in all: one that
// never returns is still ended, saying how long it had.
func TestStopGraceStretchesWithProgress(t *testing.T) {
	t.Parallel()
	var stderr testtool.SyncBuffer
	ended := make(chan int, 1)
	// Long enough that a loaded machine, which may starve the ticker below
	// for a while, never misses a whole grace of progress.
	const grace = time.Second
	s := &stopper{stderr: &stderr, grace: grace, exit: func(code int) { ended <- code }}
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	defer close(done)
	_, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go s.watch(sigs, cancel, done)
	start := time.Now()
	sigs <- syscall.SIGINT
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	never := time.After(time.Minute)
	for {
		select {
		case code := <-ended:
			took := time.Since(start)
			if code != exitInterrupted || took < maxStopGraces*grace {
				t.Errorf("ended %s after the signal (exit %d) while it made progress: want exit %d after %s", took, code, exitInterrupted, maxStopGraces*grace)
			}
			if want := "still not stopped 5s after SIGINT"; !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			return
		case <-tick.C:
			s.progress()
		case <-never:
			t.Fatal("still not ended a minute after the signal")
		}
	}
}
