package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"
)

// defaultStopGrace is how long a command asked to stop (SIGINT, SIGTERM)
// has to return on its own before the process ends (HAB_GC_STOP_GRACE):
// long enough for a cancelled run to put back what it hid (a rename per
// hidden release, then their directories synced together) and to finish
// the deletions under way, short enough to be "within seconds" for
// whoever asked.
const defaultStopGrace = 10 * time.Second

// applyStopGrace is the time a command that may be removing releases
// (run while applying its plan, watch, daemon) has on top of the grace:
// a cancelled Apply puts back every hidden release and finishes the one it
// was deleting, which for a large release on a slow disk takes a while.
const applyStopGrace = 20 * time.Second

// maxStopGraces bounds how far progress stretches the grace: a command
// that keeps making progress after the signal (a large put-back on a slow
// disk) ends at the latest this many graces after it.
const maxStopGraces = 5

// stopGraceEnv sets the grace (a duration such as 10s).
const stopGraceEnv = "HAB_GC_STOP_GRACE"

// signalCause is the cause of the context a signal cancelled.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return signalName(c.sig) }

// Is makes the cause a context.Canceled, as signal.NotifyContext's is.
func (c signalCause) Is(target error) bool { return target == context.Canceled }

// stopper stops a command asked to stop. The first SIGINT or SIGTERM
// cancels the command's context and says so on stderr; a goroutine
// blocked in a system call (open(2) of a FIFO, a hung mount) cannot see a
// context, so if the command has not returned within the grace (counted
// from its last progress, see progress), or on a second signal, the
// process ends with exit code 7 (exitInterrupted),
// saying so. Ending then is what kill -9 does, against which a run is
// crash-safe (the next run finishes or puts back what it had hidden); a
// cancelled run returns on its own well within the grace.
type stopper struct {
	stderr io.Writer
	grace  time.Duration
	exit   func(int)

	mu     sync.Mutex
	extra  time.Duration // held longer: a leased COMMAND's time to exit
	moved  time.Time     // the command's last progress
	onExit []func()      // before ending early: what must not outlive hab-gc
	log    *slog.Logger  // the command's JSON log (daemon --log-format json); nil: plain lines
}

// logTo makes the stopper's notices records of l (a daemon logging JSON
// says everything in JSON, its stop too) rather than plain lines.
func (s *stopper) logTo(l *slog.Logger) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.log = l
	s.mu.Unlock()
}

// say writes a notice: "hab-gc: TEXT" on stderr, or a WARN record of the
// command's JSON log.
func (s *stopper) say(text string) {
	s.mu.Lock()
	l := s.log
	s.mu.Unlock()
	if l != nil {
		l.Warn(text)
		return
	}
	fmt.Fprintf(s.stderr, "hab-gc: %s\n", text)
}

// start arms the stopper and returns the context the command runs with
// and the function to call once it has returned.
func (s *stopper) start() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.watch(sigs, cancel, done)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		<-stopped
		cancel(nil)
	}
}

// watch waits for a first signal, cancels, then waits for the command to
// return, for a second signal, or for the grace to pass with no progress
// (at most maxStopGraces graces in all).
func (s *stopper) watch(sigs <-chan os.Signal, cancel context.CancelCauseFunc, done <-chan struct{}) {
	var sig os.Signal
	select {
	case sig = <-sigs:
	case <-done:
		return
	}
	s.say(fmt.Sprintf("interrupted (%s): stopping (a second signal ends it at once)", signalName(sig)))
	cancel(signalCause{sig})
	signalled := time.Now()
	s.mu.Lock()
	grace := s.grace + s.extra
	s.mu.Unlock()
	deadline := signalled.Add(grace)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		select {
		case <-done:
			return
		case again := <-sigs:
			s.end(fmt.Sprintf("%s again: ending at once", signalName(again)))
			return
		case <-timer.C:
		}
		s.mu.Lock()
		next := s.moved.Add(grace)
		s.mu.Unlock()
		if limit := signalled.Add(maxStopGraces * grace); next.After(limit) {
			next = limit
		}
		if wait := time.Until(next); next.After(deadline) && wait > 0 {
			deadline = next
			timer.Reset(wait)
			continue
		}
		s.end(fmt.Sprintf("still not stopped %s after %s (blocked in a system call?): ending now", deadline.Sub(signalled).Round(time.Millisecond), signalName(sig)))
		return
	}
}

// progress tells the stopper the command is making progress: once asked
// to stop, it has a grace from its last progress to return.
func (s *stopper) progress() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.moved = time.Now()
	s.mu.Unlock()
}

// end runs the exit hooks and ends the process with exitInterrupted.
func (s *stopper) end(why string) {
	s.mu.Lock()
	hooks := slices.Clone(s.onExit)
	s.mu.Unlock()
	for _, h := range hooks {
		h()
	}
	s.say(fmt.Sprintf("%s (exit %d); a run's hidden releases are put back or finished by the next run", why, exitInterrupted))
	s.exit(exitInterrupted)
}

// hold gives the command extra time to return after the first signal
// (lease: its COMMAND's time to exit), and onExit to run should the
// process end before it returns (lease: kill COMMAND, which must not run
// on without its lease). The returned function undoes both.
func (s *stopper) hold(extra time.Duration, onExit func()) (release func()) {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extra += extra
	s.onExit = append(s.onExit, onExit)
	i := len(s.onExit) - 1
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.extra -= extra
		s.onExit[i] = func() {}
	}
}

// stopGrace reads HAB_GC_STOP_GRACE: a positive duration, the default
// when unset or empty.
func stopGrace(lookup func(string) (string, bool)) (time.Duration, error) {
	v, ok := lookup(stopGraceEnv)
	if !ok || v == "" {
		return defaultStopGrace, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usageError{fmt.Errorf("invalid %s %q: must be a duration above 0 such as 10s", stopGraceEnv, v)}
	}
	return d, nil
}

// signalName names a signal as people write it (SIGTERM).
func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		switch s {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		}
	}
	return sig.String()
}
