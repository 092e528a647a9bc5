package retention

import (
	"sync"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// deleteWorkers is how many doomed releases are deleted at once. Deleting
// small files waits on the disk far more than on the processor (rm -rf of
// 5,000 small releases: 1.1 s of system time in 3.0 s), and unlinks in
// different directories proceed side by side: the same releases took
// 2.97 s with one rm, 1.9 s with two, 1.4 s with four and 1.1 s with
// eight (docs/performance.md).
const deleteWorkers = 8

// deleteAll deletes every hidden release that is doomed (doomAll) and puts
// back every one something needs again (back), reporting each in the
// order of hidden, as a sequential loop would. The deletions run on
// deleteWorkers goroutines, each with its own copy of the applier and so
// its own remover (a chain of directories is not for concurrent use);
// put-backs, results and progress stay on this goroutine.
//
// Once the run is cancelled no deletion starts (the releases are handed
// out in order, and the feeder stops at the first one after the cancel);
// the deletions under way finish, are reported, and every hidden release
// not reached is put back (stop): it is whole, as no worker was given it.
// A release handed to a worker is never put back: once its deletion may
// have begun, it is deleted or reported failed (a doomed directory is
// deleted by the next run whatever needs it).
//
// Deleting releases side by side keeps every guarantee of deleting them
// one at a time: every one is doomed (and that made durable) before any
// is deleted, each deletion checks its own chain before every step, and
// pruning an empty VERSION, NAME or ORIGIN directory fails while any
// doomed release (another worker's) is still in it.
func (a *applier) deleteAll(hidden []hiddenRelease, surveys []survey, back *putBack, deleted map[pkgstore.Ident]bool) error {
	// results[i] receives hidden[i]'s outcome, or notStarted when the run
	// was cancelled before it was handed out. Buffered: no sender waits.
	results := make([]chan deletion, len(hidden))
	var todo []int
	for i, h := range hidden {
		if _, ok := back.reason(h.rel.Ident); !ok {
			results[i] = make(chan deletion, 1)
			todo = append(todo, i)
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(len(todo), deleteWorkers) {
		w := *a
		w.rm = remover{}
		wg.Go(func() {
			defer w.rm.close()
			for i := range jobs {
				results[i] <- deletion{outcome: w.removal(hidden[i], surveys[i])}
			}
		})
	}
	go func() {
		defer close(jobs)
		for k, i := range todo {
			if a.ctx.Err() != nil {
				for _, j := range todo[k:] {
					results[j] <- deletion{notStarted: true}
				}
				return
			}
			jobs <- i
		}
	}()
	defer wg.Wait()
	for i, h := range hidden {
		if i > 0 {
			a.phase(PhaseDelete, i, len(hidden))
		}
		if why, ok := back.reason(h.rel.Ident); ok {
			a.restore(h, why)
			continue
		}
		d := <-results[i]
		if d.notStarted {
			_, err := a.stop(hidden[i:], nil) // between releases
			return err
		}
		a.done(d.outcome)
		deleted[h.rel.Ident] = true
	}
	return nil
}

// deletion is what a worker reports of one release.
type deletion struct {
	outcome    RemovalOutcome
	notStarted bool
}
