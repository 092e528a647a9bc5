package schedule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Serve runs the scheduler as a daemon until ctx ends, after the caller's
// first Reload: it reloads the definitions whenever hup fires (SIGHUP) and
// whenever Dir changes. Dir is watched by its name (a deploy may swap it);
// a definition rejected because its store does not exist is loaded once
// the store appears (a late mount).
func (s *Scheduler) Serve(ctx context.Context, hup <-chan struct{}) error {
	reload := make(chan struct{}, 1)
	poke := func() {
		select {
		case reload <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := s.watchDir()
	if w != nil {
		defer w.close()
	}
	go func() {
		var events chan fsnotify.Event
		if w != nil {
			events = w.w.Events
		}
		check := time.NewTicker(checkEvery)
		defer check.Stop()
		// An editor's save or a deploy writing many files is one reload.
		settle := time.NewTimer(time.Hour)
		settle.Stop()
		defer settle.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-settle.C:
				poke()
			case <-hup:
				poke()
			case <-check.C:
				if w.rewatch() || s.storeAppeared() {
					poke()
				}
			case ev, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				switch name := filepath.Clean(ev.Name); {
				case name == w.dir:
					w.rewatch()
				case filepath.Dir(name) != w.dir || !strings.HasSuffix(name, ".toml"):
					continue
				}
				settle.Reset(settleDelay)
			}
		}
	}()
	return s.Loop(ctx, reload, time.Minute)
}

const (
	checkEvery  = 2 * time.Second        // for a replaced directory, or a missing store
	settleDelay = 300 * time.Millisecond // quiet before a change is loaded
)

// dirWatch watches a directory by its name, and its parent, which sees
// the name replaced.
type dirWatch struct {
	w       *fsnotify.Watcher
	dir     string
	watched os.FileInfo // what the watch on dir is on (nil: none)
	log     func(msg string, args ...any)
}

func (s *Scheduler) watchDir() *dirWatch {
	if s.Dir == "" {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		s.log().Warn("not watching the schedules directory", "error", err)
		return nil
	}
	w := &dirWatch{w: fw, dir: filepath.Clean(s.Dir), log: s.log().Warn}
	if err := fw.Add(filepath.Dir(w.dir)); err != nil {
		s.log().Warn("not watching the schedules directory's parent: a replaced directory is seen within 2 s", "error", err)
	}
	w.rewatch()
	return w
}

// rewatch puts the watch on what dir names now, reporting a change.
func (w *dirWatch) rewatch() bool {
	if w == nil {
		return false
	}
	fi, err := statNow(w.dir)
	if err != nil {
		if w.watched != nil {
			w.w.Remove(w.dir)
			w.watched = nil
			return true
		}
		return false
	}
	if w.watched != nil && os.SameFile(fi, w.watched) {
		return false
	}
	w.w.Remove(w.dir)
	if err := w.w.Add(w.dir); err != nil {
		w.log("not watching the schedules directory", "error", err)
		return false
	}
	w.watched = fi
	return true
}

func (w *dirWatch) close() { w.w.Close() }

// statNow is os.Stat with the identity os.SameFile compares read now: on
// Windows it is read from the path when first compared, by then perhaps
// another directory's.
func statNow(p string) (os.FileInfo, error) {
	fi, err := os.Stat(p)
	if err == nil {
		os.SameFile(fi, fi) // loads fi's identity on Windows
	}
	return fi, err
}

// RunOnce runs what is due now and the missed runs waiting their
// catch-up delay, until ctx ends: `daemon --once`.
func (s *Scheduler) RunOnce(ctx context.Context) []RunOutcome {
	outs := s.RunDue(ctx)
	for at := s.pendingCatchUp(); !at.IsZero() && ctx.Err() == nil; at = s.pendingCatchUp() {
		t := time.NewTimer(max(at.Sub(s.now()), 0))
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		outs = append(outs, s.RunDue(ctx)...)
	}
	return outs
}

// Loop runs due jobs until ctx ends, sleeping until the next due time (at
// most maxSleep) and reloading the definitions whenever reload fires.
func (s *Scheduler) Loop(ctx context.Context, reload <-chan struct{}, maxSleep time.Duration) error {
	defer s.workers.Wait()
	kick := s.kicked()
	for {
		s.runDue(ctx, false)
		now := s.now()
		wait := maxSleep
		if n := s.nextWake(now); !n.IsZero() && n.Sub(now) < wait {
			wait = max(n.Sub(now), time.Second)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-reload:
			t.Stop()
			if _, err := s.Reload(); err != nil {
				s.log().Error("reloading schedule definitions", "error", err)
			} else {
				s.log().Info("reloaded schedule definitions", "jobs", len(s.Jobs()))
			}
		case <-kick:
			t.Stop()
		case <-t.C:
		}
	}
}
