package runroots_test

import (
	"errors"
	"testing"

	"github.com/hab-gc/hab-gc/runroots"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want runroots.Mode
		ok   bool
	}{
		{"true", runroots.ModeOn, true},
		{"TRUE", runroots.ModeOn, true},
		{"1", runroots.ModeOn, true},
		{" true ", runroots.ModeOn, true},
		{"false", runroots.ModeOff, true},
		{"0", runroots.ModeOff, true},
		{"F", runroots.ModeOff, true},
		{"best-effort", runroots.ModeBestEffort, true},
		{" best-effort\n", runroots.ModeBestEffort, true},
		{"BEST-EFFORT", 0, false},
		{"besteffort", 0, false},
		{"maybe", 0, false},
		{"yes", 0, false},
		{"", 0, false},
	} {
		got, err := runroots.ParseMode(tc.in)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, runroots.ErrBadMode)) || (tc.ok && got != tc.want) {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, m := range []runroots.Mode{runroots.ModeOn, runroots.ModeOff, runroots.ModeBestEffort} {
		if got, err := runroots.ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%v.String()) = %v, %v", m, got, err)
		}
	}
}
