package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// SetHook makes Apply call f at each stage of a release: "checked" (its
// directory was checked, just before hiding it), "hidden" (hidden is its
// store-relative hidden name), "synced" (its hiding was made durable: its
// directory was fsynced), "deleting" (before it is examined for
// deletion: every release is examined before any is deleted),
// "removing" (examined, and about to be renamed doomed, then deleted),
// "doomed" (hidden is its doomed name, and that rename was made durable),
// "restoring" (about to be put back from hidden) "restored" (put back,
// and that rename made durable) and "leftover" (hidden is an install
// directory examined, about to be renamed doomed and deleted).
func SetHook(o *ApplyOptions, f func(stage string, id pkgstore.Ident, hidden string)) { o.hook = f }

// ParseDebris is parseDebris, for its fuzz test.
func ParseDebris(name string) (kind, release string, ok bool) { return pkgstore.ParseDebris(name) }

// DeleteWorker is the deletion worker of a release's package (workerFor).
func DeleteWorker(id pkgstore.Ident) int { return workerFor(id) }

// SetPacer paces Apply's deletions as Pace does (target: a latency, or
// PaceAuto), its probes timed by clock and its pauses slept by sleep.
func SetPacer(o *ApplyOptions, target time.Duration, clock func() time.Time, sleep func(context.Context, time.Duration) error) {
	o.pacer = newPacer(target, clock)
	o.pacer.sleep = sleep
}

// RootFinderFunc adapts a function to RootFinder.
type RootFinderFunc func(ctx context.Context, inv *pkgstore.Inventory) (Found, error)

// FindRoots calls f; a nil f is an error wrapping ErrRootsUnknown.
func (f RootFinderFunc) FindRoots(ctx context.Context, inv *pkgstore.Inventory) (Found, error) {
	if f == nil {
		return Found{}, fmt.Errorf("%w: a nil RootFinderFunc", ErrRootsUnknown)
	}
	return f(ctx, inv)
}

// Event is one release handled by Apply, in order (SetProgress).
type Event struct {
	RemovalOutcome
	Done, Total int
}

// SetProgress makes Apply call f after each release it handles.
func SetProgress(o *ApplyOptions, f func(Event)) {
	o.progress = func(ro RemovalOutcome, done, total int) { f(Event{ro, done, total}) }
}
