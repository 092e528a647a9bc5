package schedule_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/schedule"
)

func minuteOfDay(t *testing.T, expr string) int {
	t.Helper()
	f := strings.Fields(expr)
	m, err1 := strconv.Atoi(f[0])
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("%q: minute and hour are not numbers", expr)
	}
	return h*60 + m
}

// TestRandomWindows: a randomized spec limited to a window stays inside
// it, is stable, and is spread evenly across it.
func TestRandomWindows(t *testing.T) {
	tests := []struct {
		spec     string
		from, to int    // minutes of the day, to exclusive; to < from wraps midnight
		days     string // allowed weekdays (cron numbers), "" for any
	}{
		{"@daily-random(01:00-05:00)", 60, 300, ""},
		{"@Daily-Random( 22:30 - 02:00 )", 22*60 + 30, 120, ""},
		{"@weekly-random(mon-fri)", 0, 1440, "12345"},
		{"@weekly-random(fri-mon 01:00-05:00)", 60, 300, "5601"},
		{"@monthly-random(03:00-04:00)", 180, 240, ""},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			n := tt.to - tt.from
			if n <= 0 {
				n += 1440
			}
			counts := make([]int, n)
			days := map[string]int{}
			const samples = 24000
			for i := 0; i < samples; i++ {
				expr := resolve(t, tt.spec, fmt.Sprintf("/srv/s%d/hab/pkgs", i), schedule.Prune, "")
				if again := resolve(t, tt.spec, fmt.Sprintf("/srv/s%d/hab/pkgs", i), schedule.Prune, ""); again != expr {
					t.Fatalf("not stable: %q then %q", expr, again)
				}
				off := (minuteOfDay(t, expr) - tt.from + 1440) % 1440
				if off >= n {
					t.Fatalf("%q is outside the window", expr)
				}
				counts[off]++
				if tt.days != "" {
					d := strings.Fields(expr)[4]
					if !strings.Contains(tt.days, d) {
						t.Fatalf("%q: weekday %s outside %s", expr, d, tt.days)
					}
					days[d]++
				}
			}
			// Chi-square over the window's minutes: with n-1 degrees of
			// freedom its mean is n-1 and its deviation sqrt(2(n-1)).
			exp := float64(samples) / float64(n)
			chi := 0.0
			for _, c := range counts {
				chi += (float64(c) - exp) * (float64(c) - exp) / exp
			}
			if limit := float64(n-1) + 5*math.Sqrt(2*float64(n-1)); chi > limit {
				t.Errorf("minutes not uniform: chi-square %.0f over %d minutes (limit %.0f)", chi, n, limit)
			}
			for _, d := range tt.days {
				if c := days[string(d)]; float64(c) < 0.9*samples/float64(len(tt.days)) {
					t.Errorf("weekday %c: %d of %d", d, c, samples)
				}
			}
		})
	}
	for _, bad := range []string{"@daily-random(05:00-05:00)", "@daily-random(25:00-02:00)", "@daily-random(mon-fri)",
		"@hourly-random(01:00-02:00)", "@weekly-random(mon-xyz)", "@daily-random(01:00-05:00", "@daily-random()", "@weekly-random(mon-fri 1-2)"} {
		if _, err := schedule.ParseSpec(bad); !errors.Is(err, schedule.ErrBadSpec) {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}
