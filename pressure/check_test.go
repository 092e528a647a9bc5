package pressure_test

import (
	"errors"
	"math"
	"testing"

	"github.com/hab-gc/hab-gc/pressure"
)

// TestLimitsCheck: Check refuses what Resolve refuses on a file system of
// any size, with the same error, and nothing Resolve takes on some file
// system: max-free below min-free is known early only when both are
// bytes.
func TestLimitsCheck(t *testing.T) {
	const gib = 1 << 30
	b := func(n int64) pressure.Size { return pressure.Size{Bytes: n} }
	pc := func(p float64) pressure.Size { return pressure.Size{Percent: p} }
	for _, tc := range []struct {
		name     string
		l        pressure.Limits
		err      error // Check's
		belowMin bool  // wraps ErrMaxBelowMin
	}{
		{"zero", pressure.Limits{}, nil, false},
		{"equal", pressure.Limits{MinFree: b(gib), MaxFree: b(gib)}, nil, false},
		{"max above min", pressure.Limits{MinFree: b(gib), MaxFree: b(2 * gib)}, nil, false},
		{"max below min, bytes", pressure.Limits{MinFree: b(2 * gib), MaxFree: b(gib)}, pressure.ErrBadLimits, true},
		{"max zero below min", pressure.Limits{MinFree: b(gib)}, pressure.ErrBadLimits, true},
		{"percentages, max below min: known on a file system only", pressure.Limits{MinFree: pc(20), MaxFree: pc(10)}, nil, false},
		{"bytes and a percentage: known on a file system only", pressure.Limits{MinFree: b(2 * gib), MaxFree: pc(10)}, nil, false},
		{"negative bytes", pressure.Limits{MinFree: b(-1), MaxFree: b(10)}, pressure.ErrBadLimits, false},
		{"percentage above 100", pressure.Limits{MaxFree: pc(150)}, pressure.ErrBadLimits, false},
		{"negative percentage", pressure.Limits{MinFree: pc(-5)}, pressure.ErrBadLimits, false},
		{"NaN percentage", pressure.Limits{MinFree: pc(math.NaN())}, pressure.ErrBadLimits, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.l.Check()
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || errors.Is(err, pressure.ErrMaxBelowMin) != tc.belowMin {
				t.Fatalf("Check: %v; want %v (max below min: %v)", err, tc.err, tc.belowMin)
			}
			// Whatever Check refuses Resolve refuses, on any file system,
			// saying the same.
			for _, total := range []int64{0, gib, 100 * gib} {
				_, _, rerr := tc.l.Resolve(total)
				if err != nil && (rerr == nil || rerr.Error() != err.Error() || errors.Is(rerr, pressure.ErrMaxBelowMin) != tc.belowMin) {
					t.Errorf("Resolve(%d): %v; want %v as Check", total, rerr, err)
				}
			}
		})
	}
	// Resolve refuses max-free below min-free on the file system, a
	// percentage included, as ErrMaxBelowMin.
	_, _, err := pressure.Limits{MinFree: b(2 * gib), MaxFree: pc(10)}.Resolve(10 * gib)
	if !errors.Is(err, pressure.ErrBadLimits) || !errors.Is(err, pressure.ErrMaxBelowMin) {
		t.Fatalf("Resolve: %v; want ErrBadLimits and ErrMaxBelowMin", err)
	}
	if want := "invalid free-space limits: max-free 10% is less than min-free 2.0 GiB"; err.Error() != want {
		t.Errorf("Resolve: %q, want %q", err, want)
	}
}
