package schedule_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/schedule"
)

// exactlyOnceMonthsEnv sets TestPropertyExactlyOnce's simulated span
// (months a zone; default 6: two and a half years in all over the zones, every
// fault a few times in each zone; HABGC_SCHED_PROP_MONTHS=60 for five
// years a zone).
const exactlyOnceMonthsEnv = "HABGC_SCHED_PROP_MONTHS"

// exactlyOnceLogEnv, set, makes TestPropertyExactlyOnce log every
// outcome, the scheduler's log and the state at each restart.
const exactlyOnceLogEnv = "HABGC_SCHED_PROP_LOG"

// exactlyOnceSeedEnv replays one seed of TestPropertyExactlyOnce.
const exactlyOnceSeedEnv = "HABGC_SCHED_PROP_SEED"

// sixHourly17 returns the instants in (from, to] that are 00:17, 06:17,
// 12:17 or 18:17 in loc: a "17 */6 * * *" job's due times (no zone here
// skips or repeats those hours). Every zone's offset is a multiple of 15
// minutes, so only UTC minutes 2, 17, 32 and 47 can be.
func sixHourly17(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	for h := from.UTC().Truncate(time.Hour); !h.After(to); h = h.Add(time.Hour) {
		for _, m := range [...]int{2, 17, 32, 47} {
			t := h.Add(time.Duration(m) * time.Minute)
			if t.After(from) && !t.After(to) && t.In(loc).Minute() == 17 && t.In(loc).Hour()%6 == 0 {
				out = append(out, t)
			}
		}
	}
	return out
}

// daily0430 returns the instants in (from, to] that are 04:30 in loc (no
// zone here moves its clocks at that hour).
func daily0430(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	d := from.In(loc)
	for day := time.Date(d.Year(), d.Month(), d.Day(), 4, 30, 0, 0, loc); !day.After(to); day = time.Date(day.Year(), day.Month(), day.Day()+1, 4, 30, 0, 0, loc) {
		if day.After(from) {
			out = append(out, day)
		}
	}
	return out
}

