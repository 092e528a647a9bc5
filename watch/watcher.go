package watch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// watcher is Run's state; only Run's goroutine touches it.
type watcher struct {
	o        Options
	store    string // FS_ROOT/hab/pkgs
	specsDir string // FS_ROOT/hab/sup/default/specs
	svcRoot  string // FS_ROOT/hab/svc
	fsw      *fsnotify.Watcher
	fallback bool // rescanning every Delay instead of inotify
	watched  map[string]bool
	specs    map[string]spec     // spec file stem -> what it loads
	pids     map[string]pidStamp // service name -> its PID file
	pending  map[pkgstore.Ident]*pending
	unloaded map[pkgstore.Ident]time.Time // package -> when its last spec went
	seen     map[string]bool              // O/N/V/R releases, for rescans
}

// Run watches and purges until ctx is done, then returns nil.
func Run(ctx context.Context, o Options) error {
	if ctx == nil {
		return fmt.Errorf("watch: %w", retention.ErrNilContext)
	}
	if err := o.Store.Usable(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	w := newWatcher(o)
	defer w.close()
	ctx, cancel := context.WithCancel(ctx)
	defer recordInstalls(ctx, o)()
	defer cancel()
	w.o.log().Info("watching the store", "store", w.store, "specs", w.specsDir, "watches", len(w.watched),
		"fallback", w.fallback, "all", o.All, "delay", o.delay().String(), "on_unload", o.OnUnload)
	w.markAtStart()
	if o.OnStart != nil {
		o.OnStart()
	}
	return w.loop(ctx)
}

func newWatcher(o Options) *watcher {
	root := o.Store.FSRoot()
	w := &watcher{o: o, store: filepath.Join(root, pkgstore.StoreDir), specsDir: filepath.Join(root, pkgstore.SpecsDir),
		svcRoot: filepath.Join(root, filepath.FromSlash(svcDir)),
		watched: map[string]bool{}, specs: map[string]spec{}, pending: map[pkgstore.Ident]*pending{},
		unloaded: map[pkgstore.Ident]time.Time{}, seen: map[string]bool{}}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.fallBack(err)
	} else {
		w.fsw = fsw
	}
	w.readSpecs(false)
	w.watchSpecs()
	w.watchSvc()
	w.readPIDs(false)
	w.addTree(w.store, 0, false) // what is installed now is not new
	return w
}

func (w *watcher) close() {
	if w.fsw != nil {
		w.fsw.Close()
	}
}

func (w *watcher) loop(ctx context.Context) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var tick *time.Ticker
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		var due <-chan time.Time
		if next, ok := w.nextDue(); ok {
			d := max(next.Sub(w.o.now()), 0)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			due = timer.C
		}
		var events chan fsnotify.Event
		var errs chan error
		if w.fsw != nil {
			events, errs = w.fsw.Events, w.fsw.Errors
		}
		var rescan <-chan time.Time
		if w.fallback {
			if tick == nil {
				tick = time.NewTicker(w.o.delay())
			}
			rescan = tick.C
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				w.fallBack(errors.New("the inotify watcher closed"))
				continue
			}
			w.handle(ev)
		case err, ok := <-errs:
			if !ok {
				continue
			}
			w.handleError(err)
		case <-rescan:
			w.readSpecs(true)
			w.rescan(true)
			w.readPIDs(true)
		case <-due:
			w.runDue(ctx)
		}
		if timer != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}
