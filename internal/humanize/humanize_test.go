package humanize_test

import (
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/humanize"
	"github.com/hab-gc/hab-gc/retention"
)

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536 << 10, "1.5 MiB"},
		{5 << 30, "5.0 GiB"},
		{-2048, "-2.0 KiB"},
		{1 << 62, "4.0 EiB"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := humanize.Bytes(tc.n); got != tc.want {
				t.Errorf("Bytes(%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{0: "0th", 1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th",
		13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th", 112: "112th"} {
		if got := humanize.Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDurationSettingReadsBack: what DurationSetting writes,
// retention.ParseDuration reads as the same setting.
func TestDurationSettingReadsBack(t *testing.T) {
	for _, tc := range []struct {
		d, none time.Duration
		want    string
	}{
		{retention.NoMinAge, retention.NoMinAge, "none"},
		{0, retention.NoMinAge, "0s"},
		{90 * time.Second, retention.NoMinAge, "1m30s"},
		{2 * time.Hour, retention.NoLockWait, "2h0m0s"},
		{retention.NoLockWait, retention.NoLockWait, "none"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			s := humanize.DurationSetting(tc.d, tc.none)
			if s != tc.want {
				t.Errorf("DurationSetting(%v, %v) = %q, want %q", tc.d, tc.none, s, tc.want)
			}
			back, err := retention.ParseDuration(s, tc.none)
			if err != nil || back != tc.d {
				t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, back, err, tc.d)
			}
		})
	}
}