// TestPropertyExactlyOnce drives two jobs (at 00:17, 06:17,
// 12:17 and 18:17, and daily at 04:30, local time) through six months of 20-minute ticks in each
// of five zones, with random faults: restarts after up to three days down,
// the state file deleted, garbage or cut short while the daemon runs,
// garbage at a restart, the clock set back up to 20 hours, a boot at
// 1970 that NTP corrects, and a start with the clock three days fast
// that is then set right. It asserts:
//   - no due time runs twice (runs while the clock is more than a day
//     fast are left out: those due times are re-anchored, as documented,
//     or, when the clock is set right less than a day before the last of
//     them, count as run, with every due time before it);
//   - nothing runs while the clock is obviously wrong (before NotBefore);
//   - every due time between two consecutive clean ticks (daemon up,
//     clock right at both, no state lost at a restart between them) runs
//     at the second; after days down, the latest due time missed runs at
//     the restart (catch-up spread 0), the others are coalesced into it.
//
// The seed is printed on failure; HABGC_SCHED_PROP_SEED replays one and
// HABGC_SCHED_PROP_MONTHS sets the span.
func TestPropertyExactlyOnce(t *testing.T) {
	months := 6
	if v := os.Getenv(exactlyOnceMonthsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a number of months", exactlyOnceMonthsEnv, v)
		}
		months = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(exactlyOnceSeedEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a number", exactlyOnceSeedEnv, v)
		}
		seed = n
	}
	notBefore := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for zi, zone := range []string{"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skip("no tzdata:", err)
		}
		t.Run(zone, func(t *testing.T) {
			t.Parallel()
			zseed := seed + uint64(zi)
			defer func() {
				if t.Failed() {
					t.Logf("replay: %s=%d %s=%d go test -run 'TestPropertyExactlyOnce/%s' ./schedule", exactlyOnceSeedEnv, seed, exactlyOnceMonthsEnv, months, zone)
				}
			}()
			r := rand.New(rand.NewPCG(zseed, 35))
			e := newEnv(t)
			root := e.store()
			e.write("hourly", prune(root, "17 */6 * * *"))
			e.write("daily", prune(root, "30 4 * * *"))
			start := func() *schedule.Scheduler {
				s := e.scheduler()
				s.Location, s.NotBefore = loc, notBefore
				if os.Getenv(exactlyOnceLogEnv) != "" {
					s.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
				}
				e.reload(s)
				return s
			}
			s := start()
			keys := map[string]string{} // job key -> "hourly" or "daily"
			for _, j := range s.Jobs() {
				keys[j.Key] = map[string]string{"17 */6 * * *": "hourly", "30 4 * * *": "daily"}[j.Cron]
			}
			if len(keys) != 2 || keys[s.Jobs()[0].Key] == "" || keys[s.Jobs()[1].Key] == "" {
				t.Fatalf("jobs %+v: want the hourly and the daily", s.Jobs())
			}
			dues := func(kind string, from, to time.Time) []time.Time {
				if kind == "hourly" {
					return sixHourly17(loc, from, to)
				}
				return daily0430(loc, from, to)
			}
			ran := map[string]map[time.Time]int{"hourly": {}, "daily": {}}
			const tick = 20 * time.Minute
			real := e.clock.Now()
			end := real.AddDate(0, months, 0)
			var lastTick time.Time // the last tick that ran, with the clock right
			lastClean := false     // whether it was clean
			wrongTicks, skew := 0, time.Duration(0)
			// A wrong clock follows a right reading: a clock fast and then
			// set back to before the real time at the next reading is a
			// double fault after which nothing says which due times ran.
			prevRight := true
			// The latest due time each job ran while the clock was more
			// than a day fast.
			fastDue := map[string]time.Time{}
			owed, checked := 0, 0
			for step := 0; real.Before(end); step++ {
				real = real.Add(tick)
				restarted, down, lost := false, false, false
				switch x := r.IntN(500); {
				case x == 0: // a restart after up to three days down
					real = real.Add(time.Duration(r.Int64N(int64(72 * time.Hour))))
					restarted, down = true, true
				case x == 1:
					os.Remove(e.state)
				case x == 2:
					os.WriteFile(e.state, []byte("garbage\n"), 0o644)
				case x == 3:
					if b, err := os.ReadFile(e.state); err == nil {
						os.WriteFile(e.state, b[:len(b)/2], 0o644)
					}
				case x == 4 && wrongTicks == 0: // garbage, then a restart: the jobs start anew
					// (With the clock set back too, nothing left says which
					// due times ran: that double fault is not drawn.)
					os.WriteFile(e.state, nil, 0o644)
					restarted, lost = true, true
				case x == 5 && wrongTicks == 0 && prevRight: // set back, for one to three ticks
					skew, wrongTicks = -time.Duration(r.IntN(20)+1)*time.Hour, r.IntN(3)+1
				case x == 6 && wrongTicks == 0 && prevRight: // a boot at 1970, then NTP
					skew, wrongTicks = time.Date(1970, 1, 1, 0, 10, 0, 0, time.UTC).Sub(real), r.IntN(3)+1
					restarted = true
				case x == 7 && wrongTicks == 0 && prevRight: // started three days fast, then set right
					skew, wrongTicks = 72*time.Hour, r.IntN(3)+1
					restarted = true
				}
				right := wrongTicks == 0
				if wrongTicks > 0 {
					wrongTicks--
				} else {
					skew = 0
				}
				now := real.Add(skew)
				e.clock.Set(now)
				if restarted {
					if os.Getenv(exactlyOnceLogEnv) != "" {
						b, _ := os.ReadFile(e.state)
						t.Logf("step %d restart, state: %s", step, b)
					}
					s = start()
				}
				for _, o := range s.RunDue(context.Background()) {
					if os.Getenv(exactlyOnceLogEnv) != "" {
						t.Logf("step %d now %v: %s due %v ran %v err %v", step, now, keys[o.Job.Key], o.Due, o.Status == schedule.Ran, o.Err)
					}
					if o.Status != schedule.Ran {
						continue
					}
					kind := keys[o.Job.Key]
					switch {
					case now.Before(notBefore):
						t.Fatalf("step %d (%v): ran %s for %v while the clock read %v", step, real, kind, o.Due, now)
					case skew > 24*time.Hour:
						// Re-anchored when the clock is set right, unless by
						// then it lies less than a day ahead: every due time
						// up to it then counts as run (as after a clock set
						// back), and is owed no more.
						if o.Due.After(fastDue[kind]) {
							fastDue[kind] = o.Due
						}
						continue
					}
					ran[kind][o.Due.UTC()]++
					if ran[kind][o.Due.UTC()] > 1 {
						t.Fatalf("step %d (%v, clock %v): the %s due time %v ran twice", step, real, now, kind, o.Due)
					}
				}
				clean := right && !lost && !lastTick.IsZero()
				if clean && lastClean {
					for kind := range ran {
						d := dues(kind, lastTick, real)
						if len(d) == 0 {
							continue
						}
						want := d
						if down {
							want = d[len(d)-1:] // the latest missed; the others coalesce into it
						}
						for _, due := range want {
							owed++
							if ran[kind][due.UTC()] == 0 && due.After(fastDue[kind]) {
								t.Fatalf("step %d (%v): the %s due time %v was owed (ticks %v and %v clean) and did not run", step, real, kind, due, lastTick, real)
							}
						}
					}
					checked++
				}
				if right {
					lastTick, lastClean = real, !lost
				} else {
					lastClean = false
				}
				prevRight = right
			}
			if checked == 0 || owed < 100*months {
				t.Fatalf("%d clean intervals, %d due times owed: the test checked almost nothing", checked, owed)
			}
			t.Logf("%s: %d due times owed and run, %d hourly and %d daily runs in all", zone, owed, len(ran["hourly"]), len(ran["daily"]))
		})
	}
}
