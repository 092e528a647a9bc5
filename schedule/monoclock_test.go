package schedule_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hab-gc/hab-gc/internal/schedtest"
	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/schedule"
)

// monoClock reads as time.Now does on a machine whose clock is set: the
// wall reading is the one set, the monotonic reading is the process's,
// which only goes on. Go makes such a Time only from a real clock step,
// so Now writes the monotonic reading into the Time itself (checked).
type monoClock struct {
	t    *testing.T
	mu   sync.Mutex
	wall time.Time
}

// timeLayout is time.Time's representation: wall holds the wall reading
// (and a flag saying ext is a monotonic one), ext the monotonic reading.
type timeLayout struct {
	wall uint64
	ext  int64
	loc  *time.Location
}

func (c *monoClock) Now() time.Time {
	c.mu.Lock()
	wall := c.wall
	c.mu.Unlock()
	n := time.Now()
	u := n.Add(wall.Sub(n.Round(0))) // the wall reading set, the monotonic one moved with it
	(*timeLayout)(unsafe.Pointer(&u)).ext = (*timeLayout)(unsafe.Pointer(&n)).ext
	if !u.Round(0).Equal(wall) || u.Sub(n) != 0 {
		c.t.Errorf("monoClock: time.Time's layout is not the one it knows: %v from %v and %v", u, wall, n)
	}
	return u
}

func (c *monoClock) Set(t time.Time)     { c.mu.Lock(); c.wall = t; c.mu.Unlock() }
func (c *monoClock) Add(d time.Duration) { c.mu.Lock(); c.wall = c.wall.Add(d); c.mu.Unlock() }

// TestClockStartedFastSetRightWithMonotonicReadings: a daemon started with
// its clock three days fast runs the job's due times early; its clock is
// then set right. Runs made while the clock was fast do not count: every
// due time after the correction runs once when the clock reaches it, those
// the fast clock ran too, none held as "missed before the start" (the
// daemon's catch-up spread). The clock's readings carry monotonic
// readings, as time.Now's do: compared by them, the clock never went back.
func TestClockStartedFastSetRightWithMonotonicReadings(t *testing.T) {
	t.Parallel()
	b := storetest.New(t)
	b.Target = pkgstore.DefaultTarget()
	dir := schedtest.Dir(t, map[string]string{"a": schedtest.Prune(b.Root, "17 * * * *")})
	right := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := &monoClock{t: t, wall: right.Add(72 * time.Hour)} // started three days fast
	var mu sync.Mutex
	var runs []time.Time
	s := &schedule.Scheduler{Dir: dir, StatePath: filepath.Join(testtool.TempDir(t), "state.json"), Clock: clock.Now, CatchUpSpread: 10 * time.Minute,
		Run: func(_ context.Context, _ schedule.Job, _ *pkgstore.Store, now time.Time) (schedule.RunResult, error) {
			mu.Lock()
			runs = append(runs, now.Round(0))
			mu.Unlock()
			return schedule.RunResult{OK: true}, nil
		}}
	if probs, err := s.Reload(); err != nil || len(probs) > 0 {
		t.Fatalf("reload: %v %v", err, probs)
	}
	for m := 0; m < 60; m += 15 { // 00:17 of the fast day runs
		clock.Add(15 * time.Minute)
		s.RunDue(context.Background())
	}
	mu.Lock()
	fast := len(runs)
	mu.Unlock()
	if fast != 1 {
		t.Fatalf("%d runs in the first hour of the fast clock, want 1", fast)
	}
	clock.Set(right.Add(10 * time.Minute)) // set right: 00:10
	s.RunDue(context.Background())
	end := right.Add(72*time.Hour + 30*time.Minute) // past the 00:17 the fast clock ran
	for clock.Now().Before(end) {
		clock.Add(15 * time.Minute)
		s.RunDue(context.Background())
	}
	mu.Lock()
	defer mu.Unlock()
	// Once each hour, from 01:17 (00:17 may be taken as the first due
	// time after the correction) to 00:17 three days on.
	byHour := map[int64]int{}
	for _, r := range runs[fast:] {
		byHour[r.Truncate(time.Hour).Unix()]++
	}
	for h := right; !h.After(right.Add(72 * time.Hour)); h = h.Add(time.Hour) {
		if n := byHour[h.Unix()]; n > 1 || n == 0 && h.After(right) {
			t.Fatalf("after the clock was set right the job ran %d time(s) in the hour from %v, want once (%d runs in all: %v)", n, h, len(runs)-fast, runs[fast:])
		}
	}
}
