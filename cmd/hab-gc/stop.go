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

const (
	// defaultStopGrace is how long a command asked to stop has to return
	// before the process ends (HAB_GC_STOP_GRACE).
	defaultStopGrace = 10 * time.Second
	// applyStopGrace is added while releases may be removed: a cancelled
	// Apply puts back what it hid and finishes the deletion under way.
	applyStopGrace = 20 * time.Second
	// maxStopGraces bounds how far progress stretches the grace.
	maxStopGraces = 5
	stopGraceEnv  = "HAB_GC_STOP_GRACE"
)

// signalCause is the cause of the context a signal cancelled.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return signalName(c.sig) }

// Is makes the cause a context.Canceled, as signal.NotifyContext's is.
func (c signalCause) Is(target error) bool { return target == context.Canceled }

// stopper cancels the command's context at the first SIGINT or SIGTERM.
// A goroutine blocked in a system call (a FIFO, a hung mount) cannot see
// that, so at a second signal, or the grace after the last progress, the
// process ends with exitInterrupted: as kill -9 would, which runs survive.
type stopper struct {
	stderr io.Writer
	grace  time.Duration
	exit   func(int)

	mu     sync.Mutex
	extra  time.Duration // held longer: a leased COMMAND's time to exit
	moved  time.Time     // the command's last progress
	onExit []func()      // before ending early: what must not outlive hab-gc
	log    *slog.Logger  // daemon --log-format json; nil: plain lines
}

func (s *stopper) logTo(l *slog.Logger) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.log = l
	s.mu.Unlock()
}

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

// start returns the command's context and the function to call once it
// has returned.
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

// progress restarts the grace: the command is still getting somewhere.
func (s *stopper) progress() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.moved = time.Now()
	s.mu.Unlock()
}

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

// hold gives the command extra time after the first signal, and onExit
// to run should the process end first; release undoes both.
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
