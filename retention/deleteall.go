package retention

import (
	"hash/fnv"
	"path"
	"sync"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// deleteWorkers is how many doomed releases are deleted at once. Deleting
// small files waits on the disk far more than on the processor (rm -rf of
// 5,000 small releases: 1.1 s of system time in 3.0 s), and unlinks in
// different directories proceed side by side: the same releases took
// 2.97 s with one rm, 1.9 s with two, 1.4 s with four and 1.1 s with
// eight (measured beside BenchmarkApplyVsRmRf).
const deleteWorkers = 8

// deleteAll deletes every hidden release that is doomed (doomAll) and puts
// back every one something needs again (back), before any deletion
// starts, reporting each in the order of hidden, as a sequential loop
// would. The deletions run on
// deleteWorkers goroutines, each with its own copy of the applier and so
// its own remover (a chain of directories is not for concurrent use);
// put-backs, results and progress stay on this goroutine. Each package
// (ORIGIN/NAME) goes to one worker: its releases' VERSION directories
// share the NAME directory, which the kernel locks for each entry removed
// from it, so workers on different packages do not wait on each other,
// and a worker's chain keeps the NAME directory open from one release to
// the next.
//
// Once the run is cancelled no deletion starts: each worker checks before
// each release, the deletions under way finish and are reported, and
// every release not started is put back whole (stop's reason),
// dependencies first (putBackRest). A release whose deletion has begun
// is never put back: it is deleted or reported failed (a doomed
// directory is deleted by the next run whatever needs it).
//
// What is put back must have what it needs, as deleting one release
// after another in the hiding's order (dependents first) ensured: the
// releases not started then were a tail of that order, which holds
// everything they need. So a release's deletion starts only once every
// release hidden before it that needs it (its dependents, on any worker)
// has started, or was not started because the run was cancelled: then
// it is not started either, and both are put back. A worker waits only
// for releases hidden before the one it is at, and takes its own in the
// hiding's order, so the first release not started is never waiting:
// the workers cannot wait for each other in a circle.
//
// With ApplyOptions.Pace, each worker runs at a lower I/O priority
// (lowerIOPriority) and waits for the pacer before each release (pace.go).
//
// Deleting releases side by side keeps every guarantee of deleting them
// one at a time: every one is doomed (and that made durable) before any
// is deleted, each deletion checks its own chain before every step,
// pruning an empty VERSION, NAME or ORIGIN directory fails while any
// doomed release (another worker's) is still in it, and a cancel puts
// back only releases whose dependencies among the hidden were not
// started either.
func (a *applier) deleteAll(hidden []hiddenRelease, surveys []survey, back *putBack, deleted map[pkgstore.Ident]bool) error {
	// results[i] receives hidden[i]'s outcome, or notStarted. Buffered:
	// no worker waits for this goroutine.
	results := make([]chan deletion, len(hidden))
	queues := make([][]int, deleteWorkers)
	var put []int // put back (back) before any deletion starts
	var whys []Reason
	for i, h := range hidden {
		if why, ok := back.reason(h.rel.Ident); ok {
			put, whys = append(put, i), append(whys, why)
			continue
		}
		results[i] = make(chan deletion, 1)
		w := workerFor(h.rel.Ident)
		queues[w] = append(queues[w], i)
	}
	outcomes := make([]*RemovalOutcome, len(hidden))
	for k, o := range a.putBackAll(pick(hidden, put), whys) {
		outcomes[put[k]] = &o
	}
	// dependents[i]: the releases to delete hidden before hidden[i] that
	// need it; decided[i] is closed once hidden[i]'s deletion has started
	// or, the run being cancelled, will not.
	at := map[pkgstore.Ident]int{}
	for i, h := range hidden {
		if results[i] != nil {
			at[h.rel.Ident] = i
		}
	}
	dependents := make([][]int, len(hidden))
	decided := make([]chan struct{}, len(hidden))
	for j, h := range hidden {
		if results[j] == nil {
			continue
		}
		decided[j] = make(chan struct{})
		for _, d := range h.deps {
			if i, ok := at[d]; ok && i > j {
				if n := len(dependents[i]); n == 0 || dependents[i][n-1] != j {
					dependents[i] = append(dependents[i], j)
				}
			}
		}
	}
	pace := a.opts.pacer
	if pace == nil {
		pace = newPacer(a.opts.Pace, a.opts.Now)
	}
	defer func() { a.res.Paced = pace.total() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, q := range queues {
		if len(q) == 0 {
			continue
		}
		w := *a
		w.rm = remover{}
		wg.Go(func() {
			if pace != nil {
				lowerIOPriority()
			}
			defer w.rm.close()
			for _, i := range q {
				for _, j := range dependents[i] {
					<-decided[j]
				}
				pace.wait(a.ctx)
				if a.ctx.Err() != nil {
					close(decided[i])
					results[i] <- deletion{notStarted: true}
					continue
				}
				close(decided[i])
				results[i] <- deletion{outcome: w.removal(hidden[i], surveys[i])}
				pace.after(a.ctx, func() { w.probe(path.Dir(hidden[i].name)) })
			}
		})
	}
	for i, h := range hidden {
		if i > 0 {
			a.phase(PhaseDelete, i, len(hidden))
		}
		if outcomes[i] != nil {
			a.done(*outcomes[i])
			continue
		}
		d := <-results[i]
		if d.notStarted {
			a.putBackRest(hidden, i, d, results, outcomes, deleted)
			return stoppedError(a.ctx)
		}
		a.done(d.outcome)
		deleted[h.rel.Ident] = true
	}
	return nil
}

// putBackRest ends a cancelled deleteAll from hidden[first], the first
// release not started (d): once every worker has said what became of the
// rest, it puts back each release not started, dependencies first (the
// reverse of the hiding's order), with putBackAll. These releases are
// doomed, and the next run deletes a doomed directory whatever needs it:
// put back dependents first, a kill (a second signal, the watchdog)
// between two renames would leave a listed release needing a doomed one.
// Then it reports them all, and those put back before (outcomes), in the
// hiding's order.
func (a *applier) putBackRest(hidden []hiddenRelease, first int, d deletion, results []chan deletion, outcomes []*RemovalOutcome, deleted map[pkgstore.Ident]bool) {
	ds := make([]deletion, len(hidden))
	ds[first] = d
	for i := first + 1; i < len(hidden); i++ {
		if results[i] != nil {
			ds[i] = <-results[i]
		}
	}
	var put []int
	var whys []Reason
	for i := len(hidden) - 1; i >= first; i-- {
		if ds[i].notStarted {
			put, whys = append(put, i), append(whys, cancelledReason())
		}
	}
	for k, o := range a.putBackAll(pick(hidden, put), whys) {
		outcomes[put[k]] = &o
	}
	for i := first; i < len(hidden); i++ {
		if outcomes[i] != nil {
			a.done(*outcomes[i])
			continue
		}
		a.done(ds[i].outcome)
		deleted[hidden[i].rel.Ident] = true
	}
}

// pick returns hidden[i] for each i of at.
func pick(hidden []hiddenRelease, at []int) []hiddenRelease {
	out := make([]hiddenRelease, len(at))
	for k, i := range at {
		out[k] = hidden[i]
	}
	return out
}

// workerFor is the deletion worker of a release's package.
func workerFor(id pkgstore.Ident) int {
	h := fnv.New32a()
	h.Write([]byte(id.Origin))
	h.Write([]byte{'/'})
	h.Write([]byte(id.Name))
	return int(h.Sum32() % deleteWorkers)
}

// surveyAll surveys every hidden release not put back (back) on
// deleteWorkers goroutines, each with its own remover, and returns the
// surveys in the order of hidden; a release put back has none. The hook's
// "deleting" stage comes for each release on this goroutine, in order,
// just before its survey is handed out. When the run is cancelled, no
// survey is handed out after it, those under way finish (a survey only
// reads), and cancelled is true: nothing has been deleted.
//
// The caller then puts back, in order, each release with a mount point
// inside and what it needs among the hidden (a release put back so finds
// its own survey ignored, as a release put back before would have had
// none).
func (a *applier) surveyAll(hidden []hiddenRelease, back *putBack) (surveys []survey, cancelled bool) {
	surveys = make([]survey, len(hidden))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(len(hidden), deleteWorkers) {
		w := *a
		w.rm = remover{}
		wg.Go(func() {
			defer w.rm.close()
			for i := range jobs {
				surveys[i] = w.survey(hidden[i].name, hidden[i].size < 0) // each i once
			}
		})
	}
	for i, h := range hidden {
		if a.ctx.Err() != nil {
			cancelled = true
			break
		}
		if _, ok := back.reason(h.rel.Ident); ok {
			continue
		}
		a.stage("deleting", h.rel.Ident, h.name)
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return surveys, cancelled
}

// deletion is what a worker reports of one release.
type deletion struct {
	outcome    RemovalOutcome
	notStarted bool
}
