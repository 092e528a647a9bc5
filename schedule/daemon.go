package schedule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Serve runs the scheduler as a daemon until ctx ends (see Loop), after
// the caller's first Reload: it reloads the definitions whenever hup
// fires (SIGHUP) and whenever Dir changes. Dir is watched by its name: a
// directory renamed or symlinked into its place (a deploy swapping it) is
// loaded and watched in turn; while it is missing, everything is kept (see
// Reload). A definition rejected because its store does not exist is
// loaded once the store appears (a late mount).
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
		// Changes are loaded once they settle: an editor's save (rename
		// away, write) or a deploy writing many files is one reload.
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
				// A directory replaced unseen, or a store mounted since
				// the definitions that name it were rejected.
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
					// The directory itself, seen from its parent: renamed,
					// removed or replaced.
					w.rewatch()
				case filepath.Dir(name) != w.dir || !strings.HasSuffix(name, ".toml"):
					// Not a definition: the parent's other entries, or the
					// state file and its lock when they are kept here
					// (each reload writes them).
					continue
				}
				settle.Reset(settleDelay)
			}
		}
	}()
	return s.Loop(ctx, reload, time.Minute)
}

// checkEvery is how often Serve looks whether the directory was replaced
// and whether a store that was missing has appeared.
const checkEvery = 2 * time.Second

// settleDelay is how long the schedules directory must be quiet before a
// change is loaded.
const settleDelay = 300 * time.Millisecond

// dirWatch watches a directory by its name: the directory and its parent
// (which sees the name replaced), re-adding the watch when the name leads
// to another directory.
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

// rewatch puts the watch on what dir names now, and reports whether that
// changed.
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

// statNow is os.Stat with the identity os.SameFile compares read now. On
// Windows os.Stat leaves it to be read from the path when first compared: a
// FileInfo kept while the name was replaced would then be read as the new
// directory's, equal to it, and the replacement never seen
// (TestRewatchSeesReplacedDir).
func statNow(p string) (os.FileInfo, error) {
	fi, err := os.Stat(p)
	if err == nil {
		os.SameFile(fi, fi) // loads fi's identity on Windows
	}
	return fi, err
}

// RunOnce runs what is due now and, when a missed run waits its catch-up
// delay (CatchUpSpread), waits for it and runs it too, until ctx ends:
// `daemon --once`, for systemd timers and cron.
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
// most maxSleep) and reloading the definitions whenever reload fires. A
// job running when ctx ends stops safely (see retention.Apply).
func (s *Scheduler) Loop(ctx context.Context, reload <-chan struct{}, maxSleep time.Duration) error {
	defer s.workers.Wait() // a run under way stops safely first
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
