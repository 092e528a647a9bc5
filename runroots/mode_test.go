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

// TestModeFinders: off looks at no process; on looks strictly, except in
// a dry run, which removes nothing and so goes on with what it could see;
// best-effort always goes on.
func TestModeFinders(t *testing.T) {
	for _, tc := range []struct {
		mode       runroots.Mode
		dry        bool
		want       int // finders
		bestEffort bool
	}{
		{runroots.ModeOff, false, 0, false},
		{runroots.ModeOff, true, 0, false},
		{runroots.ModeOn, false, 1, false},
		{runroots.ModeOn, true, 1, true},
		{runroots.ModeBestEffort, false, 1, true},
		{runroots.ModeBestEffort, true, 1, true},
	} {
		fs := tc.mode.Finders(tc.dry)
		if len(fs) != tc.want {
			t.Errorf("%v dry %v: %d finders, want %d", tc.mode, tc.dry, len(fs), tc.want)
			continue
		}
		if tc.want == 0 {
			continue
		}
		f, ok := fs[0].(runroots.Finder)
		if !ok || f.BestEffort != tc.bestEffort || f.ProcRoot != "" {
			t.Errorf("%v dry %v: %#v, want a runroots.Finder, BestEffort %v", tc.mode, tc.dry, fs[0], tc.bestEffort)
		}
	}
}
