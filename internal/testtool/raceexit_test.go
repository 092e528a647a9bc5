package testtool_test

import (
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

func TestNoRaceExitSleep(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gorace *string // nil: unset
		want   string
	}{
		{"unset", nil, "atexit_sleep_ms=0"},
		{"empty", ptr(""), "atexit_sleep_ms=0"},
		{"other options kept", ptr("halt_on_error=1"), "halt_on_error=1 atexit_sleep_ms=0"},
		{"the operator's sleep kept", ptr("atexit_sleep_ms=500 log_path=/tmp/r"), "atexit_sleep_ms=500 log_path=/tmp/r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GORACE", "") // restores GORACE when the test ends
			if tc.gorace == nil {
				os.Unsetenv("GORACE")
			} else {
				os.Setenv("GORACE", *tc.gorace)
			}
			testtool.NoRaceExitSleep()
			if got := os.Getenv("GORACE"); got != tc.want {
				t.Errorf("GORACE=%q, want %q", got, tc.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
