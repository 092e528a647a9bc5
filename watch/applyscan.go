package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// syncWait bounds how long sync waits for its own event.
const syncWait = 5 * time.Second

// oneQueue: the watcher's events of all its directories come in the order
// the kernel made them (one inotify instance, one queue).
const oneQueue = runtime.GOOS == "linux" || runtime.GOOS == "android"

// applyScan is the purge's Rescanner (retention.ApplyOptions.Rescan):
// each of Apply's scans, under the store's lock, first reads every inotify
// event queued before it (sync), then reads again, of the plan's
// inventory, only the ORIGIN/NAME directories a change was reported in
// since the plan's read began and those not fully watched (they stay
// noted: the next plan reads them again too). It is a full Scan whenever
// the watcher cannot vouch for that: no sync, an overflow or an event it
// cannot attribute since the plan, polling, or a plan not made from the
// watcher's last read.
func (w *watcher) applyScan(plan *retention.Plan) retention.Rescanner {
	return func(ctx context.Context, opts pkgstore.Options) (*pkgstore.Inventory, error) {
		if err := w.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			w.o.log().Info("the purge reads the whole store again", "why", err.Error())
			w.reads.all()
		}
		r := &w.reads
		if r.full || r.always || w.fallback || r.last == nil || r.last.Inventory != plan.Inventory {
			return w.o.Store.Scan(ctx, opts)
		}
		return w.o.Store.Rescan(ctx, plan.Inventory, r.names(), opts)
	}
}

// sync reads, and handles as the loop does, every inotify event the
// kernel queued before it was called: it checks that the purge holds the
// store's lock (pkgstore.Store.HoldsLock), creates a mark (syncMarks: a
// file no one else makes, in a directory of its own watched on the same
// inotify watcher) and reads events until that one's, for at most
// syncWait. The kernel queues one inotify watcher's events in order, so
// every change made before the mark is then noted; elsewhere (Windows,
// kqueue) no sync is made. After a sync that did not
// see its event, no later sync is trusted until the watches are set
// again.
func (w *watcher) sync(ctx context.Context) error {
	fsw := w.fsw
	switch {
	case fsw == nil:
		return errors.New("the watch is not using inotify")
	case !oneQueue:
		// ReadDirectoryChangesW (Windows) reads each directory on its own
		// handle, and kqueue reports per file: a mark seen says nothing
		// of what other directories' changes came before it.
		return errors.New("only inotify queues every watched directory's events in one order, and this is " + runtime.GOOS)
	case w.syncLost == fsw:
		return errors.New("an earlier sync did not see its event")
	case !w.watched[w.store]:
		return errors.New("the store directory is not watched")
	}
	if err := ctx.Err(); err != nil {
		return err // no mark made: no stale event to come
	}
	if err := w.o.Store.HoldsLock(); err != nil {
		return err
	}
	mark, err := w.syncMark()
	if err != nil {
		return err
	}
	defer os.Remove(mark)
	timer := time.NewTimer(syncWait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			w.syncLost = fsw
			return ctx.Err()
		case <-timer.C:
			w.syncLost = fsw
			return fmt.Errorf("the sync's mark did not come back from inotify within %s", syncWait)
		case ev, ok := <-fsw.Events:
			if !ok {
				return errors.New("the inotify watcher closed")
			}
			if ev.Name == mark && ev.Has(fsnotify.Create) {
				return nil
			}
			w.handle(ev)
		case err, ok := <-fsw.Errors:
			if !ok {
				return errors.New("the inotify watcher closed")
			}
			w.handleError(err)
		}
		if w.fsw != fsw {
			return errors.New("the watches were set again")
		}
	}
}
