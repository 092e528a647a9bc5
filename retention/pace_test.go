package retention

import (
	"context"
	"strings"
	"testing"
	"time"
)

// fakeDisk is a pacer's clock and sleep: a probe takes the latency it is
// given, a release's deletion work, a sleep what it asks; nothing waits.
type fakeDisk struct {
	now    time.Time
	sleeps []time.Duration
}

func (d *fakeDisk) clock() time.Time { return d.now }

func (d *fakeDisk) sleep(_ context.Context, t time.Duration) error {
	d.sleeps = append(d.sleeps, t)
	d.now = d.now.Add(t)
	return nil
}

// release is one release deleted, then probed at latency lat.
func (d *fakeDisk) release(p *pacer, work, lat time.Duration) {
	d.now = d.now.Add(work)
	p.after(context.Background(), func() { d.now = d.now.Add(lat) })
}

func testPacer(target time.Duration, d *fakeDisk) *pacer {
	p := newPacer(target, d.clock)
	p.sleep = d.sleep
	return p
}

// The pacer sleeps after each slow probe and not after a fast one: in
// auto mode, none while the disk answers at its lowest latency, one per
// sample (twice the latency) once it answers 20 times slower, and none
// again once it recovers. Sleeps are counted against samples, not timed.
func TestPaceFollowsTheLatency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target time.Duration
		phases []time.Duration // 20 samples at each latency
		sleeps []int           // sleeps requested during each phase
	}{
		{"auto: idle, slow, recovered", PaceAuto, []time.Duration{500 * time.Microsecond, 10 * time.Millisecond, 500 * time.Microsecond}, []int{0, 20, 0}},
		{"auto: small jitter is not slow", PaceAuto, []time.Duration{500 * time.Microsecond, 1500 * time.Microsecond}, []int{0, 0}},
		{"target 5ms", 5 * time.Millisecond, []time.Duration{4 * time.Millisecond, 6 * time.Millisecond, 4 * time.Millisecond}, []int{0, 20, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := &fakeDisk{now: time.Unix(0, 0)}
			p := testPacer(tt.target, d)
			for i, lat := range tt.phases {
				before := len(d.sleeps)
				for range 20 {
					d.release(p, 10*time.Millisecond, lat)
				}
				got := d.sleeps[before:]
				if len(got) != tt.sleeps[i] {
					t.Fatalf("phase %d (latency %s): %d sleeps for 20 samples, want %d", i, lat, len(got), tt.sleeps[i])
				}
				for _, s := range got {
					if s != paceGain*lat {
						t.Errorf("phase %d: slept %s for a latency of %s, want %s", i, s, lat, paceGain*lat)
					}
				}
			}
			var sum time.Duration
			for _, s := range d.sleeps {
				sum += s
			}
			if p.total() != sum {
				t.Errorf("paced %s, slept %s", p.total(), sum)
			}
		})
	}
}

// However slow the disk stays, the pauses stay within paceBudget times the
// time spent working, so a paced run ends.
func TestPaceBudget(t *testing.T) {
	t.Parallel()
	d := &fakeDisk{now: time.Unix(0, 0)}
	p := testPacer(PaceAuto, d)
	d.release(p, time.Millisecond, time.Millisecond) // the lowest latency
	for range 200 {
		d.release(p, time.Millisecond, 400*time.Millisecond)
	}
	busy := d.now.Sub(time.Unix(0, 0)) - p.total()
	if p.total() > paceBudget*busy {
		t.Errorf("paced %s for %s of work: more than %dx", p.total(), busy, paceBudget)
	}
	if len(d.sleeps) == 0 {
		t.Error("never paced a disk 400 times slower")
	}
}

// Only one worker probes at a time; the others go on (no probe, no sleep).
func TestPaceOneProbeAtATime(t *testing.T) {
	t.Parallel()
	d := &fakeDisk{now: time.Unix(0, 0)}
	p := testPacer(time.Millisecond, d)
	inner := 0
	p.after(context.Background(), func() {
		p.after(context.Background(), func() { inner++ })
		d.now = d.now.Add(10 * time.Millisecond)
	})
	if inner != 0 {
		t.Error("a second probe ran while one was running")
	}
	if len(d.sleeps) != 1 {
		t.Errorf("%d sleeps after one slow probe, want 1", len(d.sleeps))
	}
}

// A cancelled run neither probes nor waits at a closed gate.
func TestPaceCancelled(t *testing.T) {
	t.Parallel()
	d := &fakeDisk{now: time.Unix(0, 0)}
	p := testPacer(time.Millisecond, d)
	p.gate = make(chan struct{}) // closed by nobody
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.wait(ctx)
	probed := false
	p.after(ctx, func() { probed = true })
	if probed {
		t.Error("a cancelled run probed")
	}
	if err := sleepCtx(ctx, time.Hour); err == nil {
		t.Error("sleepCtx of a cancelled context slept")
	}
}

func TestPaceValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pace time.Duration
		ok   bool
	}{
		{0, true},
		{PaceAuto, true},
		{time.Microsecond, true},
		{5 * time.Millisecond, true},
		{MaxPace, true},
		{-2, false},
		{-time.Second, false},
		{MaxPace + 1, false},
		{365 * 24 * time.Hour, false},
	}
	for _, tt := range tests {
		err := ApplyOptions{Pace: tt.pace}.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("Pace %s: error %v, want ok %v", tt.pace, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "pace") {
			t.Errorf("Pace %s: %q does not name the pace", tt.pace, err)
		}
	}
}
