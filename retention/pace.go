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

// A probe slower than the target pauses the workers paceGain times its
// latency, at most paceMaxPause at once and paceBudget times the time spent
// deleting in all. Auto's target is twice the lowest latency seen, at
// least paceMinTarget (an idle disk's fsync varies by that much).
const (
	paceGain      = 2
	paceMaxPause  = time.Second
	paceBudget    = 2
	paceMinTarget = 2 * time.Millisecond
)

// pacer slows the deletion workers while the disk is slow for everyone:
// after a release one worker at a time probes (fsyncs the directory it
// changed, the cost a neighbour's fdatasync pays too), and a slow probe
// closes the gate every worker passes for a while.
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

// newPacer returns nil for full speed.
func newPacer(pace time.Duration, clock func() time.Time) *pacer {
	if pace == 0 {
		return nil
	}
	if clock == nil {
		clock = time.Now
	}
	return &pacer{target: max(pace, 0), clock: clock, sleep: sleepCtx, start: clock()}
}

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

// after times probe, unless another worker is probing, and pauses the
// workers when the disk was slow.
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

// pause closes the gate for d, within the budget.
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

func (p *pacer) total() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paced
}
