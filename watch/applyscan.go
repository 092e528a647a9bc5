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

// syncWait bounds how long sync waits for its own event.
const syncWait = 5 * time.Second

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
// kernel queued before it was called: it marks the lock file the purge
// holds (pkgstore.Store.MarkLocked, an attribute change no one else makes
// while the lock is held) and reads events until that one, for at most
// syncWait. The kernel queues one watcher's events in order, so every
// change made before the mark is then noted. After a sync that did not
// see its event (a stale one may still come), no later sync is trusted
// until the watches are set again.
func (w *watcher) sync(ctx context.Context) error {
	fsw := w.fsw
	switch {
	case fsw == nil:
		return errors.New("the watch is not using inotify")
	case w.syncLost == fsw:
		return errors.New("an earlier sync did not see its event")
	case !w.watched[w.store]:
		return errors.New("the store directory is not watched")
	}
	if err := ctx.Err(); err != nil {
		return err // no mark made: no stale event to come
	}
	if err := w.o.Store.MarkLocked(); err != nil {
		return err
	}
	lock := filepath.Join(w.store, pkgstore.LockFile)
	timer := time.NewTimer(syncWait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			w.syncLost = fsw
			return ctx.Err()
		case <-timer.C:
			w.syncLost = fsw
			return fmt.Errorf("the lock file's mark did not come back from inotify within %s", syncWait)
		case ev, ok := <-fsw.Events:
			if !ok {
				return errors.New("the inotify watcher closed")
			}
			if ev.Name == lock && ev.Has(fsnotify.Chmod) {
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
