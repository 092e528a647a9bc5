package retention

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// PaceAuto paces deleting by the disk's latency against the lowest seen
// during the run (ApplyOptions.Pace).
const PaceAuto time.Duration = -1

// MaxPace is the largest latency ApplyOptions.Pace may name.
const MaxPace = 10 * time.Second

// Pacing's constants. A probe's latency above the target pauses every
// deletion worker for paceGain times that latency, at most paceMaxPause
// at a time, and in all at most paceBudget times the time spent deleting:
// a paced run takes at most 1+paceBudget times as long. In auto mode the
// target is twice the lowest latency seen, and never below paceMinTarget
// (an fsync on an idle disk varies by that much).
const (
	paceGain      = 2
	paceMaxPause  = time.Second
	paceBudget    = 2
	paceMinTarget = 2 * time.Millisecond
)

// pacer slows the deletion workers down while the disk is slow for
// everyone. After a release, a worker probes (an fsync of a directory it
// has just changed: the cost of committing the unlinks made since the
// last commit, which a neighbour's fdatasync pays too); one probe runs at
// a time, and the others' workers carry on. A slow probe closes the gate
// every worker passes before its next release for a while (the prober
// sleeps it out); a fast one leaves it open. The sleep ends at once when
// the run is cancelled.
type pacer struct {
	target time.Duration // latency above which to pause; 0: auto
	clock  func() time.Time
	sleep  func(context.Context, time.Duration) error

	probing atomic.Bool
	start   time.Time
	lowest  time.Duration // lowest latency seen; only the prober touches it

	mu    sync.Mutex
	gate  chan struct{} // closed, or nil, when open
	paced time.Duration
}

// newPacer returns the pacer of ApplyOptions.Pace (nil: full speed),
// timing its probes by clock.
func newPacer(pace time.Duration, clock func() time.Time) *pacer {
	if pace == 0 {
		return nil
	}
	if clock == nil {
		clock = time.Now
	}
	return &pacer{target: max(pace, 0), clock: clock, sleep: sleepCtx, start: clock()}
}

// sleepCtx sleeps for d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait returns once the gate is open or the run is cancelled.
func (p *pacer) wait(ctx context.Context) {
	if p == nil {
		return
	}
	p.mu.Lock()
	g := p.gate
	p.mu.Unlock()
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
		}
	}
}

// after is called by a worker after each release: unless another worker
// is probing, it times probe and, when the disk was slow, pauses the
// workers (pause).
func (p *pacer) after(ctx context.Context, probe func()) {
	if p == nil || ctx.Err() != nil || !p.probing.CompareAndSwap(false, true) {
		return
	}
	defer p.probing.Store(false)
	t0 := p.clock()
	probe()
	lat := p.clock().Sub(t0)
	if p.lowest == 0 || lat < p.lowest {
		p.lowest = max(lat, time.Microsecond)
	}
	target := p.target
	if target == 0 {
		target = max(2*p.lowest, paceMinTarget)
	}
	if lat <= target {
		return
	}
	p.pause(ctx, min(paceGain*lat, paceMaxPause))
}

// pause closes the gate for d, less what would take the pacing over its
// budget, and counts it.
func (p *pacer) pause(ctx context.Context, d time.Duration) {
	p.mu.Lock()
	busy := p.clock().Sub(p.start) - p.paced
	d = min(d, paceBudget*busy-p.paced)
	if d <= 0 {
		p.mu.Unlock()
		return
	}
	p.gate = make(chan struct{})
	p.mu.Unlock()
	t0 := p.clock()
	p.sleep(ctx, d)
	p.mu.Lock()
	p.paced += p.clock().Sub(t0)
	close(p.gate)
	p.gate = nil
	p.mu.Unlock()
}

// total is how long the workers were held.
func (p *pacer) total() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paced
}
